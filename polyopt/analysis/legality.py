"""Legality of a schedule: every dependence must still run source first.

A schedule tree θ is legal for the dependences D when, for every dependence
``s -> t`` in D, θ(s) is lexicographically before θ(t).  :func:`violations`
returns the dependences a tree breaks (as data), so errors can name them in
source terms: statement, line, array, distance, loop.

One exception keeps temporaries from pinning the loops around them: a local
scalar that the function does not return (``s`` below) is one register reused
by every iteration, so its anti and output dependences order nothing that
matters as long as each read still sees the write it read in the source.  The
memory dependences on such a scalar are waived when every value-based flow
dependence on it runs source first and no other write of it runs in between::

    for i in range(n):            # interchanging i and j, or tiling them, is legal:
        for j in range(m):        # each (i, j) iteration writes s before it reads it
            s = 0.0
            for k in range(p):
                s += A[i, k] * B[k, j]
            C[i, j] = s
"""

from __future__ import annotations

from collections.abc import Iterable

import islpy as isl

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.analysis.timeline import Timeline, timeline
from polyopt.model.errors import IllegalTransformationError
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import ArrayKind, Scop


def violations(scop: Scop, deps: Dependences, tree: Node,
               reorder_reductions: bool = False) -> list[Dependence]:
    """The memory-based dependences that ``tree`` would run sink first (or at once).

    Dependences are checked per statement pair, all of a pair's relations at once;
    only a pair that fails is examined dependence by dependence.  Dependences on a
    private scalar whose live ranges ``tree`` keeps apart are not violations, nor,
    with ``reorder_reductions``, those between updates of an exact reduction
    (:meth:`Dependences.reorderable`).
    """
    tl = timeline(scop, tree)
    broken: list[Dependence] = []
    for union, group in _pairs(deps, reorder_reductions):
        if not tl.respects(union):
            broken += [d for d in group if not tl.respects(d.relation)]
    return _unwaived(scop, deps, tl, broken)


def is_legal(scop: Scop, deps: Dependences, tree: Node,
             reorder_reductions: bool = False) -> bool:
    """Whether ``tree`` respects every dependence (stops at the first that fails); with
    ``reorder_reductions``, every dependence but those :meth:`Dependences.reorderable`."""
    tl = timeline(scop, tree)
    private: frozenset[str] | None = None  # needs the value-based flow: only when asked
    suspects: list[Dependence] = []
    for union, group in _pairs(deps, reorder_reductions):
        if not tl.respects(union):
            for d in group:
                if not tl.respects(d.relation):
                    if private is None:
                        private = private_scalars(scop, deps)
                    if d.array not in private:
                        return False
                    suspects.append(d)
    return not _unwaived(scop, deps, tl, suspects)


def _pairs(deps: Dependences, reorder_reductions: bool
           ) -> Iterable[tuple[isl.Map, tuple[Dependence, ...]]]:
    return (deps.ordered_by_pair if reorder_reductions else deps.memory_by_pair).values()


def private_scalars(scop: Scop, deps: Dependences) -> frozenset[str]:
    """Local scalars that live only inside the function (not returned) and whose every
    read sees a write of the function: their storage may be reused in any order that
    keeps live ranges apart."""
    if not scop.local_scalars:
        return frozenset()
    returned = scop.returns.name if scop.returns is not None else None
    uninitialized = {a.target for a in deps.uninitialized_reads}
    return frozenset(x for x in scop.local_scalars if x != returned and x not in uninitialized)


def _unwaived(scop: Scop, deps: Dependences, tl: Timeline,
              broken: list[Dependence]) -> list[Dependence]:
    """``broken`` without the dependences on private scalars whose live ranges stay apart."""
    private = private_scalars(scop, deps)
    kept_apart = {x for x in {d.array for d in broken} & private
                  if _live_ranges_apart(scop, deps, tl, x)}
    return [d for d in broken if d.array not in kept_apart]


def _live_ranges_apart(scop: Scop, deps: Dependences, tl: Timeline, scalar: str) -> bool:
    """Every read of ``scalar`` still runs after the write whose value it reads in the
    source, with no other write of ``scalar`` in between."""
    flows = [d.relation for d in deps.flow_on(scalar)]
    if not all(tl.respects(f) for f in flows):
        return False
    if not flows:
        return True
    writers = [s.name for s in scop.statements if s.target == scalar]
    readers = [s.name for s in scop.statements if any(r.target == scalar for r in s.reads)]
    at_w = _restricted(tl.schedule, scop, writers)
    at_r = _restricted(tl.schedule, scop, readers)
    # (w, r) such that some write w' of the scalar runs after w and before r
    between = at_w.lex_lt_union_map(at_w).apply_range(at_w.lex_lt_union_map(at_r))
    flow = isl.UnionMap.from_map(flows[0])
    for f in flows[1:]:
        flow = flow.union(isl.UnionMap.from_map(f))
    return flow.intersect(between).is_empty()


def _restricted(schedule: isl.UnionMap, scop: Scop, stmts: list[str]) -> isl.UnionMap:
    domain = isl.UnionSet.empty(scop.context.get_space())
    for name in stmts:
        domain = domain.union(isl.UnionSet.from_set(scop.statement(name).domain))
    return schedule.intersect_domain(domain)


def require_legal(scop: Scop, deps: Dependences, tree: Node, what: str,
                  reorder_reductions: bool = False) -> None:
    """Raise :class:`IllegalTransformationError` naming the first broken dependence."""
    broken = violations(scop, deps, tree, reorder_reductions)
    if broken:
        raise illegal(scop, what, broken)


def illegal(scop: Scop, what: str, broken: list[Dependence]) -> IllegalTransformationError:
    broken = user_arrays_first(scop, broken)
    lines = [f"{what} is illegal: it would reverse the {describe(scop, broken[0])}"]
    if len(broken) > 1:
        lines.append(f"({len(broken) - 1} more dependence(s) would be broken)")
    return IllegalTransformationError("\n".join(lines), tuple(broken))


def user_arrays_first(scop: Scop, deps: Iterable[Dependence]) -> list[Dependence]:
    """``deps``, those on arrays the function allocates (array code's ``tmp3`` among them)
    last: a message names the first, and the user wrote ``A[i] = A[i - 1] + ...``, a
    flow on ``A``, not the output dependence on the copy of its right-hand side."""
    return sorted(deps, key=lambda d: d.array in scop.arrays
                  and scop.arrays[d.array].kind is not ArrayKind.ARGUMENT)  # stable
