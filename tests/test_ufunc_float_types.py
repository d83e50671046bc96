"""The float type of NumPy's float ufuncs on ints: the smallest float each operand casts
to safely, as NumPy's loop resolution picks it.

polyopt took the float of the operands' int promotion: np.arctan2 of an int8 and a
uint8 was a float32 (their int16's), where NumPy computes and returns a float16, and
of a uint16 and an int8 a float64 where NumPy's is a float32.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def arctan2_of(X, Y):
    return np.arctan2(X[1], Y[0])


def hypot_of(X, Y):
    return np.hypot(X[1], Y[0]) + np.copysign(X[0], Y[1])


def with_python_scalars(X, Y):
    return np.hypot(2, X[1]) + np.copysign(Y[1], -1) + np.arctan2(X[0], 2.5)


PAIRS = [(np.int8, np.uint8), (np.uint16, np.int8), (np.bool_, np.int8), (np.int16, np.uint8),
         (np.float16, np.int16), (np.uint32, np.int8), (np.bool_, np.bool_)]


@pytest.mark.parametrize("fn", [arctan2_of, hypot_of, with_python_scalars])
@pytest.mark.parametrize("dx,dy", PAIRS)
def test_float_ufunc_of_ints_has_numpys_type(fn, dx, dy) -> None:
    X, Y = np.array([1, 2], dx), np.array([3, 1], dy)
    want, got = fn(X, Y), polyopt.jit(fn)(X, Y)
    assert type(got) is type(want)
    assert abs(float(got) - float(want)) <= 4 * float(np.spacing(abs(want)))
