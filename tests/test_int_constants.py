"""Python int constant expressions are folded as CPython computes them (hostile session
42a, finding 04).  Before, each operation wrapped in int64: ``x[0] = 2**70`` stored 0.0
and ``a64[0] = 2**64 + 5`` stored 5.  A constant that does not fit in 64 bits is now
refused at its place; one that fits after folding (``2**63 - 1``) is exact."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def fits_after_folding(a, x):
    a[0] = 2**63 - 1
    a[1] = -(2**63)
    a[2] = -9223372036854775808
    a[3] = (2**62 * 4) // 8 - 3 % -2
    x[0] = float(2**70)
    x[1] = 2**62 * 0.5
    x[2] = -float(-2) * 3  # folds to a negative literal: `--2.0` was C's decrement (fuzz)


def test_a_constant_that_fits_after_folding_is_exact() -> None:
    want, got = (np.zeros(4, np.int64), np.zeros(3)), (np.zeros(4, np.int64), np.zeros(3))
    fits_after_folding(*want)
    polyopt.jit(fits_after_folding)(*got)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


def power(x):
    x[0] = 2**70


def sum_of_constants(x):
    x[0] = 10**20 + 1.0


def added_in_a_loop(y):
    for i in range(y.shape[0]):
        y[i] = y[i] + 2**64


def into_an_int_array(a):
    a[0] = 2**64 + 5


@pytest.mark.parametrize(("kernel", "shown", "value"), [
    (power, "2 ** 70", 2**70),
    (sum_of_constants, "10 ** 20", 10**20),
    (added_in_a_loop, "2 ** 64", 2**64),
    (into_an_int_array, "2 ** 64 + 5", 2**64 + 5),
])
def test_a_constant_that_does_not_fit_in_64_bits_is_refused(kernel, shown, value) -> None:
    args = (np.zeros(3, np.int64 if kernel is into_an_int_array else np.float64),)
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(kernel)(*args)
    text = str(info.value)
    assert f"`{shown}`: is {value}, which does not fit in 64 bits" in text
    assert "(test_int_constants.py, line " in text
