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


@pytest.mark.xfail(strict=True, reason="NumPy's power has no bool loop: a bool array ** 2 "
                   "computes in int8 (the scalar np.True_ ** 2 is an int64); polyopt lowers "
                   "array code to element operations, which follow the scalar's int64")
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
