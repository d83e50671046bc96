"""Array contraction to row and block buffers.

A temporary whose values never outlive one iteration of a loop, and whose accesses
in one iteration all lie in the loop's row (or block of rows), shrinks to a buffer
of that row or block; a parallel loop gives each thread its own buffer.  Differential
tests compare with CPython (run with ``POLYOPT_PARALLEL_MIN=0``, so on the whole
team).  Refusals: a row read in a later iteration, a temporary that is returned, a
read of an element no iteration wrote, a transposed access.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import check_against_python
from kernels import CASES

import polyopt


def rows_then_use(A, out):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = 2.0 * A[i, j]
        for j in range(m):
            out[i, j] = T[i, j] + T[i, m - 1 - j]


def reads_previous_row(A, out):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = 2.0 * A[i, j]
        for j in range(m):
            if i > 0:
                out[i, j] = T[i, j] + T[i - 1, j]


def returns_rows(A):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = 2.0 * A[i, j]
        for j in range(m):
            A[i, j] = T[i, m - 1 - j]
    return T


def reads_unwritten(A, out):
    n, m = A.shape
    T = np.empty((n, m + 1))
    for i in range(n):
        for j in range(m):
            T[i, j] = 2.0 * A[i, j]
        for j in range(m):
            out[i, j] = T[i, j] + T[i, j + 1]  # T[i, m]: never written (undefined)


def transposed(A, out):
    n = A.shape[0]
    T = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            T[i, j] = 2.0 * A[i, j]
        for j in range(i + 1):
            out[i, j] = T[i, j] + T[j, i]  # rows j <= i: this one and earlier ones


def code(fn, *args, **options) -> str:
    """The C for ``fn``, without the comments that quote its source."""
    return re.sub(r"/\*.*?\*/", "", polyopt.jit(fn, **options).c_source(*args), flags=re.S)


def test_a_row_becomes_a_row_buffer_private_to_each_thread():
    rng = np.random.default_rng(0)
    args = (rng.random((70, 33)), np.zeros((70, 33)))
    c = code(rows_then_use, *args)
    assert re.search(r"\bT_row\[j\]", c), c
    assert not re.search(r"\bT\[", c)
    assert "polyopt_own_T_row" in c  # a buffer per thread of the parallel row loop
    assert "memcpy" not in c  # dead after each iteration: nothing to copy in or back
    check_against_python(polyopt.jit(rows_then_use), *args)


@pytest.mark.parametrize("unroll_jam", [True, False], ids=["block", "row"])
def test_matmul_exp_matmul_intermediate_shrinks(unroll_jam):
    """Fused at tiles of rows (register tiling), T becomes a block of rows; fused row by
    row, a single row."""
    case = CASES["mm_exp_mm"]
    rng = np.random.default_rng(1)
    args = (0.3 * rng.random((130, 20)), 0.3 * rng.random((20, 40)), rng.random((40, 24)),
            np.zeros((130, 24)))
    c = code(case.fn, *args, unroll_jam=unroll_jam)
    assert not re.search(r"\bT\[", c)
    assert re.search(r"\bT_rows\[" if unroll_jam else r"\bT_row\[k\]", c)
    check_against_python(polyopt.jit(case.fn, unroll_jam=unroll_jam), *args)


@pytest.mark.parametrize("fn", [reads_previous_row, transposed],
                         ids=["previous-row", "transposed"])
def test_refused_when_values_cross_rows(fn):
    rng = np.random.default_rng(2)
    args = (rng.random((40, 40)), np.zeros((40, 40)))
    c = code(fn, *args)
    assert re.search(r"\bT\[", c) and "T_row" not in c
    check_against_python(polyopt.jit(fn), *args)


def test_refused_when_a_read_finds_no_write():
    """A buffer holds nothing from before the loop (here: an element never written)."""
    rng = np.random.default_rng(4)
    c = code(reads_unwritten, rng.random((40, 30)), np.zeros((40, 30)))
    assert re.search(r"\bT\[", c) and "T_row" not in c


def test_refused_for_a_returned_temporary():
    rng = np.random.default_rng(3)
    A = rng.random((40, 30))
    c = code(returns_rows, A)
    assert re.search(r"\bT\[", c) and "T_row" not in c
    check_against_python(polyopt.jit(returns_rows), A)
