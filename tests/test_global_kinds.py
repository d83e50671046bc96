"""Globals that are not ints or floats: a NumPy int global is a bound, as
``range(np.int32(3))`` is in Python (it was "`N`: unknown name"), and a global of
another type is refused naming its type (a str or a float bound was "unknown name"
too, as if the global did not exist)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import polyopt

N = np.int32(3)
LABEL = "scale"
STEPS = 4.0


def first_n(x):
    for i in range(N):
        x[i] = 1.0


def scaled_by_label(x):
    for i in range(len(x)):
        x[i] *= LABEL


def float_bound(x):
    for i in range(STEPS):
        x[i] = 1.0


def test_numpy_int_global_as_a_bound(check) -> None:
    global N
    kernel = polyopt.jit(first_n)
    check(kernel, np.zeros(8))
    N = np.int64(6)  # re-checked at the next call, as a Python int global is
    try:
        check(kernel, np.zeros(8))
    finally:
        N = np.int32(3)


@pytest.mark.parametrize("fn,reason", [
    (scaled_by_label, "is a global str"),
    (float_bound, "is a global float (4.0); bounds"),
])
def test_other_globals_are_refused_naming_their_type(fn, reason) -> None:
    with pytest.raises(polyopt.UnsupportedError, match=re.escape(reason)) as info:
        polyopt.jit(fn)(np.zeros(8))
    assert "unknown name" not in str(info.value)
