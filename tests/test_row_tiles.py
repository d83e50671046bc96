"""Register tiles for a matmul whose rows have different reduction ranges, and the
column-block order for one whose rows are sequential (polyopt.scheduler.register_tiling).

trmm's ``B[i, j] += A[k, i] * B[k, j]`` over ``k in range(i + 1, m)``: the rows of a
tile share the ``k`` range above the tile, so the micro-kernel runs that, and the
triangle below it (the diagonal) runs just before, in plain loops.  Row ``i`` reads the
rows below it before they are updated, so the rows are sequential and the threads
share the column blocks instead, outermost.  A triangular solve's rows (``k in
range(i)``) read the rows above them, already updated: their tiles share ``k < i0``, the
diagonal runs after the micro-kernel, and the first rows (row 0 has no ``k``, so the first
tile is not full) run before the tiles.

Differential: each kernel against CPython at sizes with ragged tiles and several
column blocks.  Structural: the tile shape, the loop order, the copy order of a
transposed row operand.  Refusal: the diagonal's order that the solve's rows forbid
(before the micro-kernel), and trmm's (after it); and where the columns carry a
dependence too, the column-block order is illegal and the row-block order stays.
"""

from __future__ import annotations

import re

import islpy as isl
import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.model import names
from polyopt.model.options import Options
from polyopt.model.target import micro_tile, single_row_tile
from polyopt.scheduler.nests import loops_around
from polyopt.scheduler.pipeline import plan

SIZES = ((1, 3), (5, 17), (13, 9), (37, 40), (70, 300))


def trmm(alpha, A, B):
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


def upper(C, A, B):
    """A triangular range, rows independent: one-row tiles, the rows stay outermost."""
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            for k in range(i, p):
                C[i, j] += A[i, k] * B[k, j]


def lower(A, B):
    """Rows read the rows above them, already updated: the diagonal runs after the tile."""
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            for k in range(i):
                B[i, j] -= A[i, k] * B[k, j]


def shifted(A, B):
    """trmm reading the column to the left: columns carry a dependence too."""
    m, n = B.shape
    for i in range(m):
        for j in range(1, n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j - 1]


def _args(rng: np.random.Generator, m: int, n: int) -> tuple:
    return 1.5, rng.random((m, m)), rng.random((m, n))


def _labels(fn, *args) -> dict[str, list[str]]:
    """Labels of the loops around each statement of the plan, outermost first (the
    register-tiled one's name ends in ``f``: split_full_tiles)."""
    scop = parse_function(fn, polyopt.jit(fn)._sig_for(args, {}))
    p = plan(scop, Options())
    return {s.name: [d.label or d.name for d in loops_around(p.tree, s.name)]
            for s in p.scop.statements}


def _outer_labels(fn, *args) -> list[str]:
    """Labels of the loops around the register-tiled statement, outermost first."""
    return next(v for k, v in _labels(fn, *args).items() if k.endswith("f"))


def test_depends_on_tells_a_triangle_from_a_box():
    s = isl.Set("[m, n] -> { S[i, j, k] : 0 <= i < m and 0 <= j < n and i < k < m }")
    assert names.depends_on(s, 2, 0)
    assert not names.depends_on(s, 1, 0) and not names.depends_on(s, 2, 1)
    box = isl.Set("[m, n] -> { S[i, j, k] : 0 <= i < m and 0 <= j < n and 0 < k < m }")
    assert not names.depends_on(box, 2, 0)


@pytest.mark.parametrize("m, n", SIZES)
def test_trmm_matches_python(m, n):
    check_against_python(polyopt.jit(trmm), *_args(np.random.default_rng(m), m, n))


@pytest.mark.parametrize("m, n", SIZES)
def test_triangular_range_with_independent_rows_matches_python(m, n):
    rng = np.random.default_rng(m)
    check_against_python(polyopt.jit(upper), np.zeros((m, n)), rng.random((m, m + 2)),
                         rng.random((m + 2, n)))


