"""Why a sequential loop is sequential, in one sentence a person reads.

A verdict (:class:`~polyopt.analysis.verdicts.LoopVerdict`) names every dependence that
keeps a loop in order; the first of them, described as is, often says little (a
memory dependence on a scalar "carried by loop i, j" while ``i`` is parallel).  This
module picks the cause, in this order:

- a *recurrence*: a value written in one iteration is read by a later one (a
  value-based flow the loop carries, not a reduction's): ``x[i] = x[i - 1] + y[i]``;
- a *running value*: a reduction's accumulator is also read (or written) by another
  statement inside the loop, so every iteration needs the value so far and the loop
  is not a plain reduction: ``s += x[i]; y[i] = s``;
- a *reduced array read otherwise*: every dependence the loop carries is a
  reduction's, but the loop also reads (or writes) the reduced array elsewhere, which a
  copy of it per thread would hide: ``B[i, j] += A[k, i] * B[k, j]`` over ``k``;
- otherwise the *carried dependence* (anti, output, or a flow whose value is
  overwritten first) with its distance in this loop: ``A[i] = A[i + 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.analysis.dependences import Dependence, Dependences, DepKind
from polyopt.analysis.describe import access_text, dependence_info
from polyopt.analysis.verdicts import SEQUENTIAL, LoopVerdict
from polyopt.model.names import user_text
from polyopt.model.scop import Scop

RECURRENCE = "recurrence"
RUNNING_VALUE = "running value"
CARRIED = "carried dependence"
READ_OTHERWISE = "reduced array read otherwise"


@dataclass(frozen=True)
class Why:
    """The cause of a sequential loop: its ``kind`` (one of the three above), the
    ``sentence`` that says it, and the dependence it is about."""

    kind: str
    sentence: str
    dependence: Dependence


def why(scop: Scop, deps: Dependences, v: LoopVerdict) -> Why | None:
    """The cause of ``v``'s loop being sequential (None for a loop that is not)."""
    if v.kind != SEQUENTIAL or not v.blocking:
        return None
    loop = user_text(v.label)
    inside = {s.name for s in scop.statements if v.loop_id in s.loops}
    arrays = {d.array for d in v.blocking}
    for d in sorted((d for a in sorted(arrays) for d in deps.flow_on(a)), key=_steady):
        if (not d.reduction and d.carried_at(v.loop_id)
                and d.source.statement in inside and d.sink.statement in inside):
            return Why(RECURRENCE, _recurrence(scop, d, v.loop_id, loop), d)
    running = _running_value(scop, deps, v, inside, loop) or \
        _read_otherwise(scop, deps, v, inside, loop)
    if running is not None:
        return running
    d = min(v.blocking, key=lambda x: _distance(x, v.loop_id) is None)
    return Why(CARRIED, _carried(scop, d, v.loop_id, loop), d)


def _steady(d: Dependence) -> tuple[bool, str, str]:
    """Flows at a constant distance first, then in statement order (deterministic)."""
    return (not d.is_uniform, d.source.statement, d.sink.statement)


def _distance(d: Dependence, loop_id: str) -> int | None:
    if loop_id not in d.common_loops:
        return None
    return d.distance[d.common_loops.index(loop_id)]


def _later(d: Dependence, loop_id: str, loop: str) -> str:
    """When the sink runs after the source, in iterations of the loop."""
    k = _distance(d, loop_id)
    if k is None:
        return f"in a later iteration of {loop}"
    if k == 1:
        return f"one iteration of {loop} later (distance 1)"
    return f"{k} iterations of {loop} later (distance {k})"


def _at(scop: Scop, statement: str) -> str:
    return f"line {scop.statement(statement).location.line}"


def _recurrence(scop: Scop, d: Dependence, loop_id: str, loop: str) -> str:
    info = dependence_info(scop, d)
    return (f"a recurrence: the value written to {info.source_access} at {_at(scop, info.source)} "
            f"is read as {info.sink_access} at {_at(scop, info.sink)} "
            f"{_later(d, loop_id, loop)}")


def _running_value(scop: Scop, deps: Dependences, v: LoopVerdict, inside: set[str],
                   loop: str) -> Why | None:
    """A blocking dependence between a reduction into ``x`` in the loop and another
    statement of the loop that accesses ``x``."""
    for d in v.blocking:
        ends = (d.source.statement, d.sink.statement)
        reducers = [s for s in ends if s in inside and (r := deps.reductions.get(s)) is not None
                    and r.target == d.array]
        others = [s for s in ends if s not in reducers and s in inside]
        if not reducers or not others:
            continue
        other = scop.statement(others[0])
        used = "read" if any(a.target == d.array for a in other.reads) else "also written"
        name = user_text(d.array)
        return Why(RUNNING_VALUE, (
            f"a running value: {name} is accumulated at {_at(scop, reducers[0])} and {used} "
            f"at {_at(scop, other.name)} inside the loop, so each iteration of {loop} needs "
            f"the value so far (not a plain reduction)"), d)
    return None


def _read_otherwise(scop: Scop, deps: Dependences, v: LoopVerdict, inside: set[str],
                    loop: str) -> Why | None:
    """A loop that only reductions keep in order, whose reduced array (``copies_unsafe``)
    another access of the loop reads or writes."""
    if any(not d.reduction for d in v.blocking):
        return None
    for x in v.copies_unsafe:
        for stmt in sorted(inside):
            st = scop.statement(stmt)
            red = deps.reductions.get(stmt)
            for a in st.accesses:
                if a.target != x or (red is not None and red.target == x and (
                        a is st.write or a.relation.is_equal(st.write.relation))):
                    continue
                d = next((d for d in v.blocking if d.array == x), v.blocking[0])
                name = user_text(x)
                used = "writes" if a.is_write else "reads"
                return Why(READ_OTHERWISE, (
                    f"a reduction into {name} that also {used} {access_text(a.indices, x)} at "
                    f"{_at(scop, stmt)}: in parallel, each thread would reduce into its own "
                    f"copy of {name}, and that access would see the copy, not {name}"), d)
    return None


_KIND = {DepKind.FLOW: "flow (read after write)", DepKind.ANTI: "anti (write after read)",
         DepKind.OUTPUT: "output (write after write)"}
_ACTS = {  # kind -> (the source's access does, the sink's access does)
    DepKind.FLOW: ("written", "read"),
    DepKind.ANTI: ("read", "overwritten"),
    DepKind.OUTPUT: ("written", "written again"),
}


def _carried(scop: Scop, d: Dependence, loop_id: str, loop: str) -> str:
    info = dependence_info(scop, d)
    first, then = _ACTS[d.kind]
    return (f"the {_KIND[d.kind]} dependence on {info.array} carried by {loop}: "
            f"{info.source_access} {first} at {_at(scop, info.source)} is {then} as "
            f"{info.sink_access} at {_at(scop, info.sink)} {_later(d, loop_id, loop)}")
