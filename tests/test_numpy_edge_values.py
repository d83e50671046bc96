"""Values at the edges of NumPy's rules, against NumPy and CPython running the same
function (hostile session 48a): the sign of a clipped zero, Python's truth-value and
number conversions given arrays, and a uint64 made a Python int."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import polyopt


def clip_args(x, lo, hi):
    return np.clip(x, lo, hi)


def clip_elements(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.clip(x[i], -0.0, 0.0)
    return y


X = np.array([-0.0, 0.0, 0.5, np.nan, -1.0, 2.0, 1.0, -np.inf, np.inf])


@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-0.0, 1.0), (-0.0, -0.0), (0.0, 0.0),
                                   (np.nan, 1.0), (0.0, np.nan), (2.0, 1.0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_keeps_an_element_equal_to_a_bound(lo, hi, dtype):
    """Finding 03: np.clip(-0.0, 0.0, 1.0) is -0.0 in NumPy (x is kept where it equals a
    bound); polyopt gave 0.0, so 1 / clip was +inf, not -inf."""
    x = X.astype(dtype)
    lo, hi = dtype(lo), dtype(hi)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = clip_args(x, lo, hi)
        got = polyopt.jit(clip_args)(x, lo, hi)
        assert got.dtype == want.dtype
        assert np.array_equal(1 / got, 1 / want, equal_nan=True), (want, got)


def test_clip_of_elements_keeps_the_sign_of_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(1 / polyopt.jit(clip_elements)(X), 1 / clip_elements(X),
                              equal_nan=True)


def not_of_array(x):
    return not x


def max_of_arrays(x, y):
    return max(x, y)


def float_of_slice(x):
    return float(x[0:1])


def int_of_slice(x):
    return int(x[1:2]) * 2


def sin_of_array(x):
    return math.sin(x)


@pytest.mark.parametrize("fn,args,match", [
    (not_of_array, 1, "`not` of an array: asks for the truth value of the whole array"),
    (max_of_arrays, 2, r"`max\(\)` of an array: compares whole arrays.*np.maximum"),
    (float_of_slice, 1, r"`float\(\)` of an array: converts a number or a 0-d array only"),
    (int_of_slice, 1, r"`int\(\)` of an array"),
    (sin_of_array, 1, r"`math.sin\(\)` of an array.*np.sin"),
])
def test_python_number_functions_of_arrays_are_refused(fn, args, match):
    """Findings 04 and 05: CPython raises for these (an array's truth value is
    ambiguous; float() converts 0-d arrays only); polyopt computed them elementwise."""
    x = np.array([0.5, -1.5, 2.0])
    with pytest.raises(Exception):  # noqa: B017 (ValueError or TypeError, by NumPy version)
        fn(*[x] * args)
    with pytest.raises(polyopt.UnsupportedError, match=match):
        polyopt.jit(fn)(*[x] * args)


def abs_of_array(x):
    return abs(x)


def test_abs_of_an_array_stays_elementwise():
    x = np.array([0.5, -1.5, 2.0])
    assert np.array_equal(polyopt.jit(abs_of_array)(x), abs(x))


def floor_into(u, r):
    for i in range(u.shape[0]):
        r[i] = math.floor(u[i])


def int_sum(u):
    s = 0
    for i in range(u.shape[0]):
        s += int(u[i])
    return s


def test_a_uint64_past_int64_made_a_python_int_raises():
    """Finding 01: math.floor of a uint64 2**63 gave -2**63 (an int64 wrapped), where
    CPython's Python int is exact; polyopt holds Python ints in int64, so it raises."""
    small = np.array([5, 2**40, 2**63 - 1], np.uint64)
    want, got = np.zeros(3), np.zeros(3)
    floor_into(small, want)
    polyopt.jit(floor_into)(small, got)
    assert np.array_equal(want, got)
    assert polyopt.jit(int_sum)(small[:2]) == int_sum(small[:2])
    big = np.array([5, 2**63, 2**64 - 1], np.uint64)
    with pytest.raises(OverflowError, match="uint64 of 2\\*\\*63 or more made a Python int"):
        polyopt.jit(floor_into)(big, np.zeros(3))


def add_row(A, B):
    A += B[0]


def add_row_1d(x, B):
    x += B[1]


def column_sums(A):
    r = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        r += A[i]
    return r


def scalar_sum_of_rows(A):
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i]
    return s


