"""NumPy dtypes beyond float64 as a careless user mixes them (second hostile-user
round): results equal NumPy's exactly, and what NumPy refuses is refused naming the
user's construct."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyopt
from polyopt.model.errors import UnsupportedError


def bool_range(a):
    return np.max(a) - np.min(a)


def test_a_refused_returned_value_names_the_users_operator() -> None:
    """`return np.max(a) - np.min(a)` on a bool array (NumPy raises TypeError for
    `-` on bools) was refused first as '`result1`: unknown name', the name the array
    lowering gives a returned value, with the real reason second."""
    with pytest.raises(UnsupportedError) as err:
        polyopt.jit(bool_range)(np.array([True, False]))
    message = str(err.value)
    assert "result" not in message and "unknown name" not in message
    assert "`-` on NumPy bools" in message and "more problem" not in message


def compare_loop(a, out):
    for i in range(a.shape[0]):
        out[i] = (a[i] == -1) + 2 * (a[i] < 300) + 4 * (70000 > a[i]) + 8 * (a[i] >= -129)


def compare_array(a):
    return (a == -1) * 1 + (a < 300) * 2 + (70000 > a) * 4 + (a >= -129) * 8


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
def test_a_narrow_int_compares_with_any_python_int_by_value(dt: str) -> None:
    """NumPy 2 compares a narrow int with a Python int by value, in range or not
    (`u8 == -1` is False, `u8 < 300` True), as the README says; polyopt refused such a
    comparison at compile time as 'Python integer -1: is out of bounds for uint8', the
    check that belongs to arithmetic (`u8 + 300` does raise OverflowError)."""
    info = np.iinfo(dt)
    a = np.array([info.min, info.max, 0, 1, 5, -1 if info.min < 0 else 7], dtype=dt)
    want, got = np.zeros(6, np.int64), np.zeros(6, np.int64)
    compare_loop(a, want)
    polyopt.jit(compare_loop)(a, got)
    assert got.tolist() == want.tolist()
    expected = compare_array(a)
    result = polyopt.jit(compare_array)(a)
    assert result.dtype == expected.dtype and result.tolist() == expected.tolist()


def add_300(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + 300


def test_arithmetic_with_an_out_of_range_constant_is_still_refused() -> None:
    with pytest.raises(UnsupportedError, match="Python integer 300: is out of bounds for uint8"):
        polyopt.jit(add_300)(np.zeros(3, np.uint8), np.zeros(3, np.uint8))


def maximum_minimum(a, b):
    return np.maximum(a, b) + np.minimum(b, a)


def maximum_loop(a, b, out):
    for i in range(a.shape[0]):
        out[i] = np.minimum(a[i], b[i]) - np.maximum(a[i], b[i])


def test_float16_maximum_and_minimum_build() -> None:
    """np.maximum/np.minimum of float16 values called NaN-aware helpers the prelude had
    only for float32 and float64: the kernel built but failed to load ('undefined
    symbol: polyopt_maximum_f16'), a CompileError for a documented dtype."""
    a = np.array([5, np.nan, 0, -2.5, 1e4], np.float16)
    b = np.array([1, 2, np.nan, -3, 3e4], np.float16)
    want = maximum_minimum(a, b)
    got = polyopt.jit(maximum_minimum)(a, b)
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    want_loop, got_loop = np.zeros(5, np.float16), np.zeros(5, np.float16)
    maximum_loop(a, b, want_loop)
    polyopt.jit(maximum_loop)(a, b, got_loop)
    assert np.array_equal(got_loop, want_loop, equal_nan=True)


def maximum_of_ints(a):
    return np.maximum(a, 7) + np.clip(a, 1, 100)


def maximum_of_floats(x):
    return np.minimum(x, 0.1)


def maximum_scalar(a):
    return np.maximum(a[0], 7)


@pytest.mark.parametrize(("fn", "values", "dt"), [
    (maximum_of_ints, [5, 200, 0], "uint8"),
    (maximum_of_ints, [-5, 2000, 0], "int16"),
    (maximum_of_floats, [0.05, 0.1000000015, 3.0], "float32"),
    (maximum_scalar, [3, 9], "uint16"),
])
def test_maximum_takes_numpys_type(fn, values, dt: str) -> None:
    """np.maximum/np.minimum/np.clip are ufuncs, typed by NumPy's promotion: a uint8
    array with 7 stays uint8 and a float32 with 0.1 float32.  They took the type
    CPython's max() gives a choice (a Python int or float), so np.maximum(u8, 7) and
    np.clip(u8, 1, 100) returned int64 arrays and np.minimum(x32, 0.1) a float64 one."""
    a = np.array(values, dtype=dt)
    want = fn(a)
    got = polyopt.jit(fn)(a.copy())
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.array_equal(got, want)


def maximum_minus_one(a):
    return np.maximum(a, -1)


def test_maximum_with_a_python_int_the_array_cannot_hold_is_refused() -> None:
    with pytest.raises(OverflowError):
        maximum_minus_one(np.zeros(2, np.uint8))
    with pytest.raises(UnsupportedError, match="Python integer -1: is out of bounds for uint8"):
        polyopt.jit(maximum_minus_one)(np.zeros(2, np.uint8))


def astype_float(x, y):
    return x.astype(float) * y


def astype_int(a, b):
    return a.astype(int) * b


def astype_spellings(a, y):
    return a.astype("float32") + a.astype(y.dtype) * y + a.astype(bool)


@pytest.mark.parametrize(("fn", "args"), [
    (astype_float, (np.array([1.1, 2.2, 3.3], np.float32), np.array([0.1, 0.7, 1e-3], np.float32))),
    (astype_int, (np.array([100, 120, -128], np.int8), np.array([100, 3, 2], np.int8))),
    (astype_spellings, (np.array([100, 0, -128], np.int8), np.array([0.1, 0.7, 1e-3], np.float32))),
])
def test_astype_converts_to_numpys_type(fn, args) -> None:
    """`A.astype(t)` called `t` on each element, so astype(float) and astype(int) gave
    weak Python scalars: x32.astype(float) * y32 computed in float32 and
    i8.astype(int) * i8 wrapped in int8 (16 for NumPy's 10000), wrong results; and
    astype("float32"), astype(y.dtype) and astype(bool) were refused as unknown calls."""
    want = fn(*args)
    got = polyopt.jit(fn)(*args)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def astype_complex(a):
    return a.astype(np.complex128)


def test_astype_to_an_unsupported_dtype_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="dtype `np.complex128`"):
        polyopt.jit(astype_complex)(np.zeros(3))


