"""``np.maximum``, ``np.minimum`` and ``np.clip`` are ufuncs: their type is NumPy's
promotion, in which a Python scalar is weak (NEP 50).  They took the type of a
``max()`` choice, so ``np.clip(k32, 1, 5)`` was an int64 array and ``np.maximum(x32,
2.5)`` a float64 one.  ``np.max`` of a float16 array did not load (its NaN-aware helper
was missing), and a comparison with a Python int outside the array's type (``u32 >
-1``) was refused, where NumPy compares by value."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def clip_ints(a):
    return np.clip(a, 1, 5)


def clip_floats(a):
    return np.clip(a, 0.5, 5.5)


def maximum_int(a):
    return np.maximum(a, 2)


def minimum_float(a):
    return np.minimum(a, 2.5)


def maximum_in_loop(a, out):
    for i in range(a.shape[0]):
        out[i] = np.maximum(a[i], 2.5) * 3


def scalar_maximum(a):
    return np.maximum(a[0], 0.1)


def two_python_scalars(n):
    return np.maximum(n, 2) + np.minimum(1.5, 0.5)


def array_max(a):
    return np.max(a) + np.min(a)


def above_minus_one(u):
    return np.where(u > -1, 1, 0)


def count_above_minus_one(u):
    s = 0
    for i in range(u.shape[0]):
        s += 1 if u[i] > -1 else 0
    return s


def maximum_out_of_range(u):
    return np.maximum(u, 300)


ARRAYS = {
    "int32": np.arange(-3, 5, dtype=np.int32), "uint8": np.arange(1, 9, dtype=np.uint8),
    "int8": np.arange(-3, 5, dtype=np.int8), "int16": np.arange(-3, 5, dtype=np.int16),
    "float32": np.linspace(-1, 5, 8, dtype=np.float32),
    "float16": np.linspace(-1, 5, 8).astype(np.float16),
}


def _same(want, got) -> None:
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("name", sorted(ARRAYS))
@pytest.mark.parametrize("fn", [clip_ints, clip_floats, maximum_int, minimum_float,
                                scalar_maximum, array_max])
def test_ufunc_types_follow_numpy(fn, name: str) -> None:
    a = ARRAYS[name]
    _same(fn(a.copy()), polyopt.jit(fn)(a.copy()))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16])
def test_maximum_in_a_loop_computes_in_the_array_type(dtype) -> None:
    a = np.linspace(-1, 5, 9).astype(dtype)
    want, got = np.zeros(9, dtype), np.zeros(9, dtype)
    maximum_in_loop(a, want)
    polyopt.jit(maximum_in_loop)(a, got)
    assert np.array_equal(want, got)


def test_maximum_of_python_scalars_is_a_numpy_scalar() -> None:
    _same(two_python_scalars(7), polyopt.jit(two_python_scalars)(7))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float16_max_propagates_nan(dtype) -> None:
    a = np.array([1.0, np.nan, 3.0], dtype)
    got = polyopt.jit(array_max)(a)
    assert np.isnan(got) and got.dtype == dtype


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.int8])
def test_comparison_with_an_out_of_range_python_int_compares_by_value(dtype) -> None:
    u = np.arange(3, dtype=dtype)
    _same(above_minus_one(u), polyopt.jit(above_minus_one)(u))
    assert polyopt.jit(count_above_minus_one)(u) == 3


def test_maximum_with_an_int_the_array_type_cannot_hold_is_refused() -> None:
    with pytest.raises(OverflowError):
        maximum_out_of_range(np.arange(3, dtype=np.uint8))
    with pytest.raises(polyopt.UnsupportedError, match="300.*out of bounds for uint8"):
        polyopt.jit(maximum_out_of_range)(np.arange(3, dtype=np.uint8))


def maximum_argument(u, k):
    return np.maximum(u, k)


def builtin_max_argument(u, k):
    s = 0
    for i in range(u.shape[0]):
        s += int(max(u[i], k))
    return s


def builtin_max_argument_path_typed(u, k):
    s = 0
    for i in range(u.shape[0]):
        s += max(u[i], k)
    return s


def test_maximum_with_an_int_argument_the_array_type_cannot_hold_raises() -> None:
    u = np.arange(3, dtype=np.uint8)
    kernel = polyopt.jit(maximum_argument)
    _same(maximum_argument(u, 2), kernel(u, 2))
    for _ in range(2):  # the first call's checks, then the fast path's
        with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
            kernel(u, 300)
    # the builtin max compares by value and returns a Python int: no conversion
    assert polyopt.jit(builtin_max_argument)(u, 300) == builtin_max_argument(u, 300)
    # without int(), CPython's `s` turns uint8 wherever u[i] is chosen, and wraps there:
    # a compiled local has one type, so it is refused (hostile session 41c, finding 05)
    with pytest.raises(polyopt.UnsupportedError, match="`s` holding a NumPy uint8 or a Python int"):
        polyopt.jit(builtin_max_argument_path_typed)(u, 300)
