"""Finding 029 (polyopt, fixed): a narrow-int local holding a Python int raises at a read
that meets no narrow type.

Found by fuzz run Z (seed 77, program 43, on 992d9a4) under 11 option sets, and the
same on 0552e49; shrunk by hand to::

    s = A[0]                    # A uint16: s's static type is uint16
    for i in range(2):
        s = min(s, 1 - q)       # q = 3: the first iteration stores the Python int -2

CPython returns ``-2``: the first ``min`` compares ``np.uint16(65527)`` with ``-2``
(NumPy 2 compares an out-of-range Python int without converting it) and returns the
Python int; the second is ``min(-2, -2)``, no NumPy type at all.  The README says such
a local "holds them as they are" and raises only where the int meets the narrow type
(``s + u8[i]``).  polyopt raises ``OverflowError`` at the second iteration's read of
``s``, though ``min`` with a Python int converts nothing.  One assignment (no loop)
gives ``-2`` as it should.

Fixed: a held-wide local's read converts to the narrow type (checked) only where the
value meets that same type; a comparison, ``float(s)``/``int(s)``, a store into a float
array and a ``min``/``max``/choice stored straight back into such a local take the held
value as it is (``frontends/python_held.py``).

A hostile user then found the rest of this class: with ``s = a[0]`` (int16) then
``s = 1000``, CPython computes ``s * 100`` in Python ints (100000) and polyopt in int16
(-31072); ``s += 100``, ``s * s``, ``np.uint8(s)``, ``min(s, a[1])`` returned, ``t = s``
all differed in value or type.  Which type such a local holds depends on the path the
program took, so no static type is right: every use of a read other than those above is
now refused, naming the local and the fix (``int(...)`` or ``np.int16(...)``).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A, q):
    s = A[0]
    for _ in range(2):
        s = min(s, 1 - q)
    return s


def once(A, q):
    s = A[0]
    s = min(s, 1 - q)
    return s


def test_one_choice_of_a_narrow_int_and_a_python_int_is_the_python_int() -> None:
    a = np.array([65527], dtype=np.uint16)
    assert once(a, 3) == polyopt.jit(once)(a, 3) == -2


def test_the_held_python_int_is_read_as_it_is() -> None:
    a = np.array([65527], dtype=np.uint16)
    assert kernel(a, 3) == -2
    assert polyopt.jit(kernel)(a, 3) == -2


def wider_uses(A, B, q):
    s = A[0]
    for i in range(3):
        # a comparison is exact; float() and a store into a float array convert nothing
        B[i] = float(s) * 0.5 if s < q else 1.0
        B[i + 3] = s + B[i]     # float64 either way
        s = min(s, 1 - q)       # holds -2 from the first iteration on
    return s


@pytest.mark.parametrize("q", [3, -70000, 70000])
def test_comparisons_floats_and_choices_take_the_held_int(q: int) -> None:
    a = np.array([65527], dtype=np.uint16)
    want_b, got_b = np.zeros(6), np.zeros(6)
    want = wider_uses(a, want_b, q)
    got = polyopt.jit(wider_uses)(a, got_b, q)
    assert got == want
    np.testing.assert_array_equal(got_b, want_b)


def same_type_use(A, C, q):
    s = C[0]
    s = min(s, 1 - q)
    C[1] = s + C[1]             # uint8 meets uint8: NumPy converts a Python int, checked
    C[2] = s
    return s


def test_a_held_python_int_meeting_its_own_type_raises_as_numpy_does() -> None:
    a = np.array([0], dtype=np.uint16)
    for q in (3, -2):
        c = np.array([250, 1, 0], dtype=np.uint8)
        try:
            want = same_type_use(a, c.copy(), q)
        except OverflowError:
            with pytest.raises(OverflowError):
                polyopt.jit(same_type_use)(a, c.copy(), q)
            continue
        got_c = c.copy()
        assert polyopt.jit(same_type_use)(a, got_c, q) == want


def times(a):
    s = a[0]
    s = 1000
    return float(s * 100)       # 100000.0 in CPython; int16 would wrap


def accumulate(a):
    s = a[0]
    s = 200
    s += 100
    return s


def meets_another_type(A, C):
    s = A[0]
    s = -2
    C[0] = s + C[1]             # int16 or Python int meets uint8: two different results


def squares(a):
    s = a[0]
    s = 128
    return s * s                # 16384 in CPython; uint8 would give 0


def float32_store(a, f):
    s = a[0]
    s = 2**25 + 1
    f[0] = s                    # NumPy rounds a Python int to float32 through a double


def copies(a):
    s = a[0]
    s = 1000
    t = s
    return t


def returned_choice(a):
    s = a[0]
    s = -1
    return min(s, a[1])


@pytest.mark.parametrize("fn, dtype", [(times, np.int16), (accumulate, np.uint8),
                                       (meets_another_type, np.uint16), (copies, np.int16), (squares, np.uint8),
                                       (float32_store, np.int16),
                                       (returned_choice, np.uint8)])
def test_a_use_whose_type_depends_on_the_path_is_refused(fn, dtype) -> None:
    args = [np.array([5, 6], dtype=dtype)]
    if fn is meets_another_type:
        args.append(np.zeros(2, dtype=np.uint8))
    if fn is float32_store:
        args.append(np.zeros(2, dtype=np.float32))
    with pytest.raises(polyopt.UnsupportedError, match="`s` holding a NumPy .* or a Python int") as info:
        polyopt.jit(fn)(*args)
    assert "give it one type" in str(info.value)


def clamped(A, B):
    s = A[0]
    for i in range(A.shape[0]):
        s = min(s, 1)           # the only Python int it can hold is 1: s stays int32
        B[i] = (s - i) * 3
    return s


def test_a_choice_with_a_small_constant_keeps_the_narrow_type() -> None:
    """(The fuzzer's program 116 of seed 2611, shrunk by hand: refused before the rule
    for small constants covered choices.)"""
    a = np.array([5, -7, 3], dtype=np.int32)
    want_b, got_b = np.zeros(3, np.int32), np.zeros(3, np.int32)
    want = clamped(a, want_b)
    got = polyopt.jit(clamped)(a, got_b)
    assert got == want
    np.testing.assert_array_equal(got_b, want_b)
