"""Differences from NumPy found by the hostile-user session and not fixed yet, each an
xfail(strict=True) test that passes once it is: NumPy's answer is the expected one."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def bool_power(b):
    return b ** 2


def max_of(x):
    return np.max(x, axis=0)


def test_bool_array_power_is_int8() -> None:
    b = np.array([True, False, True])
    got = polyopt.jit(bool_power)(b)
    assert got.dtype == bool_power(b).dtype == np.int8


@pytest.mark.xfail(strict=True, reason="a reduction without an identity (np.max, np.min) "
                   "along an axis of extent 0: NumPy raises ValueError ('zero-size array to "
                   "reduction operation maximum which has no identity'); polyopt's bounds "
                   "check raises IndexError naming the first element it would read, since "
                   "the call's size checks are equalities")
def test_max_of_an_empty_axis_raises_value_error() -> None:
    x = np.zeros((0, 3))
    with pytest.raises(ValueError):
        max_of(x)
    with pytest.raises(ValueError):
        polyopt.jit(max_of)(x)



def square_sum(b, x):
    return b ** 2 + (x > 0.5) ** 2


def cube(b):
    return b ** 3


def element_square(b, out):
    for i in range(b.shape[0]):
        out[i] = b[i] ** 2 * 200  # int64 for the element: 200, not an int8 wrap


@pytest.mark.parametrize("fn", [square_sum, cube, element_square])
def test_only_the_array_square_of_bools_is_int8(fn) -> None:
    """NumPy computes ``bool_array ** 2`` as ``np.square`` (int8), but ``** 3`` and the
    element's ``np.True_ ** 2`` in int64."""
    b, x = np.array([True, False, True]), np.array([0.1, 0.7, 0.9])
    args = (b, np.zeros(3, np.int64)) if fn is element_square else (b, x)[:fn.__code__.co_argcount]
    want_args = tuple(a.copy() for a in args)
    want = fn(*want_args)
    got_args = tuple(a.copy() for a in args)
    got = polyopt.jit(fn)(*got_args)
    if want is None:
        want, got = want_args[-1], got_args[-1]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
