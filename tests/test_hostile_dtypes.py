"""NumPy dtypes beyond float64 as a careless user mixes them (second hostile-user
round): results equal NumPy's exactly, and what NumPy refuses is refused naming the
user's construct."""

from __future__ import annotations

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
