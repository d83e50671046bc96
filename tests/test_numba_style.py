"""Numba-style loop code runs unchanged (issue 15, part 1): ``prange``, names imported
from ``math`` and ``numpy``, the math library, casts, allocation and assignment forms.
Every construct is checked against CPython/NumPy running the same function."""

from __future__ import annotations

import types

import numpy as np
import pytest

import polyopt
from polyopt import prange

# Numba's prange, known by its module's name: numba is not installed where the tests run
numba = types.ModuleType("numba")
numba_prange = type("prange", (), {"__module__": "numba.misc.special",
                                   "__new__": lambda cls, *a: range(*a)})
numba.prange = numba_prange  # type: ignore[attr-defined]


# --- prange -------------------------------------------------------------------------------

@polyopt.jit
def scale_rows(A, B):
    n, m = A.shape
    for i in prange(n):
        for j in range(m):
            B[i, j] = 2.0 * A[i, j] + j


@polyopt.jit
def scale_rows_numba(A, B):
    n, m = A.shape
    for i in numba.prange(n):
        for j in range(m):
            B[i, j] = A[i, j] * A[i, j]


@polyopt.jit
def scale_rows_bare_numba(A, B):
    n, m = A.shape
    for i in range(n):
        for j in numba_prange(m):
            B[i, j] = A[i, j] - 1.0


@polyopt.jit
def row_sums(A):
    n, m = A.shape
    s = 0.0
    for i in polyopt.prange(n):
        for j in range(m):
            s += A[i, j]
    return s


@polyopt.jit
def prefix_sum(x):
    for i in prange(1, x.shape[0]):
        x[i] = x[i] + x[i - 1]


@pytest.mark.parametrize("kernel", [scale_rows, scale_rows_numba, scale_rows_bare_numba])
def test_prange_runs_in_parallel(kernel, check, rng):
    A = rng.random((37, 23))
    check(kernel, A, np.zeros_like(A))
    assert "#pragma omp parallel for" in kernel.c_source(A, np.zeros_like(A))


def test_prange_reduction(check, rng):
    A = rng.random((40, 9))
    check(row_sums, A)
    assert "reduction(+" in row_sums.c_source(A)


def test_prange_carrying_a_dependence_is_refused():
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        prefix_sum(np.arange(10.0))
    message = str(info.value)
    assert "loop i@" in message and "cannot run in parallel" in message
    assert "flow" in message and "x[i - 1]" in message


def test_polyopt_prange_is_range_under_cpython():
    assert list(polyopt.prange(2, 11, 3)) == list(range(2, 11, 3))
    x = np.arange(6.0)
    prefix_sum.py_func(x)
    assert x.tolist() == [0.0, 1.0, 3.0, 6.0, 10.0, 15.0]
