"""The narrow dtypes (bool, int8/16, uint8/16/32/64, float16) end to end.

The promotion tables are checked against the installed NumPy on every pair; the
kernels are differential tests against CPython/NumPy running the same function:
elementwise arithmetic on every pair of dtypes, wraparound, comparisons into bool
arrays, reductions, casts, allocation with a dtype, and the refusals (complex arrays,
a Python int out of a narrow type's range, NumPy's TypeError on bool minus bool).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import check_against_python

import polyopt
from polyopt.model.dtypes import (
    BOOL,
    WEAK_FLOAT,
    WEAK_INT,
    DType,
    ValueType,
    arithmetic_type,
    compare_type,
    promote,
    true_divide,
)
from polyopt.model.signature import ArrayType, parse_declared

DTYPES = [d.value for d in DType]
NARROW = ["bool", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "float16"]
PAIRS = list(itertools.product(DTYPES, DTYPES))
_OPS = {"+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide,
        "%": np.remainder, "**": np.power}


def _values(dt: str, n: int = 29, seed: int = 0) -> np.ndarray:
    """Values covering the dtype's range (its extremes included), nonzero for divisors."""
    rng = np.random.default_rng(seed)
    if dt == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if np.dtype(dt).kind == "f":
        return (rng.standard_normal(n) * 20).astype(dt)
    info = np.iinfo(dt)
    out = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    out[:2] = info.min, info.max
    return out


# --- the model's promotion against NumPy's ------------------------------------------------


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_promotion_of_arrays_is_numpys(a: str, b: str) -> None:
    got = promote(ValueType(DType(a)), ValueType(DType(b))).dtype.value
    assert got == np.promote_types(a, b).name
    x, y = np.ones(2, a), np.ones(2, b)
    for op, ufunc in _OPS.items():
        try:
            expected = ufunc(x, y).dtype.name
        except TypeError:  # bool - bool
            assert arithmetic_type(op, ValueType(DType(a)), ValueType(DType(b))) is None
            continue
        t = arithmetic_type(op, ValueType(DType(a)), ValueType(DType(b)))
        assert t is not None and t.dtype.value == expected, (a, op, b)
    assert true_divide(ValueType(DType(a)), ValueType(DType(b))).dtype.value == (x / y).dtype.name
    assert (x < y).dtype == np.bool_


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize(("weak", "value"), [(WEAK_INT, 1), (WEAK_FLOAT, 1.0), (BOOL, True)])
def test_promotion_with_python_scalars_is_nep50(a: str, weak: ValueType, value: object) -> None:
    expected = np.result_type(np.ones(1, a), value)
    got = promote(ValueType(DType(a)), weak)
    assert got.dtype.value == expected.name and not got.weak


def test_comparisons_of_fixed_width_ints_with_python_ints_are_exact() -> None:
    # NumPy compares np.uint8(3) < -1 by value (False), not in uint8
    assert compare_type(ValueType(DType.UINT8), WEAK_INT).dtype is DType.INT64
    assert compare_type(ValueType(DType.FLOAT16), WEAK_FLOAT).dtype is DType.FLOAT16


def test_numba_signature_names() -> None:
    d = parse_declared("void(b1[:], i1[:], i2[:], u1[:], u2[:], u4[:], u8[:], f2[:], bool_[:],"
                       " uint8[:, ::1], float16[:])")
    assert [a.dtype.value for a in d.args if isinstance(a, ArrayType)] == [
        "bool", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "float16", "bool",
        "uint8", "float16"]
    with pytest.raises(ValueError, match="unknown type 'c16'.*u1"):
        parse_declared("void(c16[:])")


# --- differential tests -------------------------------------------------------------------


def elementwise(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i] * b[i] - a[i]