@pytest.mark.parametrize("m, n", SIZES)
def test_columns_that_carry_a_dependence_match_python(m, n):
    rng = np.random.default_rng(m)
    check_against_python(polyopt.jit(shifted), rng.random((m, m)), rng.random((m, n)))


@pytest.mark.parametrize("m, n", SIZES)
def test_rows_that_read_updated_rows_match_python(m, n):
    rng = np.random.default_rng(m)
    check_against_python(polyopt.jit(lower), rng.random((m, m)) / m, rng.random((m, n)))


def _micro_accumulators(c: str) -> int:
    micro = re.search(r"static void \w+_micro\d+\(.*?\n\}\n", c, re.S)
    assert micro, c
    return len(set(re.findall(r"\bB_acc\d+\b", micro.group(0))))


def test_trmm_tiles_rows_above_a_diagonal_and_shares_column_blocks():
    args = _args(np.random.default_rng(0), 70, 300)
    c = polyopt.jit(trmm).c_source(*args)
    mr, nr = micro_tile(polyopt.model.dtypes.DType("float64"))
    assert mr > 1 and _micro_accumulators(c) == mr * nr
    labels = _labels(trmm, *args)
    diagonal = next(v for k, v in labels.items() if k.endswith("d"))
    full = _outer_labels(trmm, *args)
    assert full[0] == "j.tile", full  # the column blocks, outermost
    assert diagonal[:5] == full[:5] and diagonal[5:] == ["i.diag", "k.diag", "j.diag"]
    # the copy of A[k, i] (A read transposed) steps k outside the panels: a row of A
    # at a time, not a column
    copy = re.search(r"(for \(int64_t c\d+ = [^\n]*\n\s*for [^\n]*\n)(\s*#pragma omp simd\n"
                     r"\s*for [^\n]*\n)?\s*\{\n\s*const int64_t i_panel = (c\d+);\n\s*const "
                     r"int64_t i_lane = c\d+;\n\s*const int64_t k = (c\d+);", c)
    assert copy, c
    assert int(copy.group(3)[1:]) > int(copy.group(4)[1:])  # the panel loop inside k's


def test_a_solve_tiles_rows_below_a_diagonal_that_runs_after_the_micro_kernel():
    rng = np.random.default_rng(0)
    args = (rng.random((70, 70)), rng.random((70, 300)))
    labels = _labels(lower, *args)
    first = next(v for k, v in labels.items() if k.endswith("b"))
    diagonal = next(v for k, v in labels.items() if k.endswith("d"))
    full = _outer_labels(lower, *args)
    assert first == ["i.first", "k.first", "j.first"]
    assert full[0] == "j.tile" and diagonal[:5] == full[:5]
    order = [k for k in labels if k.startswith("S0")]
    assert order.index("S0b") < order.index("S0f") < order.index("S0d") < order.index("S0r")
    mr, nr = micro_tile(polyopt.model.dtypes.DType("float64"))
    assert _micro_accumulators(polyopt.jit(lower).c_source(*args)) == mr * nr
    assert single_row_tile(polyopt.model.dtypes.DType("float64"))[0] == 1 < mr


