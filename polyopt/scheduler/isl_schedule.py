"""isl's Pluto-style scheduler, as a source of skewed permutable bands.

:func:`isl_schedule` asks isl for a schedule of some statements that respects
their memory dependences and converts isl's schedule tree into our
:mod:`polyopt.model.schedule_tree`, so that tiling, legality checks and OpenMP marks
stay ours.  For jacobi-2d it finds the classic band ``(t, 2t + i, 2t + j)``.
"""

from __future__ import annotations

import islpy as isl

from polyopt.analysis.dependences import Dependences
from polyopt.model import forked, names
from polyopt.model.aff import Lin
from polyopt.model.errors import TooComplexError
from polyopt.model.isl_budget import (
    ISL_SCHEDULER_OPS,
    ISL_SCHEDULER_QUICK_OPS,
    ISL_SCHEDULER_SECONDS,
    budget,
)
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, Node, Sequence
from polyopt.model.scop import Scop

_T = isl.schedule_node_type


class Unconvertible(Exception):
    """isl's schedule uses something our trees do not express (divisions, marks)."""


def isl_schedule(scop: Scop, deps: Dependences, stmts: list[str], prefix: str) -> Node | None:
    """A schedule for ``stmts`` from isl's scheduler, or None when isl gives none we can use."""
    # statements that never run (for sizes >= 0), decided here: isl leaves out of its
    # schedule the empty domains it happens to know are empty, and whether it knows
    # depends on what was asked of the same (cached) isl objects before, in this process
    # (fuzz finding 025); a domain empty only under the context is in isl's domain but
    # in none of its bands and filters (finding 026)
    dead = [s for s in stmts
            if scop.statement(s).domain.intersect_params(scop.context).is_empty()]
    wanted = set(stmts) - set(dead)
    domain = isl.UnionSet.empty(scop.context.get_space())
    for s in scop.statements:
        if s.name in wanted:
            domain = domain.union(isl.UnionSet.from_set(s.domain))
    validity = isl.UnionMap.empty(scop.context.get_space())
    for d in deps.memory:
        if d.source.statement in wanted and d.sink.statement in wanted:
            validity = validity.union(isl.UnionMap.from_map(d.relation))
    sc = isl.ScheduleConstraints.on_domain(domain).set_context(scop.context)
    sc = sc.set_validity(validity).set_proximity(validity).set_coincidence(validity)
    sched = _compute(sc, ISL_SCHEDULER_SECONDS)
    if sched is None:
        return None
    live = {st.get_tuple_name() for st in names.sets_of(sched.get_domain())}
    if not live or live != wanted:
        return None
    counter = [0]
    try:
        return _convert(scop, sched.get_root().child(0), stmts, prefix, counter, dead)
    except Unconvertible:
        return None


def _compute_here(sc: isl.ScheduleConstraints, ops: int) -> isl.Schedule | None:
    """isl's schedule, or None when it finds none ("unable to carry dependences");
    :class:`TooComplexError` past ``ops`` operations."""
    try:
        with budget(ops, "isl's scheduler"):
            return sc.compute_schedule()
    except isl.Error:
        return None


def _compute(sc: isl.ScheduleConstraints, seconds: float) -> isl.Schedule | None:
    """isl's schedule for ``sc`` within ``seconds`` of wall time, or None: the caller
    then keeps its own schedule.

    A search that outgrows a quick first try runs in a forked child
    (:mod:`polyopt.model.forked`), killed at the deadline; the schedule comes back as
    isl's text.  Without ``fork`` it runs here, bounded by its operation count alone."""
    try:
        return _compute_here(sc, ISL_SCHEDULER_QUICK_OPS)
    except TooComplexError:
        pass
    if not forked.available():
        return _bounded_here(sc)

    def text() -> bytes:
        sched = _bounded_here(sc)
        return b"" if sched is None else str(sched).encode()

    found = forked.run(text, seconds)
    if not found:  # past the deadline, or no schedule
        return None
    return isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, found.decode())


def _bounded_here(sc: isl.ScheduleConstraints) -> isl.Schedule | None:
    try:
        return _compute_here(sc, ISL_SCHEDULER_OPS)
    except TooComplexError:
        return None


def _convert(scop: Scop, node: isl.ScheduleNode, order: list[str], prefix: str,
             counter: list[int], dead: list[str]) -> Node:
    """``dead``: statements that never run (an empty domain), which isl's schedule
    leaves out; they ride along with the first part of every sequence, at time 0."""
    t = _T(node.get_type())  # the stubs say int; islpy returns the enum
    if t == _T.leaf:
        leaves: list[Node] = [Leaf(s) for s in order]
        return leaves[0] if len(leaves) == 1 else Sequence(tuple(leaves))
    if t == _T.band:
        child = _convert(scop, node.child(0), order, prefix, counter, dead)
        for upa in reversed(names.band_members(node)):
            child = Band((_dim(scop, upa, order, prefix, counter),), child)
        return child
    if t in (_T.sequence, _T.set):
        parts: list[Node] = []
        for f in names.children(node):
            kept = {s.get_tuple_name() for s in names.sets_of(f.filter_get_filter())}
            if not parts:
                kept |= set(dead)
            sub = [s for s in order if s in kept]
            if sub:
                parts.append(_convert(scop, f.child(0), sub, prefix, counter, dead))
        return parts[0] if len(parts) == 1 else Sequence(tuple(parts))
    if t == _T.filter:
        return _convert(scop, node.child(0), order, prefix, counter, dead)
    raise Unconvertible(str(t))


def _dim(scop: Scop, upa: isl.UnionPwAff, order: list[str], prefix: str,
         counter: list[int]) -> LoopDim:
    exprs: dict[str, Lin] = {}
    for pa in names.union_pw_aff_parts(upa):
        stmt = names.pw_aff_tuple_name(pa)
        if stmt not in order:
            continue
        pieces = names.pw_aff_pieces(pa)
        if len(pieces) != 1:
            raise Unconvertible("piecewise schedule")
        terms = names.aff_terms(pieces[0], scop.statement(stmt).iterators)
        if terms is None:
            raise Unconvertible("schedule with divisions")
        coeffs, const = terms
        exprs[stmt] = Lin(tuple(coeffs.items()), const)
    if not exprs:
        raise Unconvertible("a band over statements that never run")
    label = _label(next(exprs[s] for s in order if s in exprs))
    counter[0] += 1
    never = Lin((), 0)  # a statement with an empty domain: any time will do
    return LoopDim(f"{prefix}.s{counter[0]}", label,
                   tuple((s, exprs.get(s, never)) for s in order), label=label)


def _label(e: Lin) -> str:
    """A readable name for a schedule dimension: ``t``, or ``2t+i`` when skewed."""
    parts = [f"{c}{a}" if c not in (1, -1) else ("-" if c == -1 else "") + str(a)
             for a, c in e.terms]
    return "+".join(parts).replace("+-", "-") or str(e.const)