def compare_into_bool(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] < b[i] or a[i] == b[i] + b[i]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_elementwise_every_pair(a: str, b: str) -> None:
    x, y = _values(a), _values(b, seed=1)
    try:
        with np.errstate(all="ignore"):
            expected = x + y * y - x
    except TypeError:  # NumPy's bool minus bool: refused at compile time
        with pytest.raises(polyopt.UnsupportedError, match="NumPy raises TypeError"):
            polyopt.jit(elementwise)(x, y, np.zeros(len(x), bool))
        return
    with np.errstate(all="ignore"):
        check_against_python(polyopt.jit(elementwise), x, y, np.zeros_like(expected))
    check_against_python(polyopt.jit(compare_into_bool), x, y, np.zeros(len(x), bool))


def narrow_ops(a, b, out):
    for i in range(a.shape[0]):
        out[0, i] = a[i] // b[i]
        out[1, i] = a[i] % b[i]
        out[2, i] = -a[i]
        out[3, i] = a[i] * 3 + 7
        out[4, i] = max(a[i], b[i])
        out[5, i] = abs(a[i])
        out[6, i] = a[i] ** 2


@pytest.mark.parametrize("dt", ["int8", "int16", "uint8", "uint16", "uint32", "uint64"])
def test_integer_semantics_wrap_and_floor(dt: str) -> None:
    x, y = _values(dt), _values(dt, seed=2)
    y[y == 0] = 1
    y[3] = np.iinfo(dt).max
    out = np.zeros((7, len(x)), dt)
    with np.errstate(all="ignore"):
        check_against_python(polyopt.jit(narrow_ops), x, y, out)


