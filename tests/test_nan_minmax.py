"""``np.max``/``np.min``/``np.maximum``/``np.minimum`` propagate a NaN from either
operand, as NumPy does, while the builtins ``max()``/``min()`` keep CPython's choice by
comparison (``max(0.0, nan)`` is 0.0, ``max(nan, 0.0)`` is nan).  Both used to compile
to the comparison, so ``np.max([1.0, nan])`` gave 1.0."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt

NAN_ROWS = [
    np.array([1.0, np.nan, -2.0, 0.3, np.inf, -np.inf]),
    np.array([np.nan, 1.0]),
    np.array([1.0, np.nan]),
    np.array([-3.0, 2.0, 7.5]),
]


def whole_max(x):
    return np.max(x)


def whole_min(x):
    return np.min(x)


def row_max(A, out):
    out[:] = np.max(A, axis=1)


def column_min(A, out):
    out[:] = np.min(A, axis=0)


def maximum_scalar_first(x, y):
    y[:] = np.maximum(0.0, x)


def minimum_in_loop(x, y):
    for i in range(len(x)):
        y[i] = np.minimum(0.5, x[i])


def builtin_max_in_loop(x, y):
    for i in range(len(x)):
        y[i] = max(0.0, x[i])  # CPython: 0.0 where x[i] is nan


def int_max(k):
    return np.max(k)


@pytest.mark.parametrize("fn", [whole_max, whole_min])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_whole_array_reduction_propagates_nan(check, fn, dtype) -> None:
    kernel = polyopt.jit(fn)
    for row in NAN_ROWS:
        check(kernel, row.astype(dtype))
        check(kernel, row[::-1].astype(dtype))


@pytest.mark.parametrize("fn", [row_max, column_min])
def test_axis_reduction_propagates_nan(check, fn) -> None:
    A = np.array([[1.0, np.nan, 3.0], [2.0, 1.0, 0.0], [5.0, 4.0, np.nan]])
    check(polyopt.jit(fn), A, np.zeros(3))


@pytest.mark.parametrize("fn", [maximum_scalar_first, minimum_in_loop, builtin_max_in_loop])
def test_elementwise_nan_on_either_side(check, fn) -> None:
    x = np.array([1.0, np.nan, -2.0, 0.3, np.inf, -np.inf])
    check(polyopt.jit(fn), x, np.zeros(6))


def test_builtin_max_keeps_cpython_choice() -> None:
    """max(0.0, nan) is 0.0 in CPython: the NaN-propagating helper is not used."""
    x = np.array([np.nan, 2.0])
    y = np.zeros(2)
    polyopt.jit(builtin_max_in_loop)(x, y)
    assert y.tolist() == [0.0, 2.0]


def test_int_reduction_still_parallel(check) -> None:
    """Ints have no NaN: np.max of ints stays an OpenMP max reduction."""
    kernel = polyopt.jit(int_max)
    k = np.array([3, -9, 12, 4], dtype=np.int64)
    check(kernel, k)
    assert "reduction(max:" in kernel.c_source(k)
    assert "polyopt_maximum" not in kernel.c_source(k)


def running_max_element_first(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = max(x[i], m)
    return m


def running_max_accumulator_first(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def running_min_from(x, m0):
    m = m0
    for i in range(x.shape[0]):
        m = min(x[i], m)
        m = min(m, x[i])
    return m


@pytest.mark.parametrize("n", [2, 16, 1001])
@pytest.mark.parametrize("nan_at", [None, 0, 1, "middle", "last"])
def test_a_running_builtin_max_keeps_cpythons_choice_in_order(check, n, nan_at) -> None:
    """Hostile session 36b: `m = max(x[i], m)` ran as an OpenMP max reduction, in lanes
    and threads.  CPython's choice depends on the order: a NaN element becomes m and the
    next element replaces it (1.0 where polyopt gave nan), and a NaN first value of m
    stays (nan where the reduction gave 0.0).  A float min/max reduction now keeps its
    order unless a prange or a user's step asks."""
    x = np.linspace(0.0, 1.0, n)
    if nan_at is not None:
        x[{"middle": n // 2, "last": n - 1}.get(nan_at, nan_at)] = np.nan
    for fn in (running_max_element_first, running_max_accumulator_first):
        check(polyopt.jit(fn), x)
    for m0 in (0.5, np.nan, np.inf):
        check(polyopt.jit(running_min_from), x, m0)
