"""Which loop interchanges and fusions the dependences allow, for the report.

Both are judged on the original program, pair by pair:

* **interchange** of a loop ``a`` with a loop ``b`` nested directly in it is
  impossible when a dependence between statements inside ``b`` has direction
  ``(<, >)`` over ``(a, b)`` (with every loop around ``a`` at distance 0):
  swapping the loops would run its sink before its source;
* **fusion** of two adjacent loop nests ``a`` then ``b`` (their outermost loops,
  aligned iteration by iteration, without shifting) is impossible when a
  dependence from a statement of ``a`` to a statement of ``b`` would become
  backward: its sink's iteration of ``b`` is smaller than its source's
  iteration of ``a``.

Each verdict names the dependences that prevent it, in source terms.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.analysis.timeline import Timeline
from polyopt.model import isl_text, names
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, statements
from polyopt.model.scop import Scop

INTERCHANGE = "interchange"
FUSION = "fusion"


@dataclass(frozen=True)
class LegalityInfo:
    """Whether one interchange or fusion is legal, and what prevents it."""

    transformation: str  # INTERCHANGE or FUSION
    loops: tuple[str, str]  # loop labels: (outer, inner) or (first, second)
    loop_ids: tuple[str, str]
    legal: bool
    blocking: tuple[Dependence, ...]
    reason: str  # "" when legal; else the first blocking dependence in a sentence


def legality(scop: Scop, deps: Dependences) -> tuple[LegalityInfo, ...]:
    """Every interchange of directly nested loops and every fusion of adjacent loops."""
    tl = Timeline(scop, scop.schedule)
    out: list[LegalityInfo] = []
    _walk(scop, deps, tl, scop.schedule, (), out)
    return tuple(out)


def _walk(scop: Scop, deps: Dependences, tl: Timeline, node: Node, outer: tuple[str, ...],
          out: list[LegalityInfo]) -> None:
    if isinstance(node, Band):
        dims = list(node.dims)
        for k, d in enumerate(dims):
            inner = dims[k + 1:k + 2] or _child_loops(node.child)
            for b in inner:
                out.append(_interchange(scop, deps, tl, (*outer, *(x.loop_id for x in dims[:k])),
                                        d, b))
        _walk(scop, deps, tl, node.child, (*outer, *(x.loop_id for x in dims)), out)
    elif isinstance(node, Sequence):
        kids = node.children
        for k, c in enumerate(kids):  # in source order: a nest, then its fusion with the next
            _walk(scop, deps, tl, c, outer, out)
            nxt = kids[k + 1] if k + 1 < len(kids) else None
            if isinstance(c, Band) and isinstance(nxt, Band):
                out.append(_fusion(scop, deps, tl, outer, c, nxt))


def _child_loops(node: Node) -> list[LoopDim]:
    """The outermost loops directly below a band (through one sequence)."""
    if isinstance(node, Band):
        return [node.dims[0]]
    if isinstance(node, Sequence):
        return [c.dims[0] for c in node.children if isinstance(c, Band)]
    return []


def _interchange(scop: Scop, deps: Dependences, tl: Timeline, outer: tuple[str, ...],
                 a: LoopDim, b: LoopDim) -> LegalityInfo:
    inside = set(tl.positions[b.loop_id].statements)
    ids = (*outer, a.loop_id, b.loop_id)
    n = len(ids)
    blocking: list[Dependence] = []
    for d in deps.memory:
        if d.source.statement not in inside or d.sink.statement not in inside:
            continue
        if a.loop_id not in d.carried_by:
            continue
        deltas = tl.distance(d.relation, list(ids))
        conds = [f"d{k} = 0" for k in range(n - 2)] + [f"d{n - 2} > 0", f"d{n - 1} < 0"]
        if not deltas.intersect(_vector_set(deltas, n, conds)).is_empty():
            blocking.append(d)
    return _info(scop, INTERCHANGE, a, b, blocking,
                 "would run the sink before the source of a dependence with direction (<, >): ")


def _fusion(scop: Scop, deps: Dependences, tl: Timeline, outer: tuple[str, ...], x: Band,
            y: Band) -> LegalityInfo:
    a, b = x.dims[0], y.dims[0]
    first, second = set(statements(x)), set(statements(y))
    n = len(outer) + 1
    blocking: list[Dependence] = []
    for d in deps.memory:
        src, dst = d.source.statement, d.sink.statement
        if src not in first or dst not in second:
            continue
        ms = _time(scop, tl, src, outer, a)
        mt = _time(scop, tl, dst, outer, b)
        deltas = d.relation.apply_domain(ms).apply_range(mt).deltas()
        conds = [f"d{k} = 0" for k in range(n - 1)] + [f"d{n - 1} < 0"]
        if not deltas.intersect(_vector_set(deltas, n, conds)).is_empty():
            blocking.append(d)
    return _info(scop, FUSION, a, b, blocking, "would make a dependence backward: ")


def _time(scop: Scop, tl: Timeline, stmt: str, outer: tuple[str, ...], loop: LoopDim) -> isl.Map:
    s = scop.statement(stmt)
    exprs = (*(tl.loop_exprs(lp, stmt) for lp in outer), loop.expr(stmt))
    return isl_text.make_map(scop.params, stmt, s.iterators, "", exprs).intersect_domain(s.domain)


def _vector_set(like: isl.Set, n: int, conds: list[str]) -> isl.Set:
    params = tuple(names.param_names(like))
    dims = ", ".join(f"d{k}" for k in range(n))
    text = f"{isl_text.params_prefix(params)}{{ [{dims}] : {' and '.join(conds)} }}"
    return isl.Set.read_from_str(isl.DEFAULT_CONTEXT, text)


def _info(scop: Scop, kind: str, a: LoopDim, b: LoopDim, blocking: list[Dependence],
          why: str) -> LegalityInfo:
    labels = (_label(scop, a), _label(scop, b))
    reason = f"{why}{describe(scop, blocking[0])}" if blocking else ""
    return LegalityInfo(kind, labels, (a.loop_id, b.loop_id), not blocking, tuple(blocking), reason)


def _label(scop: Scop, d: LoopDim) -> str:
    return scop.loop_label(d.loop_id) if d.loop_id in scop.loops else d.name