def wrap_around(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + a[i]


@pytest.mark.parametrize(("dt", "expected"), [("uint8", [254, 0, 2]), ("int8", [-2, 0, 2])])
def test_uint8_plus_uint8_stays_uint8_and_wraps(dt: str, expected: list[int]) -> None:
    x = np.array([255, 0, 1], np.uint8).astype(dt)
    out = np.zeros(3, dt)
    polyopt.jit(wrap_around)(x, out)
    assert out.tolist() == expected


def division_by_zero(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // b[i]


@pytest.mark.parametrize("dt", ["int8", "uint16", "uint64"])
def test_integer_division_by_zero_raises_without_trapping(dt: str) -> None:
    x, y = np.array([5, 7], dt), np.array([1, 0], dt)
    with pytest.raises(ZeroDivisionError):
        polyopt.jit(division_by_zero)(x, y, np.zeros(2, dt))


def int8_min_by_minus_one(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // b[i]
        out[i + 2] = a[i] % b[i]


def test_int8_min_floordiv_minus_one_wraps() -> None:
    x, y = np.array([-128, -127], np.int8), np.array([-1, -1], np.int8)
    out = np.zeros(4, np.int8)
    with np.errstate(all="ignore"):
        check_against_python(polyopt.jit(int8_min_by_minus_one), x, y, out)


def total(a):
    s = a[0]
    for i in range(1, a.shape[0]):
        s += a[i]
    return s


def count_true(b):
    n = 0
    for i in range(b.shape[0]):
        n += b[i]
    return n


@pytest.mark.parametrize("dt", NARROW)
def test_reductions_keep_numpys_type(dt: str) -> None:
    x = _values(dt, n=200)
    with np.errstate(all="ignore"):
        got = check_against_python(polyopt.jit(total, strict_fp=True), x)
    assert type(got) is type(total(x))
    assert check_against_python(polyopt.jit(count_true), x != 0) == np.count_nonzero(x)


def store_converts(f, wide, out_u8, out_b, out_i16):
    for i in range(f.shape[0]):
        out_u8[i] = abs(f[i]) * 10
        out_b[i] = f[i]
        out_i16[i] = wide[i]


def to_bool(f, out):
    for i in range(f.shape[0]):
        out[i] = f[i]


def test_stores_convert_as_numpy_assignment() -> None:
    f = np.array([0.0, -0.0, 2.5, 1.0, -3.9], np.float64)
    wide = np.array([32767, -32768, 3, -1, 5], np.int64)
    check_against_python(polyopt.jit(store_converts), f, wide, np.zeros(5, np.uint8),
                         np.zeros(5, bool), np.zeros(5, np.int16))
    # an int out of the array's range wraps (README "Integers"; NumPy's item assignment
    # raises OverflowError there, its casts wrap)
    out = np.zeros(5, np.int16)
    polyopt.jit(store_converts)(f, wide + 70000, np.zeros(5, np.uint8), np.zeros(5, bool), out)
    assert out.tolist() == (wide + 70000).astype(np.int16).tolist()
    b = np.zeros(2, bool)
    polyopt.jit(to_bool)(np.array([math.nan, 0.0]), b)
    assert b.tolist() == [True, False]  # bool(x) is x != 0, NaN included


def stores_nan_into_int(f, out):
    for i in range(f.shape[0]):
        out[i] = f[i]


def test_a_nan_stored_into_uint8_raises() -> None:
    """NumPy's cast of NaN is invalid (a warning, any value): Python's ValueError."""
    with pytest.raises(ValueError):
        polyopt.jit(stores_nan_into_int)(np.array([1.0, math.nan]), np.zeros(2, np.uint8))


@pytest.mark.parametrize(("value", "stored"), [(300.0, 44), (-1.0, 255)])
def test_a_float_element_past_uint8_wraps_as_numpy_stores_it(value: float, stored: int) -> None:
    """A NumPy float (an array element) stored into uint8 is NumPy's cast: truncated and
    wrapped, where a Python float raises (hostile session 41a, finding 02)."""
    out = np.zeros(2, np.uint8)
    polyopt.jit(stores_nan_into_int)(np.array([1.0, value]), out)
    want = np.zeros(2, np.uint8)
    stores_nan_into_int(np.array([1.0, value]), want)
    assert out.tolist() == want.tolist() == [1, stored]


def allocate(n):
    t = np.zeros(n, np.uint8)
    u = np.full(n, True)
    h = np.ones(n, dtype=np.float16)
    for i in range(n):
        t[i] = i * 37 % 256  # a Python int out of uint8's range raises in NumPy
        u[i] = t[i] > 100
        h[i] = h[i] / 3 + t[i]
    s = 0.0
    for i in range(n):
        s += t[i] + u[i] + h[i]
    return s


def test_allocation_with_narrow_dtypes() -> None:
    check_against_python(polyopt.jit(allocate), 17)


def casts_and_math(x, out):
    for i in range(x.shape[0]):
        out[i] = np.sqrt(x[i]) + np.uint8(x[i] * 0.0 + 250) + np.float16(0.1) * x[i]


@pytest.mark.parametrize("dt", ["float16", "int8", "uint16", "bool"])
def test_ufuncs_compute_in_the_smallest_float(dt: str) -> None:
    # np.sqrt of an int8 is a float16, of a uint16 a float32 (NumPy's loop selection)
    x = np.abs(_values(dt)).astype(dt)
    with np.errstate(all="ignore"):
        expected = np.sqrt(x) + np.uint8(250) + np.float16(0.1) * x
    check_against_python(polyopt.jit(casts_and_math), x, np.zeros_like(expected))


def mixed(a8, u8, u64, i64, h, out):
    for i in range(a8.shape[0]):
        out[0, i] = a8[i] + u8[i]  # int16
        out[1, i] = u64[i] + i64[i]  # float64
        out[2, i] = h[i] * a8[i]  # float16
        out[3, i] = h[i] + u8[i] * 2.5  # float64 meets float16: float16
        out[4, i] = (u8[i] > 3) * 1.5 + (a8[i] < 0)


def test_mixed_type_expressions() -> None:
    args = [_values(d) for d in ("int8", "uint8", "uint64", "int64", "float16")]
    check_against_python(polyopt.jit(mixed), *args, np.zeros((5, 29)))


# --- refusals -----------------------------------------------------------------------------


def test_complex_arrays_are_refused_before_c_runs() -> None:
    with pytest.raises(TypeError, match=r"dtype complex128 are not supported \(supported: bool"):
        polyopt.jit(wrap_around)(np.zeros(3, complex), np.zeros(3, complex))


def out_of_range_literal(a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 300


def test_python_int_out_of_bounds_for_uint8_is_refused() -> None:
    with pytest.raises(OverflowError):
        out_of_range_literal(np.zeros(2, np.uint8))
    with pytest.raises(polyopt.UnsupportedError, match=r"Python integer 300: is out of bounds "
                       r"for uint8 \(NumPy raises OverflowError\) \(test_dtypes.py, line \d+\)"):
        polyopt.jit(out_of_range_literal)(np.zeros(2, np.uint8))


def negate_bool(b, out):
    for i in range(b.shape[0]):
        out[i] = -b[i]


def test_numpy_bool_negation_is_refused_as_numpy_raises() -> None:
    with pytest.raises(TypeError):
        negate_bool(np.ones(1, bool), np.zeros(1, bool))
    with pytest.raises(polyopt.UnsupportedError, match="`-` on a NumPy bool"):
        polyopt.jit(negate_bool)(np.ones(1, bool), np.zeros(1, bool))


def uint64_vs_python_int(u, k, out):
    for i in range(u.shape[0]):
        out[i] = u[i] < k


def test_uint64_compared_with_a_python_int_is_refused() -> None:
    with pytest.raises(polyopt.UnsupportedError, match="uint64 with a Python int"):
        polyopt.jit(uint64_vs_python_int)(np.zeros(2, np.uint64), -1, np.zeros(2, bool))


def test_wrong_dtype_is_refused_by_a_declared_signature() -> None:
    k = polyopt.jit("void(u1[:], u1[:])")(wrap_around)
    with pytest.raises(TypeError):
        k(np.zeros(3, np.int8), np.zeros(3, np.uint8))
    x = np.array([200, 100, 0], np.uint8)
    out = np.zeros(3, np.uint8)
    k(x, out)
    assert out.tolist() == [144, 200, 0]


def add_python_int(a, k, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + k


@pytest.mark.parametrize(("dt", "bad"), [("uint8", 256), ("uint8", -1), ("int8", 128),
                                         ("uint16", 70000), ("uint32", -5), ("uint64", -1)])
def test_python_int_argument_out_of_the_narrow_range_raises(dt: str, bad: int) -> None:
    kernel = polyopt.jit(add_python_int)
    x = np.array([1, 2], dt)
    with pytest.raises(OverflowError, match=f"Python integer {bad} out of bounds for {dt}"):
        add_python_int(x, bad, np.zeros(2, dt))
    check_against_python(kernel, x, 3, np.zeros(2, dt))
    for _ in range(2):  # the first call's checks, then the fast path's
        with pytest.raises(OverflowError, match=f"Python integer {bad} out of bounds for {dt}"):
            kernel(x, bad, np.zeros(2, dt))


def full_out_of_range(n):
    t = np.full(n, 300, np.uint8)
    return t[0]


def test_fill_value_out_of_the_dtypes_range_is_refused() -> None:
    with pytest.raises(OverflowError):
        full_out_of_range(3)
    with pytest.raises(polyopt.UnsupportedError, match="Python integer 300: is out of bounds "
                       "for uint8"):
        polyopt.jit(full_out_of_range)(3)


def test_declared_return_types_of_narrow_scalars() -> None:
    assert polyopt.jit("u1(u1[:])")(total)(np.array([200, 100], np.uint8)) == np.uint8(44)
    got = polyopt.jit("f2(f2[:])")(total)(np.array([1.5, 2.25], np.float16))
    assert type(got) is np.float16 and got == np.float16(3.75)
    with pytest.raises(TypeError, match="it returns float16, not float32"):
        polyopt.jit("f4(f2[:])")(total)


def matmul_acc(A, B, C):
    n, m = A.shape
    p = B.shape[1]
    for i in range(n):
        for j in range(p):
            for k in range(m):
                C[i, j] += A[i, k] * B[k, j]


def test_user_schedule_on_narrow_ints_wraps_as_numpy() -> None:
    # uint8 * uint8 wraps in uint8, then adds into uint16: the order of the steps does
    # not change a modular sum
    rng = np.random.default_rng(0)
    A = rng.integers(0, 256, (20, 30), dtype=np.uint8)
    B = rng.integers(0, 256, (30, 25), dtype=np.uint8)
    expected, got = np.zeros((20, 25), np.uint16), np.zeros((20, 25), np.uint16)
    with np.errstate(all="ignore"):
        matmul_acc(A, B, expected)
    s = polyopt.schedule(matmul_acc).interchange("j", "k").tile(["i", "k"], [8, 8])
    s.parallelize("i").compile()(A, B, got)
    np.testing.assert_array_equal(got, expected)


def whole_sum(a):
    return np.sum(a)


def whole_mean(a):
    return np.mean(a)


def column_sums(a):
    return np.sum(a, axis=0)


def whole_prod(a):
    return np.prod(a)


@pytest.mark.parametrize("dt", [d for d in DTYPES if not d.startswith("float")])
@pytest.mark.parametrize("fn", [whole_sum, whole_mean, column_sums, whole_prod],
                         ids=lambda f: f.__name__)
def test_array_reductions_of_ints_have_numpys_type(dt: str, fn) -> None:
    """NumPy sums an unsigned array in uint64 and a signed one in int64, and averages
    ints in float64."""
    a = np.random.default_rng(1).integers(0, 120, (7, 5)).astype(dt)
    expected, got = np.asarray(fn(a)), np.asarray(polyopt.jit(fn)(a))
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected)


# NumPy divides a narrow int by a Python int in floats, converting neither to the other's
# type (np.uint8(7) / -4 is -1.75); polyopt refused the constant as out of bounds for
# uint8 and raised OverflowError for such an argument (hostile session 37b, finding 03)
def true_division_by_python_ints(o, b, k):
    for i in range(b.shape[0]):
        o[i] = b[i] / -4 + -4 / b[i] + b[i] / k + k / b[i] + b[i] / -200


@pytest.mark.parametrize(("dtype", "k"), [(np.uint8, -300), (np.uint16, 70000),
                                          (np.int8, -1000)])
def test_a_narrow_int_divided_by_a_python_int_out_of_its_range(dtype, k) -> None:
    b = np.array([7, 100, 3], dtype)
    want, got = np.zeros(3), np.zeros(3)
    true_division_by_python_ints(want, b, k)
    polyopt.jit(true_division_by_python_ints)(got, b, k)
    np.testing.assert_allclose(got, want, rtol=1e-15)


# np.clip takes a Python int bound past a narrow int's range on the bound's own side (it
# clips nothing there), and raises for one past the other side; polyopt refused both as
# out of bounds (hostile session 37b, finding 05)
def clip_wide_bounds_u8(o, b):
    for i in range(b.shape[0]):
        o[i] = np.clip(b[i], -1, 5) + np.clip(b[i], 0, 300)


def clip_wide_bounds_i8(o, b):
    for i in range(b.shape[0]):
        o[i] = np.clip(b[i], -1000, 1000)


def clip_wide_bounds_array(o, b):
    o[:] = np.clip(b, -1, 300)


def clip_lower_bound_past_the_top(o, b):
    for i in range(b.shape[0]):
        o[i] = np.clip(b[i], 300, 400)


@pytest.mark.parametrize(("fn", "dtype"), [(clip_wide_bounds_u8, np.uint8),
                                           (clip_wide_bounds_i8, np.int8),
                                           (clip_wide_bounds_array, np.uint8)])
def test_clip_bounds_past_a_narrow_ints_range(fn, dtype) -> None:
    b = np.array([7, 100, 0], dtype)
    want, got = np.zeros(3), np.zeros(3)
    fn(want, b)
    polyopt.jit(fn)(got, b)
    np.testing.assert_array_equal(got, want)


def test_a_clip_bound_past_the_other_side_is_refused_as_numpy_raises() -> None:
    b = np.array([7, 100, 0], np.uint8)
    with pytest.raises(OverflowError):
        clip_lower_bound_past_the_top(np.zeros(3), b)
    with pytest.raises(polyopt.UnsupportedError, match="out of bounds for uint8"):
        polyopt.jit(clip_lower_bound_past_the_top)(np.zeros(3), b)
