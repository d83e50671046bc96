"""The sign of a zero, as CPython and NumPy give it (hostile session 42a, findings 01
and 03).

- ``math.ceil(-0.5)``, ``int(-0.3)``: a Python int 0, so +0.0 as a float.  gcc folded
  the checked conversion and its way back, ``(double)(int64_t)x``, into ``trunc(x)``,
  which is -0.0 (even past a ``+ 0.0``).
- ``np.maximum(0.0, -0.0)`` is -0.0: on equal operands NumPy returns the second;
  polyopt returned the first, and ``np.max`` of ``[0.0, -0.0]`` is -0.0 too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyopt


def int_results(x, out):
    for i in range(x.shape[0]):
        out[i, 0] = math.ceil(x[i])
        out[i, 1] = math.trunc(x[i]) * 1.0
        out[i, 2] = math.floor(x[i]) + 0.0
        out[i, 3] = int(x[i]) * 2.5
        out[i, 4] = math.copysign(1.0, math.ceil(x[i]) * 3.0)
        out[i, 5] = float(int(x[i]))


def maxima(x, y, out):
    for i in range(x.shape[0]):
        out[i, 0] = np.maximum(x[i], y[i])
        out[i, 1] = np.minimum(x[i], y[i])
    out[0, 2] = np.max(x)
    out[1, 2] = np.min(y)
    m = x[0]
    for i in range(x.shape[0]):
        m = np.maximum(m, x[i])
    out[2, 2] = m


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}])
def test_an_int_made_from_a_float_is_a_positive_zero(options) -> None:
    x = np.array([-0.5, -0.0, -0.7, -0.3, 2.5, -2.5])
    want, got = np.zeros((6, 6)), np.zeros((6, 6))
    int_results(x, want)
    polyopt.jit(int_results, **options)(x, got)
    _same_bits(got, want)


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_np_maximum_of_equal_operands_is_the_second(options, dtype) -> None:
    x = np.array([0.0, -0.0, 1.0], dtype)
    y = np.array([-0.0, 0.0, np.nan], dtype)
    want, got = np.zeros((3, 3), dtype), np.zeros((3, 3), dtype)
    maxima(x, y, want)
    polyopt.jit(maxima, **options)(x, y, got)
    _same_bits(got, want)
