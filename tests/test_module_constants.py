"""``math.pi``, ``np.pi``, ``np.inf``, ``math.nan``... and ``float("inf")`` in values:
they were refused ("`np.pi`: is not supported in a loop body value", also at the top
level), so ``m = -np.inf`` before a max, or ``2 * np.pi * f``, needed a global."""

from __future__ import annotations

import math
import math as m
import re

import numpy as np
import pytest

import polyopt


def phases(x, y):
    for i in range(len(x)):
        y[i] = math.sin(2 * np.pi * x[i]) + math.e * x[i] - math.tau / m.pi


def running_max(x):
    best = -np.inf
    for i in range(len(x)):
        best = max(best, x[i])
    return best


def clamp_to_inf(x, y):
    y[:] = np.minimum(x, np.inf) + np.e


def nan_filled(n):
    t = np.full(n, np.nan)
    return t


def text_floats(x):
    for i in range(len(x)):
        x[i] = min(x[i], float("inf")) + (float("-inf") if x[i] > 10.0 else 0.0)


def not_a_constant(x):
    for i in range(len(x)):
        x[i] = np.euler_gamma


def not_a_float(x):
    for i in range(len(x)):
        x[i] = float("one")


@pytest.mark.parametrize("fn,args", [
    (phases, (np.linspace(0, 1, 9), np.zeros(9))),
    (running_max, (np.array([-3.0, 7.5, 2.0]),)),
    (running_max, (np.zeros(0),)),
    (clamp_to_inf, (np.array([1.0, np.inf, -2.0]), np.zeros(3))),
    (nan_filled, (4,)),
    (text_floats, (np.array([1.0, 20.0, -3.0]),)),
])
def test_module_constants_compute_as_in_python(check, fn, args) -> None:
    check(polyopt.jit(fn), *args)


@pytest.mark.parametrize("fn,match", [
    (not_a_constant, "np.euler_gamma"),
    (not_a_float, "float('one')"),
])
def test_other_attributes_and_texts_are_refused_at_the_construct(fn, match) -> None:
    with pytest.raises(polyopt.UnsupportedError, match=re.escape(match)) as info:
        polyopt.jit(fn)(np.ones(3))
    assert info.value.lineno is not None and info.value.offset is not None
