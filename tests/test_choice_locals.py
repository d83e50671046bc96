"""A local assigned a choice whose operands have different types (hostile sessions 41a
and 41c): CPython's local holds the operand chosen, with its own type, and computes on
it in that type later.  A compiled local has one type, so where the type would change a
later result the function is refused; where it cannot, the result matches CPython's.

Before, each refused kernel below compiled and returned another number than CPython:
``s += max(a64[i], u32[i])`` summed in int64 where CPython's ``s`` had become a uint32
(8589934595 against 3), ``t = min(b[i], 2); t + t`` added 1 + 1 where CPython's NumPy
bools give True, ``s -= A32[j] if j == 0 else 5`` gave -10 against 4294967286.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyopt


def bool_or_int(b, out):
    for i in range(b.shape[0]):
        t = min(b[i], 2)
        out[i] = t + t


def bool_or_python_bool(b, out):
    for i in range(b.shape[0]):
        t = b[i] if i > 0 else True
        out[i] = t + t


def two_int_types(u8, i8, out):
    for i in range(u8.shape[0]):
        t = max(u8[i], i8[i])
        out[i] = t * 2


def accumulate_max(a, b):
    s = 0
    for i in range(a.shape[0]):
        s += max(a[i], b[i])
    return s


def accumulate_choice(a, b):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] if i < 0 else b[i]
    return s


def accumulate_float_or_uint8(u8, x):
    s = 0
    for i in range(u8.shape[0]):
        s += min(x[i], u8[i])
    return s


def subtract_max(A, C):
    s = 1
    s -= max(A[0], C[0])
    return s


def subtract_choice(A, B):
    s = 0
    for j in range(3):
        s -= A[j] if j == 0 else 5
    B[0] = s


U8 = np.array([0, 5, 200, 255], np.uint8)
I8 = np.array([-128, -1, 7, 127], np.int8)
B = np.array([True, False, True, True])
A64 = np.array([1, 2, 3], np.int64)
U32 = np.array([2**32 - 1, 2**32 - 1, 5], np.uint32)


@pytest.mark.parametrize(("kernel", "args", "held"), [
    (bool_or_int, (B, np.zeros(4, np.int64)), "a NumPy bool or a Python scalar"),
    (bool_or_python_bool, (B, np.zeros(4, np.int64)), "a NumPy bool or a Python scalar"),
    (two_int_types, (U8, I8, np.zeros(4, np.int64)), "a NumPy int8 or a NumPy uint8"),
    (accumulate_max, (A64, U32), "a NumPy int64 or a NumPy uint32"),
    (accumulate_choice, (A64, U32), "a NumPy int64 or a NumPy uint32"),
    (accumulate_float_or_uint8, (np.array([200, 100], np.uint8), np.array([1e3, 1e3])),
     "a NumPy float64 or a NumPy uint8"),
    (subtract_max, (np.array([2], np.int32), np.array([5], np.uint32)),
     "a NumPy int32 or a NumPy uint32"),
    (subtract_choice, (np.array([0, 1, 2], np.uint32), np.zeros(1, np.int64)),
     "a NumPy uint32 or a Python int"),
])
def test_a_local_whose_type_depends_on_the_operand_chosen_is_refused(kernel, args, held) -> None:
    with pytest.raises(polyopt.UnsupportedError, match=f"holding {held}") as info:
        polyopt.jit(kernel)(*args)
    assert "line" in str(info.value)


def accumulate_max_converted(a, b):
    s = 0
    for i in range(a.shape[0]):
        s += int(max(a[i], b[i]))
    return s


def bool_converted(b, out):
    for i in range(b.shape[0]):
        t = min(int(b[i]), 2)
        out[i] = t + t


def stored_wide(u8, out):
    for i in range(u8.shape[0]):
        t = min(u8[i], 1000)
        out[i] = t


def max_from_minus_one(u8):
    m = -1
    for i in range(u8.shape[0]):
        m = max(m, u8[i])
    return m


def min_from_a_thousand(u8):
    m = 1000
    for i in range(u8.shape[0]):
        m = min(m, u8[i])
    return m


def bool_or_false(b, out):
    """A Python False computes as a NumPy False does (False + False is 0 either way)."""
    for i in range(b.shape[0]):
        t = b[i] if i > 0 else False
        out[i] = t + t


def held_times_a_python_float(u8, out):
    """uint8 * 0.25 and int * 0.25 are both float64, and store the same number."""
    for i in range(u8.shape[0]):
        t = u8[i] // 3 if i > 1 else i - 7
        out[i] = t * 0.25


def held_times_a_python_float_beside_float32(u8, x32, out):
    for i in range(u8.shape[0]):
        t = u8[i] // 3 if i > 1 else i - 7
        out[i] = t * 0.25 + x32[i]


def held_then_arithmetic(u8):
    m = -1
    for i in range(u8.shape[0]):
        m = max(m, u8[i])
    return m + 1


@pytest.mark.parametrize(("kernel", "args"), [
    (accumulate_max_converted, (A64, U32)),
    (bool_converted, (B, np.zeros(4, np.int64))),
    (bool_or_false, (B, np.zeros(4, np.int64))),
    (held_times_a_python_float, (U8, np.zeros(4))),
    (stored_wide, (U8, np.zeros(4, np.int64))),
    (max_from_minus_one, (U8,)),
    (max_from_minus_one, (np.zeros(0, np.uint8),)),
    (min_from_a_thousand, (U8,)),
])
def test_a_choice_whose_type_cannot_change_a_result_matches_cpython(kernel, args) -> None:
    want, got = [a.copy() for a in args], [a.copy() for a in args]
    r_want = kernel(*want)
    r_got = polyopt.jit(kernel)(*got)
    assert r_got == r_want
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


def test_arithmetic_on_a_local_holding_a_narrow_int_or_a_python_int_is_refused() -> None:
    # CPython's m is np.uint8(200) here, and m + 1 would wrap at 255
    with pytest.raises(polyopt.UnsupportedError, match="`m` holding a NumPy uint8 or a Python int"):
        polyopt.jit(held_then_arithmetic)(U8)


def test_a_held_local_times_a_python_float_beside_a_float32_is_refused() -> None:
    # np.float64 + float32 is a float64, a Python float + float32 a float32
    with pytest.raises(polyopt.UnsupportedError, match="`t` holding a NumPy uint8 or a Python int"):
        polyopt.jit(held_times_a_python_float_beside_float32)(
            U8, np.ones(4, np.float32), np.zeros(4, np.float32))


def test_a_held_local_stored_into_another_int_type_is_checked() -> None:
    """CPython stores the chosen NumPy uint8 200 into int8 and NumPy raises; so does the
    compiled function, converting the held value as a Python int."""
    out = np.zeros(4, np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(OverflowError):
            stored_wide(U8, out.copy())
        with pytest.raises(OverflowError):
            polyopt.jit(stored_wide)(U8, out.copy())
    fits = np.array([3, 7, 100], np.uint8)
    want, got = np.zeros(3, np.int8), np.zeros(3, np.int8)
    stored_wide(fits, want)
    polyopt.jit(stored_wide)(fits, got)
    np.testing.assert_array_equal(got, want)
