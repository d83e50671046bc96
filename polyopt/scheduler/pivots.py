"""Index-set splitting at pivots: a sequential loop cut where its dependences meet.

floyd-warshall's ``for k: for i: for j: path[i, j] = min(path[i, j], path[i, k] +
path[k, j])`` carries its dependences on ``i`` only through row ``i == k``, the
*pivot*.  Split there, the rows before and after it run in parallel::

    for i:                       for i < k:  ...      # parallel
        path[i, j] = ...   ==>   for i == k: ...
                                 for i > k:  ...      # parallel

(then the same for ``j``); see :mod:`polyopt.transforms.iss`.
"""

from __future__ import annotations

import islpy as isl

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.analysis.legality import is_legal
from polyopt.analysis.timeline import Timeline, timeline
from polyopt.analysis.verdicts import LoopKind, loop_verdict
from polyopt.model import isl_text
from polyopt.model.aff import Cmp, Lin
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import LoopDim, Node, loops, statements
from polyopt.model.scop import Scop
from polyopt.transforms.iss import outer_iterators, split_at_pivot

MAX_PIVOT_SPLITS = 8


def split_pivots(scop: Scop, deps: Dependences, tree: Node) -> tuple[Scop, Dependences, Node]:
    """Split sequential loops at a pivot hyperplane while the pieces then run in parallel
    or vectorize; the split program and its dependences come back with the tree."""
    for _ in range(MAX_PIVOT_SPLITS):
        step = _pivot_split_once(scop, deps, tree)
        if step is None:
            break
        scop, deps, tree = step
    return scop, deps, tree


def _pivot_split_once(scop: Scop, deps: Dependences, tree: Node
                      ) -> tuple[Scop, Dependences, Node] | None:
    tl = timeline(scop, tree)
    for dim, path in loops(tree):
        stmts = statements(path[-1])
        if len(stmts) != 1 or loop_verdict(scop, deps, tree,
                                           dim.loop_id).kind is not LoopKind.SEQUENTIAL:
            continue
        for pivot in _pivots(scop, deps, tree, tl, dim, stmts[0]):
            try:
                scop2, cand, copies = split_at_pivot(scop, tree, dim.loop_id, pivot)
            except PolyoptError:
                continue
            deps2 = analyze(scop2)
            if not is_legal(scop2, deps2, cand):
                continue  # the split keeps the order: this would be a bug, never a result
            if any(loop_verdict(scop2, deps2, cand, c).kind is not LoopKind.SEQUENTIAL
                   for c in copies):
                return scop2, deps2, cand
    return None


def _pivots(scop: Scop, deps: Dependences, tree: Node, tl: Timeline, dim: LoopDim,
            stmt: str) -> list[Lin]:
    """Hyperplanes ``v == u`` (``u`` an iterator of a loop around) that every dependence
    the loop carries starts or ends on."""
    v = dim.expr(stmt).as_name()
    if v is None:
        return []
    st = scop.statement(stmt)
    carried = [c for d in deps.memory if d.source.statement == stmt == d.sink.statement
               for c in [tl.carries(d.relation, dim.loop_id)] if not c.is_empty()]
    out = []
    for u in outer_iterators(tree, dim.loop_id, stmt):
        plane = isl.UnionSet.from_set(isl_text.make_set(
            scop.params, stmt, st.iterators, Cmp("==", Lin.var(v), Lin.var(u))))
        if carried and all(c.domain().is_subset(plane) or c.range().is_subset(plane)
                           for c in carried):
            out.append(Lin.var(u))
    return out
