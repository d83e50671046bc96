"""``np.power`` of integers is NumPy's integer power, in the operands' dtype.

polyopt computed it as a float ``pow``: ``np.power(x32[i], 2)`` of 300,000 gave
9e10 where NumPy wraps in int32, a returned ``np.power(x, 3)`` was a float64, and a
power too large for int64 raised OverflowError where NumPy wraps.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt import UnsupportedError


def wraps_in_int32(X, out):
    for i in range(X.shape[0]):
        out[i] = np.power(X[i], 2) // 3


def returned_power(X):
    return np.power(X[1], 3)


def past_int64(X, out):
    for i in range(X.shape[0]):
        out[i] = np.power(X[i], 40)


def of_python_scalars(out):
    for i in range(out.shape[0]):
        out[i] = np.power(True, True) + np.power(i, 2) + np.power(i > 1, 2) * 0.5


def test_power_wraps_in_the_operand_dtype(check) -> None:
    X = np.array([1, 2, 300000, 7], np.int32)
    check(polyopt.jit(wraps_in_int32), X, np.zeros(4))
    check(polyopt.jit(past_int64), X, np.zeros(4, np.int64))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64])
def test_returned_power_is_a_numpy_int_of_the_operand_dtype(dtype) -> None:
    X = np.array([1, 5, 3], dtype)
    got, want = polyopt.jit(returned_power)(X), returned_power(X)
    assert type(got) is type(want) and got == want


def test_power_of_python_scalars_is_numpy_typed(check) -> None:
    """Two bools power in int8 (no bool loop), Python ints in int64."""
    check(polyopt.jit(of_python_scalars), np.zeros(4))


def negative_exponent(X, out):
    for i in range(X.shape[0]):
        out[i] = np.power(X[i], -1)


def runtime_exponent(X, out):
    for i in range(X.shape[0]):
        out[i] = np.power(X[i], i)


@pytest.mark.parametrize("fn", [negative_exponent, runtime_exponent])
def test_an_exponent_numpy_may_refuse_is_refused(fn) -> None:
    """NumPy raises ValueError for a negative int exponent, at run time."""
    with pytest.raises(UnsupportedError, match=r"`np.power` of integers: the exponent must be"):
        polyopt.jit(fn)(np.arange(3), np.zeros(3, np.int64))


def bool_exponent(X):
    return np.power(X[0] > 0, X[1] > 0)


def typed_constant_exponent(X):
    return np.power(X[0], np.int8(2)) + X[0] ** np.uint8(3)


def unsigned_exponent(X, E, out):
    for i in range(X.shape[0]):
        out[i] = np.power(X[i], E[i]) + X[i] ** E[i]


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.bool_])
def test_exponents_that_cannot_be_negative_are_accepted(dtype) -> None:
    """A bool, an unsigned int or a typed constant cannot be negative: NumPy's int power."""
    X = np.array([3, 1], dtype)
    for fn in (bool_exponent, typed_constant_exponent):
        got, want = polyopt.jit(fn)(X), fn(X)
        assert type(got) is type(want) and got == want


def test_an_unsigned_run_time_exponent(check) -> None:
    X = np.array([3, -2, 7, 0, 300], np.int16)
    check(polyopt.jit(unsigned_exponent), X, np.array([0, 3, 5, 1, 2], np.uint8),
          np.zeros(5, np.int64))
