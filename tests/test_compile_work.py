"""The compiler's work per kernel stays bounded: counted, never timed (the test machines
are shared, so wall-clock bounds would be noise).

The right-looking LU of issue 16 took 6.6 s to plan: register tiling split its update
into full tiles and the rest and analysed the split program, only to find that the
nest had no (i, k, j) roles left.  Dependences are now computed once for it, and
candidate trees share the timeline relations of the loops they keep.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis import dependences
from polyopt.analysis.dependences import analyze
from polyopt.analysis.timeline import timeline
from polyopt.model.schedule_tree import loops
from polyopt.scheduler import register_tiling
from polyopt.transforms.split import split_full_tiles


def right_looking_lu(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]


def gemm(C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]


def _counting(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def _diagonally_dominant(n: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.standard_normal((n, n)) + n * np.eye(n)


def test_lu_is_analysed_once_and_never_split(monkeypatch):
    analyses = _counting(monkeypatch, dependences, "_analyze")
    splits = _counting(monkeypatch, register_tiling, "split_full_tiles")
    kernel = polyopt.jit(right_looking_lu)
    source = kernel.c_source(_diagonally_dominant(24))
    assert len(analyses) == 1
    assert splits == []  # its nest has no (i, k, j) roles once the row tile is in place
    assert "A[i, j] -= A[i, k] * A[k, j]" in source
    check_against_python(kernel, _diagonally_dominant(37))


def test_gemm_is_still_split_and_register_tiled(monkeypatch):
    """Where the roles survive the row tile, the split and its analysis still run."""
    splits = _counting(monkeypatch, register_tiling, "split_full_tiles")
    kernel = polyopt.jit(gemm)
    rng = np.random.default_rng(4)
    args = (np.zeros((19, 35)), rng.standard_normal((19, 11)), rng.standard_normal((11, 35)))
    assert "_acc" in kernel.c_source(*args)  # register accumulators of the micro-kernel
    assert len(splits) == 1
    check_against_python(kernel, *args)


def test_candidate_trees_share_the_relations_of_the_loops_they_keep():
    scop = parse_function(gemm, None)
    tree = scop.schedule
    same = replace(tree)  # another tree object with the same loops
    assert same is not tree
    first, second = timeline(scop, tree), timeline(scop, same)
    assert first is not second
    deps = analyze(scop)
    for dim, _ in loops(tree):
        for inclusive in (False, True):
            assert (first.same_prefix(dim.loop_id, inclusive)
                    is second.same_prefix(dim.loop_id, inclusive))
        for d in deps.memory:
            assert first.carries(d.relation, dim.loop_id) is second.carries(d.relation,
                                                                             dim.loop_id)
    # what is shared is still each tree's answer: k carries gemm's reduction on C
    k_loop = [dim.loop_id for dim, _ in loops(tree)][-1]
    assert any(not first.carries(d.relation, k_loop).is_empty() for d in deps.memory)


def two_matmuls(D, T, A, B, C):
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            T[i, j] = 0.0
            for k in range(A.shape[1]):
                T[i, j] += A[i, k] * B[k, j]
    for i in range(D.shape[0]):
        for j in range(D.shape[1]):
            D[i, j] = 0.0
            for k in range(T.shape[1]):
                D[i, j] += T[i, k] * C[k, j]


def test_a_split_scop_recomputes_only_the_pairs_it_changed(monkeypatch):
    """Register tiling splits a statement and analyses the split program: the pairs of
    statements it kept reuse their dependences (3mm: three splits and a packing)."""
    scop = parse_function(two_matmuls, None)
    first = analyze(scop)
    split_stmt = scop.statements[1].name
    i, j = scop.statements[1].iterators[:2]
    split = split_full_tiles(scop, scop.schedule, split_stmt, {i: 4, j: 4})
    assert split is not None
    computed = _counting(monkeypatch, dependences, "_memory_dependence")
    second = analyze(split[0])
    parts = {f"{split_stmt}f", f"{split_stmt}r"}
    assert computed and all(src.statement in parts or dst.statement in parts
                            for src, dst, _ in computed)
    kept = {(d.source.tag, d.sink.tag): d.relation for d in first.memory
            if split_stmt not in (d.source.statement, d.sink.statement)}
    again = {(d.source.tag, d.sink.tag): d.relation for d in second.memory
             if not parts & {d.source.statement, d.sink.statement}}
    assert kept.keys() == again.keys() and all(kept[k] is again[k] for k in kept)