def minus_local(a, out):
    for i in range(a.shape[0]):
        t = -3
        out[i] = a[i] - t


def minus_choice(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] - min(a[i], -3)


def plus_loop_variable(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + (i - 1)


def add_in_place(a, out):
    for i in range(a.shape[0]):
        out[i] += i * 200


def store_local(a, out):
    for i in range(a.shape[0]):
        t = i * 100
        out[i] = t


def store_too_large(a, out):
    for i in range(a.shape[0]):
        t = i * 200
        out[i] = t


def np_cast(a, out):
    for i in range(a.shape[0]):
        out[i] = np.uint8(i * 200)


def compare_by_value(a, out):
    for i in range(a.shape[0]):
        k = i * 300
        out[i] = 1 if a[i] < k else 0


def choice_of_constants(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + (1 if i > 0 else 2)


def max_with_constant(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + max(a[i], 3)


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.uint64])
@pytest.mark.parametrize("fn", [minus_local, minus_choice, plus_loop_variable, add_in_place,
                                store_local, store_too_large, np_cast, compare_by_value,
                                choice_of_constants, max_with_constant])
def test_a_python_int_meeting_a_narrow_int_raises_where_numpy_does(fn, dtype) -> None:
    """NumPy converts a Python int to the narrow int it meets, however it got there (a
    local, a loop variable, a min() choice), and raises OverflowError when it does not
    fit; polyopt checks such a value at run time (README "Integers"): the same error
    where CPython raises, the same result where it does not."""
    big = {np.uint8: 200, np.int32: 2**31 - 5, np.uint64: 2**63}[dtype]
    a, out = np.array([5, big, 7], dtype), np.zeros(3, dtype)
    if fn in (compare_by_value, minus_choice) and dtype is np.uint64:  # documented refusals
        # (min compares as `<` does: hostile session 41a, finding 01)
        with pytest.raises(UnsupportedError, match="comparison of a uint64"):
            polyopt.jit(fn)(a, out)
        return
    want = out.copy()
    try:
        fn(a, want)
    except OverflowError:
        with pytest.raises(OverflowError, match="Python integer"):
            polyopt.jit(fn)(a, out)
        return
    polyopt.jit(fn)(a, out)
    assert out.tolist() == want.tolist()


def plus_argument(a, out, k):
    for i in range(a.shape[0]):
        out[i] = a[i] + k


def plus_remainder(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + i % 7


def test_the_run_time_check_is_in_the_c_only_where_a_python_int_may_not_fit() -> None:
    """A constant, a choice of constants, or a remainder by a small constant that fits
    needs no check in the loop, nor an argument, which the call checks before the C runs
    (a check in the loop keeps gcc from vectorizing ``u8[i] + k``)."""
    a = np.zeros(3, np.uint8)
    assert "polyopt_fit(" not in polyopt.jit(choice_of_constants).c_source(a, a)
    assert "polyopt_fit(" not in polyopt.jit(plus_remainder).c_source(a, a)
    assert "polyopt_fit(" not in polyopt.jit(plus_argument).c_source(a, a, 3)
    assert "polyopt_fit(" in polyopt.jit(plus_loop_variable).c_source(a, a)
    x = np.zeros(3)
    assert "polyopt_fit" not in polyopt.jit(plus_loop_variable).c_source(x, x)


def test_an_argument_is_checked_by_the_call_where_the_loop_does_not() -> None:
    a, out = np.array([5, 200, 7], np.uint8), np.zeros(3, np.uint8)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        polyopt.jit(plus_argument)(a, out, 300)
    polyopt.jit(plus_argument)(a, out, 55)
    assert out.tolist() == [60, 255, 62]


def add_scalar(u8, k):
    for i in range(u8.shape[0]):
        u8[i] = u8[i] + k


@pytest.mark.parametrize("k", [np.uint64(2**63), np.uint64(2**64 - 1)])
def test_an_int_argument_past_int64_says_why(k) -> None:
    """Hostile session 36b, finding 05: a uint64 of 2**63 was refused as "does not fit in
    64 bits", which it does (as a uint64)."""
    kernel = polyopt.jit(add_scalar)
    for _ in range(2):  # the first call, and the warm path
        with pytest.raises(OverflowError, match=r"outside the int64 range: this kernel takes "
                                                r"an int argument as a size"):
            kernel(np.arange(4, dtype=np.uint8), k)


def refused_then_read(B):
    s = 1
    t = -s + B[0]
    return t


def test_a_refused_assignment_is_the_one_problem_reported() -> None:
    """Hostile session 41a, finding 05: the refusal of ``-s + B[0]`` (a Python int -1
    meeting a uint8) came with a second, false problem: '`t`: is read before it is
    assigned', for the ``return t`` after the refused assignment."""
    with pytest.raises(UnsupportedError) as caught:
        polyopt.jit(refused_then_read)(np.array([5], np.uint8))
    assert "out of bounds for uint8" in str(caught.value)
    assert "read before it is assigned" not in str(caught.value)


def store_floats(B, X):
    for i in range(B.shape[0]):
        B[i] = X[i]


def cast_floats(B, X):
    for i in range(B.shape[0]):
        B[i] = np.uint8(X[i])


@pytest.mark.parametrize("fn", [store_floats, cast_floats])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_a_numpy_float_into_an_unsigned_int_wraps_as_numpy_does(fn, dtype) -> None:
    """Hostile session 41a, finding 02: ``u8[i] = x64[i]`` with -1.0 raised OverflowError
    ('a float too large'), where NumPy's cast truncates and wraps (255); only a Python
    float (``u8[i] = -1.0``) raises.  Values NumPy's cast calls invalid (a warning, and
    any value) are left out."""
    values = [-1.0, -1.5, -0.5, 300.0, 70000.7, -3.0, 255.9, 1e10, -1e10, 9.3e18]
    kept = []
    for v in values:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                fn(np.zeros(1, dtype), np.array([v]))
            except RuntimeWarning:
                continue
        kept.append(v)
    X = np.array(kept)
    want, got = np.zeros(len(X), dtype), np.zeros(len(X), dtype)
    fn(want, X)
    polyopt.jit(fn)(got, X)
    assert got.tolist() == want.tolist()
    assert want[0] == (np.iinfo(dtype).max if fn is store_floats else 255)


def store_a_python_float(B, X):
    for i in range(B.shape[0]):
        B[i] = -1.0 if X[i] > 0 else 2.0


def test_a_python_float_into_an_unsigned_int_still_raises() -> None:
    with pytest.raises(OverflowError):
        store_a_python_float(np.zeros(1, np.uint8), np.ones(1))
    with pytest.raises(OverflowError):
        polyopt.jit(store_a_python_float)(np.zeros(1, np.uint8), np.ones(1))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_a_numpy_float_past_numpy_int32_cast_into_uint8_raises(dtype) -> None:
    """NumPy casts a float to uint8 or uint16 through int32: past it the cast is invalid
    (a warning, any value), and polyopt raises as for a Python float (session 41c,
    finding 06: it stored 2**31 + 5 as 5)."""
    with pytest.raises(OverflowError):
        polyopt.jit(store_floats)(np.zeros(1, dtype), np.array([2.0**31 + 5]))
