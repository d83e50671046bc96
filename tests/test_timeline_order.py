"""The order a timeline answers with is the program's whole order.

``Timeline.before`` and ``Timeline.respects`` compare two statements on the positions
of their time vectors that can tell them apart (the positions where both are the same
constant dropped, the vectors cut where their constants differ); these tests check
them against isl's order on the whole padded schedule, on the source trees and on the
scheduler's tiled, fused and split trees, and that a tree which runs a consumer before
its producer is still refused.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl
import numpy as np
import pytest
from polyopt.frontends.python import parse_function
from test_compile_work import right_looking_lu as lu

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.analysis.legality import is_legal, violations
from polyopt.analysis.time_maps import time_map
from polyopt.analysis.timeline import timeline
from polyopt.model import isl_text
from polyopt.model.aff import Lin, floordiv
from polyopt.model.schedule_tree import Sequence, flat_vectors, loops
from polyopt.model.scop import Scop


def two_nests(A, B, C):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j] * 2.0
    for i in range(n):
        C[i] = 0.0
        for j in range(n):
            C[i] += B[j, i]


def jacobi(A, B, steps):
    n = A.shape[0]
    for _t in range(steps):
        for i in range(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0
        for i in range(1, n - 1):
            A[i] = B[i]


def gemm(C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] *= 0.5
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]


def _args(fn):
    rng = np.random.default_rng(0)
    if fn is jacobi:
        return (rng.random(20), rng.random(20), 3)
    if fn is lu:
        return (rng.random((20, 20)) + 20 * np.eye(20),)
    if fn is two_nests:
        return (rng.random((20, 20)), rng.random((20, 20)), rng.random(20))
    return (rng.random((20, 24)), rng.random((20, 9)), rng.random((9, 24)))


def _trees(fn):
    """(scop, tree) pairs: the source order and the scheduler's final tree."""
    kernel = polyopt.jit(fn)
    sig = kernel._sig_for(_args(fn), {})
    plan = kernel.plan(sig)
    source = parse_function(fn, sig)
    return [(source, source.schedule), (plan.scop, plan.tree)]


def _whole_order(scop: Scop, tree) -> isl.UnionMap:
    sched = timeline(scop, tree).schedule
    return sched.lex_lt_union_map(sched)


@pytest.mark.parametrize("fn", [two_nests, lu, jacobi, gemm])
def test_before_is_the_whole_programs_order(fn):
    for scop, tree in _trees(fn):
        tl = timeline(scop, tree)
        whole = _whole_order(scop, tree)
        names = [s.name for s in scop.statements]
        for a in names:
            for b in names:
                mine = tl.before(a, b)
                assert mine.is_equal(whole.extract_map(mine.get_space())), (a, b)


@pytest.mark.parametrize("fn", [two_nests, lu, jacobi, gemm])
def test_respects_agrees_with_the_whole_order(fn):
    for scop, tree in _trees(fn):
        tl = timeline(scop, tree)
        whole = _whole_order(scop, tree)
        deps = analyze(scop)
        assert deps.memory
        for d in deps.memory:
            expected = isl.UnionMap.from_map(d.relation).is_subset(whole)
            assert tl.respects(d.relation) == expected
            # the same relation read backwards runs sink first: never respected
            if not d.relation.is_empty():
                assert not tl.respects(d.relation.reverse())


def test_consumer_nest_run_first_is_refused():
    scop = parse_function(two_nests, None)
    deps = analyze(scop)
    tree = scop.schedule
    assert isinstance(tree, Sequence) and is_legal(scop, deps, tree)
    swapped = replace(tree, children=tree.children[::-1])
    assert not is_legal(scop, deps, swapped)
    broken = violations(scop, deps, swapped)
    assert broken and {d.array for d in broken} == {"B"}


def _flat_dataflow(scop: Scop, read, sources: isl.UnionMap) -> isl.UnionMap:
    """isl's dataflow over the whole program, on the padded flat schedule (one band)."""
    tl = timeline(scop, scop.schedule)
    domain = tl.schedule.domain()
    order = isl.MultiUnionPwAff.from_union_map(tl.schedule)
    info = isl.UnionAccessInfo.from_sink(isl.UnionMap.from_map(read.relation))
    info = info.set_must_source(sources).set_schedule(
        isl.Schedule.from_domain(domain).insert_partial_schedule(order))
    return info.compute_flow().get_must_dependence()


@pytest.mark.parametrize("fn", [two_nests, lu, jacobi, gemm])
def test_value_based_flows_on_the_tree_schedule_are_the_flat_ones(fn):
    """The dataflow runs on the tree's isl schedule (sequences apart), not a flat band."""
    for scop, _ in _trees(fn):
        deps = analyze(scop)
        for st in scop.statements:
            for r in st.reads:
                writes = isl.UnionMap.empty(scop.context.get_space())
                for w in scop.statements:
                    if w.write.target == r.target:
                        writes = writes.union(isl.UnionMap.from_map(w.write.relation))
                mine = isl.UnionMap.empty(scop.context.get_space())
                for d in deps.flow_on(r.target):
                    if d.sink is r:
                        mine = mine.union(isl.UnionMap.from_map(d.relation))
                expected = _flat_dataflow(scop, r, writes)
                assert mine.is_equal(expected), r.tag


@pytest.mark.parametrize("fn", [two_nests, lu, jacobi, gemm])
def test_time_maps_are_the_parsed_ones(fn):
    """Built through isl's API, constraint for constraint the maps isl parses from text
    (the scheduled trees have tile loops: floor divisions)."""
    for scop, tree in _trees(fn):
        for stmt, vec in flat_vectors(tree).items():
            s = scop.statement(stmt)
            for n in range(len(vec) + 1):
                exprs = tuple(vec[:n])
                built = time_map(scop.params, stmt, s.iterators, exprs)
                parsed = isl_text.make_map(scop.params, stmt, s.iterators, "", exprs)
                assert str(built) == str(parsed)
                assert built.is_equal(parsed)


def test_time_map_of_parameters_constants_and_nested_divisions():
    i, j, n = Lin.var("i"), Lin.var("j"), Lin.var("n")
    exprs = (Lin.constant(3), i.scale(-2) + n + Lin.constant(-1),
             floordiv(floordiv(i + j.scale(3), 4) + n, 2), Lin.constant(0))
    built = time_map(("n", "m"), "S7", ("i", "j"), exprs)
    parsed = isl_text.make_map(("n", "m"), "S7", ("i", "j"), "", exprs)
    assert str(built) == str(parsed) and built.is_equal(parsed)


@pytest.mark.parametrize("fn", [two_nests, lu, jacobi, gemm])
def test_carries_a_pair_as_the_whole_loop_would(fn):
    """A relation's carried part, from its two statements' equal-prefix maps, is the part
    the loop's whole equal-prefix relations give."""
    for scop, tree in _trees(fn):
        tl = timeline(scop, tree)
        deps = analyze(scop)
        for dim, _ in loops(tree):
            inside = set(tl.positions[dim.loop_id].statements)
            for d in deps.memory:
                if not {d.source.statement, d.sink.statement} <= inside:
                    continue
                rel = isl.UnionMap.from_map(d.relation)
                whole = rel.intersect(tl.same_prefix(dim.loop_id, False)).subtract(
                    tl.same_prefix(dim.loop_id, True))
                assert tl.carries(d.relation, dim.loop_id).is_equal(whole)
                assert tl.carries(rel, dim.loop_id).is_equal(whole)