def test_a_row_added_into_a_whole_array_is_array_code():
    """Finding 06: `A += B[0]` and `r += A[i]` (r = np.zeros(m)) were refused at the call
    for 'B has 2 dimension(s), but ... uses it with 1'."""
    B = np.arange(6.0).reshape(2, 3)
    for fn, first in ((add_row, np.zeros((2, 3))), (add_row_1d, np.zeros(3))):
        want, got = first.copy(), first.copy()
        fn(want, B)
        polyopt.jit(fn)(got, B)
        assert np.array_equal(want, got)
    assert np.array_equal(polyopt.jit(column_sums)(B), column_sums(B))
    # a scalar accumulator given rows is still the call's wrong rank
    with pytest.raises(TypeError, match="'A' has 2 dimension"):
        polyopt.jit(scalar_sum_of_rows)(B)


def astype_int8(x):
    return x.astype(np.int8)


def astype_int16(x):
    return x.astype(np.int16)


def slice_store(a, x):
    a[:] = x


def element_store(a, x):
    for i in range(x.shape[0]):
        a[i] = x[i]


FLOATS = np.array([2.5, 300.2, -129.5, 70000.5, -2.5])


def test_numpys_array_casts_to_int8_and_int16_wrap_through_int32():
    """Finding 07: x.astype(np.int8) of 300.2 raised OverflowError where NumPy gives 44
    (its array cast goes through int32 and wraps, as for the unsigned types); NumPy's
    element store raises, and so does polyopt's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (astype_int8, astype_int16):
            want, got = fn(FLOATS), polyopt.jit(fn)(FLOATS)
            assert got.dtype == want.dtype and np.array_equal(got, want)
        for dtype in (np.int8, np.int16):
            want, got = np.zeros(5, dtype), np.zeros(5, dtype)
            slice_store(want, FLOATS)
            polyopt.jit(slice_store)(got, FLOATS)
            assert np.array_equal(got, want)
            with pytest.raises(OverflowError):
                element_store(np.zeros(5, dtype), FLOATS)
            with pytest.raises(OverflowError):
                polyopt.jit(element_store)(np.zeros(5, dtype), FLOATS)


def f16_sum0(A):
    return A.sum(axis=0)


def f16_sum1(A):
    return A.sum(axis=1)


def f16_transposed_sum1(A):
    return A.T.sum(axis=1)


def f16_mean0(A):
    return np.mean(A, axis=0)


def f16_product0(A):
    return (A * np.float16(0.001) + np.float16(1)).prod(axis=0)


@pytest.mark.parametrize("fn", [f16_sum0, f16_sum1, f16_transposed_sum1, f16_mean0,
                                f16_product0])
def test_float16_reductions_round_where_numpy_rounds(fn):
    """Finding 02: NumPy's A.sum(axis=0) of float16 adds each row into the float16
    result, rounding every addition (0.7% off a float32 accumulation over 2000 rows);
    along the contiguous axis, and for a mean, it accumulates in float32."""
    A = np.random.default_rng(11).random((2000, 3)).astype(np.float16)
    want, got = fn(A), polyopt.jit(fn, strict_fp=True)(A)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def leading_unit_axis(x, y):
    x[:] = y[None, :] * 2


def test_a_value_with_a_leading_unit_axis_is_refused_without_a_false_claim():
    """Finding 09: NumPy drops leading axes of length 1 (x[:] = y[None, :] * 2 works);
    the refusal said that NumPy raises a shape error."""
    with pytest.raises(polyopt.UnsupportedError, match="NumPy drops its leading axes of "
                       "length 1, which polyopt does not"):
        polyopt.jit(leading_unit_axis)(np.zeros(3), np.ones(3))


def trunc_of(x, r):
    for i in range(x.shape[0]):
        r[i] = math.trunc(x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.uint8])
def test_math_trunc_of_a_numpy_scalar_is_refused_as_cpython_raises(dtype):
    """Finding 12: math.trunc(x32[0]) gave 2 where CPython raises TypeError (NumPy
    scalars other than float64 define no __trunc__); float64's is a float."""
    x = np.array([2.5, -3.5]).astype(dtype)
    with pytest.raises(TypeError):
        trunc_of(x, np.zeros(2))
    with pytest.raises(polyopt.UnsupportedError, match="math.trunc` of a NumPy"):
        polyopt.jit(trunc_of)(x, np.zeros(2))
    want, got = np.zeros(2), np.zeros(2)
    trunc_of(np.array([2.5, -3.5]), want)
    polyopt.jit(trunc_of)(np.array([2.5, -3.5]), got)
    assert np.array_equal(want, got)


def max_of_a_sum(x):
    return max(np.sum(x), 3.0)


def test_a_reduction_under_a_scalar_call_is_lowered_once():
    """The check for array operands lowered the operands a second time, and the sum ran
    twice (two reduction loops in the report)."""
    x = np.ones(5)
    assert polyopt.jit(max_of_a_sum)(x) == max_of_a_sum(x)
    statements = polyopt.jit(max_of_a_sum).report(x).split("Loops")[0]
    assert statements.count(" in loops ") == 1, statements
