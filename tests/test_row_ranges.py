"""Row blocks cut in equal ranges at run time (polyopt/scheduler/row_ranges.py,
backend_c/ranged.py).

A register-tiled matmul's row blocks are shared by the threads; where the row count is
not a multiple of ``threads * mc`` one thread ran a block more.  The blocks are now cut
at run time into equal ranges of register-tile rows, as many as the team has threads
(or a multiple).  That is legal only where no dependence joins two different tile rows
under the loop: the row blocks being parallel is not enough.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.model.schedule_tree import loops
from polyopt.scheduler.row_ranges import mark_ranged
from polyopt.transforms.tile import tile


def fill_matmul_scale(A, B, C, D):
    n, m = C.shape
    for i in range(n):
        for j in range(m):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
        for j in range(m):
            D[i, j] = C[i, j] * 2.0


def group_first_row(A, B, C, D):
    """D's rows read the first row of their group of 60: rows of different register
    tiles (6 rows with AVX2's float64 tile), within one row block of 60."""
    n, m = C.shape
    for i in range(n):
        for j in range(m):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
        for j in range(m):
            D[i, j] = C[i - i % 60, j] + C[i, j]


def two_matmuls(A, B, C, T, E):
    n, p = A.shape
    m = B.shape[1]
    q = C.shape[1]
    for i in range(n):
        for j in range(m):
            T[i, j] = 0.0
            for k in range(p):
                T[i, j] += A[i, k] * B[k, j]
        for j in range(q):
            E[i, j] = 0.0
            for k in range(m):
                E[i, j] += T[i, k] * C[k, j]


def _ranged_loops(fn, units):
    scop = parse_function(fn)
    tree = tile(scop, None, scop.schedule, ["L0"], [60])  # rows in blocks of 60
    marked = mark_ranged(scop, analyze(scop), tree, units)
    return [d.mark.ranged for d, _ in loops(marked)]


def test_rows_that_read_other_tiles_rows_keep_whole_blocks():
    """The legality check refuses where a dependence joins two tile rows of one block,
    and accepts the same nest where each row reads its own."""
    assert _ranged_loops(fill_matmul_scale, {"S1": ("i", 6)})[0] == 6
    assert not any(_ranged_loops(group_first_row, {"S1": ("i", 6)}))


def test_blocks_must_be_of_the_tiles_own_rows():
    """Blocks of 60 rows are not whole tiles of 7 rows, and blocks of rows are not of
    a tile over columns: cut between them, a tile's unguarded copies would run twice."""
    assert not any(_ranged_loops(fill_matmul_scale, {"S1": ("i", 7)}))
    assert not any(_ranged_loops(fill_matmul_scale, {"S1": ("j", 6)}))


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("rows", [1, 5, 6, 7, 59, 61, 121, 185])
def test_ranges_give_python_results(rows, threads):
    """Row counts with no full tile, one, a ragged last tile, fewer tiles than threads,
    and several blocks (AVX2's 6 x 8 tile, blocks of at most 10 tiles)."""
    rng = np.random.default_rng(rows)
    k = polyopt.jit(two_matmuls, num_threads=threads)
    args = (rng.random((rows, 9)), rng.random((9, 19)), rng.random((19, 17)),
            np.zeros((rows, 19)), np.zeros((rows, 17)))
    assert "polyopt_row_blocks(" in k.c_source(*args)
    check_against_python(k, *args)


def test_a_dependent_group_gives_python_results():
    rng = np.random.default_rng(1)
    k = polyopt.jit(group_first_row, num_threads=3)
    args = (rng.random((185, 9)), rng.random((9, 17)), np.zeros((185, 17)), np.zeros((185, 17)))
    check_against_python(k, *args)


def test_user_tile_sizes_keep_their_blocks():
    """A row block the user sized stays as given."""
    rng = np.random.default_rng(2)
    args = (rng.random((40, 9)), rng.random((9, 19)), rng.random((19, 17)),
            np.zeros((40, 19)), np.zeros((40, 17)))
    assert "polyopt_row_blocks(" not in polyopt.jit(two_matmuls, tile=(12, 64, 64)).c_source(*args)


def test_a_call_too_small_for_a_team_runs_its_ranges_in_order(monkeypatch):
    """Under the team threshold the blocks are the tiles' own (one thread): the flag is
    what `polyopt_row_blocks` asks."""
    monkeypatch.delenv("POLYOPT_PARALLEL_MIN", raising=False)
    rng = np.random.default_rng(3)
    k = polyopt.jit(two_matmuls, num_threads=2)
    args = (rng.random((61, 9)), rng.random((9, 19)), rng.random((19, 17)),
            np.zeros((61, 19)), np.zeros((61, 17)))
    assert "polyopt_row_blocks(polyopt_count, 10, polyopt_team)" in k.c_source(*args)
    check_against_python(k, *args)
