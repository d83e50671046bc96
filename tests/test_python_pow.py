"""``**`` of two Python scalars, where CPython's result is no float.

A hostile user's finding: ``t ** 0.5`` of a Python float ``t = -4.0`` is a complex
number in CPython, and polyopt returned ``nan`` (stored into an array, where CPython
raises TypeError, too).  polyopt computes no complex numbers: it raises ValueError
instead.  ``0.0 ** -1.0`` raises ZeroDivisionError, as CPython's does.  NumPy floats
keep NumPy's ``nan`` (``np.float64(-4.0) ** 0.5``).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def root(t):
    return t ** 0.5


def shifted(t, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += (t - i) ** 1.5
    return s


def stored(y):
    for i in range(y.shape[0]):
        y[i] = (-8.0) ** (1 / 3)


def inverse(t):
    return t ** -1.0


def elements(t, x):
    for i in range(x.shape[0]):
        x[i] = t ** 0.5 + x[i] ** 0.5


def test_a_negative_python_float_to_a_fractional_power_raises() -> None:
    assert isinstance(root(-4.0), complex)
    with pytest.raises(ValueError, match="complex number"):
        polyopt.jit(root)(-4.0)
    with pytest.raises(ValueError, match="complex number"):
        polyopt.jit(shifted)(0.5, np.zeros(3))
    with pytest.raises(ValueError, match="complex number"):
        polyopt.jit(stored)(np.zeros(2))


def test_python_float_powers_that_are_floats_match_cpython() -> None:
    assert polyopt.jit(root)(4.0) == root(4.0)
    assert polyopt.jit(shifted)(5.0, np.zeros(3)) == pytest.approx(shifted(5.0, np.zeros(3)))
    assert polyopt.jit(root)(-8.0 + 8.0) == 0.0
    assert polyopt.jit(inverse)(-2.0) == -0.5


def test_zero_to_a_negative_power_raises_zero_division() -> None:
    with pytest.raises(ZeroDivisionError, match="negative power"):
        inverse(0.0)
    with pytest.raises(ZeroDivisionError, match="negative power"):
        polyopt.jit(inverse)(0.0)


def test_numpy_floats_keep_numpys_nan() -> None:
    x, y = np.array([-1.0, 4.0]), np.array([-1.0, 4.0])
    with np.errstate(invalid="ignore"):
        elements(4.0, x)
    polyopt.jit(elements)(4.0, y)
    np.testing.assert_array_equal(x, y)