@pytest.mark.parametrize("fn, refused", [(lower, "triangle first"), (trmm, "kernel first")])
def test_each_diagonal_order_is_refused_where_it_would_read_a_row_too_early(monkeypatch, fn,
                                                                             refused):
    """The solve's diagonal before its micro-kernel would read its own tile's rows before
    they are final; trmm's after it, after they are updated.  Both orders are proposed
    (trmm's own first), and the check refuses the wrong one."""
    from polyopt.model.schedule_tree import statements
    from polyopt.scheduler import register_tiling

    verdicts: list[tuple[str, bool]] = []

    def recording(scop, deps, tree):
        legal = real(scop, deps, tree)
        leaves = statements(tree)
        if "S0d" in leaves and "S0f" in leaves:
            first = leaves.index("S0d") < leaves.index("S0f")
            verdicts.append(("triangle first" if first else "kernel first", legal))
        return legal

    real = register_tiling.is_legal
    monkeypatch.setattr(register_tiling, "is_legal", recording)
    rng = np.random.default_rng(1)
    args = (rng.random((70, 70)), rng.random((70, 300))) if fn is lower else _args(rng, 70, 300)
    assert any(k.endswith("d") for k in _labels(fn, *args))
    if fn is lower:
        assert (refused, False) in verdicts and ("kernel first", True) in verdicts
    else:  # trmm's legal order comes first: the other is never needed
        assert verdicts[0] == ("triangle first", True)
        scop = parse_function(fn, polyopt.jit(fn)._sig_for(args, {}))
        assert not _kernel_first_is_legal(scop)
    check_against_python(polyopt.jit(fn, cache=False, strict_fp=True), *args)


def _kernel_first_is_legal(scop) -> bool:
    """Whether trmm's split program, with its diagonal after each micro-kernel, is legal."""
    from polyopt.analysis.dependences import analyze
    from polyopt.analysis.legality import is_legal
    from polyopt.model.schedule_tree import Band, Sequence, statements

    p = plan(scop, Options())
    tree = p.tree

    def swapped(node):
        if isinstance(node, Sequence):
            kids = tuple(swapped(c) for c in node.children)
            names = [statements(c) for c in kids]
            if len(kids) == 2 and any("S0d" in n for n in names[:1]) and "S0f" in names[1]:
                kids = kids[::-1]
            return Sequence(kids)
        if isinstance(node, Band):
            return Band(node.dims, swapped(node.child), node.permutable)
        return node

    other = swapped(tree)
    assert other != tree
    return is_legal(p.scop, analyze(p.scop), other)


def test_rows_that_are_parallel_stay_outermost():
    rng = np.random.default_rng(0)
    args = np.zeros((70, 300)), rng.random((70, 72)), rng.random((72, 300))
    assert _outer_labels(upper, *args)[0] == "i.tile"
    assert any(k.endswith("d") for k in _labels(upper, *args))


def test_column_blocks_first_is_refused_where_columns_carry_a_dependence():
    """Row ``i`` reads ``B[k, j - 1]`` before row ``k`` updates it: a column block run
    whole before the next would update it first.  (Here the register tiles themselves
    are illegal too: the plan keeps no tile of either kind.)"""
    rng = np.random.default_rng(0)
    labels = _labels(shifted, rng.random((70, 70)), rng.random((70, 300)))
    assert labels and all(not v or v[0] != "j.tile" for v in labels.values()), labels


def test_the_column_block_order_is_taken_only_where_proven_legal(monkeypatch):
    """With the column-first tree's check failing (as it would for a dependence along
    the columns), trmm keeps the row-block order, and its result."""
    from polyopt.scheduler import register_tiling

    checked = []

    def legal_unless_columns_first(scop, deps, tree):
        columns_first = any((d.label or d.name) == "j.tile" for d in _loops(tree))
        checked.append(columns_first)
        return not columns_first and register_tiling_is_legal(scop, deps, tree)

    register_tiling_is_legal = register_tiling.is_legal
    monkeypatch.setattr(register_tiling, "is_legal", legal_unless_columns_first)
    args = _args(np.random.default_rng(3), 70, 300)
    assert _outer_labels(trmm, *args)[0] == "i.tile"
    assert any(checked)  # the column-first tree was proposed, and refused
    check_against_python(polyopt.jit(trmm, cache=False), *args)


def _loops(tree):
    """The outermost loop of each nest of ``tree``."""
    from polyopt.model.schedule_tree import Band, Sequence

    nests = tree.children if isinstance(tree, Sequence) else (tree,)
    for node in nests:
        if isinstance(node, Band) and node.dims:
            yield node.dims[0]
