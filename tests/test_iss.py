"""Index-set splitting at a pivot (polyopt.transforms.iss) and its use by the automatic
scheduler: floyd-warshall's rows before and after the pivot row run in parallel, and
the columns before and after the pivot column vectorize.

The split keeps the original order of every instance, so results are exact, including
with negative cycles (where a reordering would change them).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function
from test_auto import placements

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.analysis.legality import is_legal
from polyopt.analysis.verdicts import PARALLEL, loop_verdict
from polyopt.model.aff import Lin
from polyopt.model.errors import PolyoptError
from polyopt.transforms.iss import split_at_pivot
from polyopt.transforms.tree import normalize


def floyd(path):
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


def row_sweep(A):
    # no pivot: row i reads row i - 1
    n = A.shape[0]
    for i in range(1, n):
        for j in range(n):
            A[i, j] = A[i, j] + A[i - 1, j]


def two_statements(A, B):
    n = A.shape[0]
    for k in range(n):
        for i in range(n):
            A[i, k] = A[i, k] + A[k, k]
            B[i, k] = A[k, i]


def _scop(fn, *args):
    k = polyopt.jit(fn)
    return parse_function(fn, k._sig_for(args, {}))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 9, 20])
def test_floyd_with_negative_cycles_is_exact(rng, n):
    path = rng.integers(-5, 20, size=(n, n)).astype(np.int64)
    check_against_python(polyopt.jit(floyd), path)


def test_floyd_rows_around_the_pivot_run_in_parallel_and_columns_vectorize(rng):
    c = polyopt.jit(floyd).c_source(rng.integers(0, 9, size=(6, 6)).astype(np.int64))
    places = placements(c, "path[i, j] = min(path[i, j], path[i, k] + path[k, j])")
    big = [p for p in places if len(p.loops) == 3]
    assert len(big) >= 4, places  # (i < k, i > k) x (j < k, j > k)
    for p in big:
        assert "parallel for" in p.pragmas[1] and "simd" in p.pragmas[2], p
        assert p.bindings["j"] == p.innermost


def test_split_at_pivot_keeps_the_order_and_frees_the_pieces(rng):
    scop = _scop(floyd, np.zeros((4, 4), dtype=np.int64))
    tree = normalize(scop.schedule)
    (outer, rows, _cols) = (d.loop_id for d in _chain(tree))
    assert loop_verdict(scop, analyze(scop), tree, rows).kind != PARALLEL
    scop2, split, copies = split_at_pivot(scop, tree, rows, Lin.var("k"))
    deps2 = analyze(scop2)
    assert is_legal(scop2, deps2, split)
    assert [s.name for s in scop2.statements] == ["S0l", "S0e", "S0g"]
    kinds = [loop_verdict(scop2, deps2, split, c).kind for c in copies]
    assert kinds == [PARALLEL, PARALLEL, PARALLEL], kinds  # the pivot row alone: one iteration
    assert copies[0] == rows and outer not in copies


def _chain(tree):
    from polyopt.model.schedule_tree import loops

    return [d for d, _ in loops(tree)]


def test_split_at_pivot_refuses_a_pivot_that_changes_inside_the_loop():
    scop = _scop(floyd, np.zeros((4, 4), dtype=np.int64))
    tree = normalize(scop.schedule)
    _, rows, _ = (d.loop_id for d in _chain(tree))
    with pytest.raises(PolyoptError, match="changes while the loop runs"):
        split_at_pivot(scop, tree, rows, Lin.var("j"))


def test_split_at_pivot_refuses_a_loop_of_two_statements():
    scop = _scop(two_statements, np.zeros((4, 4)), np.zeros((4, 4)))
    tree = normalize(scop.schedule)
    _, rows = (d.loop_id for d in _chain(tree))
    with pytest.raises(PolyoptError, match="more than one statement"):
        split_at_pivot(scop, tree, rows, Lin.var("k"))


def test_split_at_pivot_refuses_a_pivot_with_every_iteration_on_one_side():
    scop = _scop(floyd, np.zeros((4, 4), dtype=np.int64))
    tree = normalize(scop.schedule)
    _, rows, _ = (d.loop_id for d in _chain(tree))
    with pytest.raises(PolyoptError, match="on one side"):
        split_at_pivot(scop, tree, rows, Lin.var("n") + Lin.constant(5))


def test_no_pivot_no_split(rng):
    A = rng.random((7, 7))
    k = polyopt.jit(row_sweep)
    assert [s.name for s in k.plan(k._sig_for((A,), {})).scop.statements] == ["S0"]
    check_against_python(k, A)
