"""``np.where`` computes in NumPy's promoted type, in array code and on the elements of a
loop alike: it was lowered to the Python choice ``a if c else b``, whose chosen 0.1 stays
a float64, so ``np.where(x32 > 0.5, x32, 0.1)`` was a float64 array (NumPy: float32) and
``np.where(...) + 1e-9`` added in float64 where NumPy adds in float32."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def where_in_loop(x32, y):
    for i in range(len(x32)):
        y[i] = np.where(x32[i] > 0.5, x32[i], 0.1) + 1e-9


def where_on_arrays(x32, y):
    y[:] = np.where(x32 > 0.5, x32, 0.1) + 1e-9


def where_new_array(x32):
    t = np.where(x32 > 0.5, x32, 0.1)
    return t


def where_ints(k32, x, out):
    out[:] = np.where(k32 > 2, k32, x)


X32 = np.array([0.2, 0.7, 0.1, 0.9], dtype=np.float32)


@pytest.mark.parametrize("fn", [where_in_loop, where_on_arrays])
def test_where_adds_in_numpys_type(fn) -> None:
    want, got = np.zeros(4), np.zeros(4)
    fn(X32, want)
    polyopt.jit(fn)(X32, got)
    assert got.tolist() == want.tolist()  # bit for bit: the float32 sum, widened


def test_where_array_has_numpys_dtype(check) -> None:
    got = check(polyopt.jit(where_new_array), X32)
    assert got.dtype == np.float32


def test_where_mixing_int32_and_float64(check) -> None:
    check(polyopt.jit(where_ints), np.arange(4, dtype=np.int32), np.full(4, 0.5), np.zeros(4))


def where_wraps_python_ints(u8, s8, out, m):
    for i in range(len(u8)):
        out[i] = np.where(u8[i] > 2, u8[i], -1) + np.where(i < 2, 300, s8[i]) * 1
        out[i] += np.where(i >= 2, m - 3 * i, s8[i])


def where_wraps_python_ints_on_arrays(u8, out):
    out[:] = np.where(u8 > 2, u8, -1)


@pytest.mark.parametrize("m", [1000, -7, 2**40 + 5])
def test_where_converts_a_python_int_as_numpy_does(check, m) -> None:
    """NumPy converts a Python int operand of ``np.where`` to the result's narrow int type
    as a C long, wrapping (``np.where(c, u8, -1)`` is 255), where an operator raises
    OverflowError (hostile-user finding 37b-04: polyopt raised here)."""
    u8 = np.arange(5, dtype=np.uint8)
    check(polyopt.jit(where_wraps_python_ints), u8, np.arange(5, dtype=np.int8) - 2,
          np.zeros(5, np.int64), m)
    out = np.zeros(5, np.uint8)
    check(polyopt.jit(where_wraps_python_ints_on_arrays), u8, out)


def where_of_python_bools(X, out):
    for i in range(X.shape[0]):
        out[i, 0] = (np.where(X[i] > 3, True, False) + X[i]) * 1.0
        out[i, 1] = np.maximum(X[i] > 3, False) * 1.0 + np.minimum(True, X[i] > 1) * 2.0
        out[i, 2] = np.where(X[i] > 3, True, 2) * 1.0 + np.where(X[i] > 3, False, 0.5)
        out[i, 3] = (np.maximum(True, False) + X[i]) * 1.0 + (np.minimum(False, True) + X[i])


def where_of_python_bools_on_arrays(X):
    return np.where(X > 3, True, False) + X


def where_of_python_bools_returned(X):
    return np.where(X > 3, True, False)


@pytest.mark.parametrize("fn", [where_of_python_bools_on_arrays, where_of_python_bools_returned])
def test_where_of_two_python_bools_is_a_numpy_bool(check, fn) -> None:
    """``np.where(c, True, False)`` is a NumPy bool, so ``+ u8`` wraps in uint8 (helper
    session 39, finding 01: polyopt typed it int64, 255 + 1 gave 256, and a returned
    array of ints instead of bools); so are ``np.maximum``/``np.minimum`` of two."""
    X = np.array([0, 5, 255, 200], np.uint8)
    got = check(polyopt.jit(fn), X)
    assert got.dtype == fn(X).dtype


def test_where_of_two_python_bools_in_a_loop(check) -> None:
    check(polyopt.jit(where_of_python_bools), np.array([0, 5, 255, 200], np.uint8), np.zeros((4, 4)))


def numpy_bool_constants(X, out):
    for i in range(X.shape[0]):
        out[i, 0] = (np.where(X[i] > 3, np.True_, np.False_) + X[i]) * 1.0
        out[i, 1] = (np.True_ + X[i]) * 1.0  # a NumPy bool beside uint8: uint8, wrapping
        out[i, 2] = (np.False_ + 1) * 1.0 + (np.True_ * 2.5)


def test_numpy_bool_constants_are_numpy_bools(check) -> None:
    """``np.True_`` and ``np.False_`` were refused as "not a number polyopt knows" (helper
    session 39); they are NumPy bools, strong beside a uint8."""
    check(polyopt.jit(numpy_bool_constants), np.array([0, 5, 255, 200], np.uint8),
          np.zeros((4, 3)))


def numpy_bool_tests(X, out):
    for i in range(X.shape[0]):
        if np.True_:
            out[i] += X[i]
        if np.False_ or i > 1:
            out[i] *= 2
        if not np.True_:
            out[i] = -1


def test_numpy_bool_constants_as_tests(check) -> None:
    """``if np.True_:`` was refused as a data-dependent ``if``: it is a constant test,
    like ``if True:``."""
    check(polyopt.jit(numpy_bool_tests), np.arange(4.0), np.ones(4))
