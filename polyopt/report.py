"""Dependence reports in source terms: statements by line, loops by iterator name.

:func:`analysis` gathers the data (:class:`Analysis`, plain dataclasses that
other tools can consume); :func:`text_report` prints it as readable tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.aff import Lin, python_text
from polyopt.deps import Dependence, Dependences
from polyopt.model import Scop
from polyopt.names import user_text
from polyopt.parallel import PARALLEL, REDUCTION, LoopVerdict, verdicts
from polyopt.schedule_tree import Node, loops


@dataclass(frozen=True)
class StatementInfo:
    name: str
    line: int
    source: str
    loops: tuple[str, ...]  # enclosing loops, as labels


@dataclass(frozen=True)
class DependenceInfo:
    kind: str  # "flow", "anti", "output"
    value_based: bool
    source: str  # statement name
    sink: str
    source_access: str  # e.g. "C[i, j]"
    sink_access: str
    array: str
    carried_by: tuple[str, ...]  # loop labels; () for loop-independent
    loops: tuple[str, ...]  # the common loops the vectors refer to
    distance: tuple[int | None, ...]
    direction: tuple[str, ...]
    reduction: bool
    relation: str
    dependence: Dependence  # the underlying object


@dataclass(frozen=True)
class LoopInfo:
    id: str
    label: str
    line: int | None
    verdict: str  # "parallel", "reduction", "sequential"
    vectorizable: bool
    reductions: tuple[tuple[str, str], ...]
    private: tuple[str, ...]
    reason: str  # why it is sequential, in source terms ("" otherwise)
    blocking: tuple[DependenceInfo, ...]
    private_arrays: tuple[str, ...] = ()  # scratch arrays each thread works on a copy of


@dataclass(frozen=True)
class Analysis:
    function: str
    filename: str
    statements: tuple[StatementInfo, ...]
    dependences: tuple[DependenceInfo, ...]
    loops: tuple[LoopInfo, ...]

    def loop(self, label: str) -> LoopInfo:
        for lp in self.loops:
            if lp.label == label:
                return lp
        raise KeyError(f"no loop {label!r} (loops: {', '.join(x.label for x in self.loops)})")


def _access_text(indices: tuple[Lin, ...], target: str) -> str:
    if not indices:
        return user_text(target)
    return user_text(f"{target}[{', '.join(python_text(i) for i in indices)}]")


def _labels(scop: Scop, loop_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Loop labels in the user's spelling (internal names: polyopt.names)."""
    return tuple(user_text(scop.loop_label(x)) for x in loop_ids)


def dependence_info(scop: Scop, d: Dependence) -> DependenceInfo:
    return DependenceInfo(
        kind=d.kind.value, value_based=d.value_based, source=d.source.statement,
        sink=d.sink.statement, source_access=_access_text(d.source.indices, d.source.target),
        sink_access=_access_text(d.sink.indices, d.sink.target), array=user_text(d.array),
        carried_by=_labels(scop, d.carried_by), loops=_labels(scop, d.common_loops),
        distance=d.distance, direction=d.direction, reduction=d.reduction,
        relation=str(d.relation), dependence=d,
    )


def describe(scop: Scop, d: Dependence) -> str:
    """One dependence in a sentence, in source terms."""
    info = dependence_info(scop, d)
    src, dst = scop.statement(info.source), scop.statement(info.sink)
    kind = {"flow": "flow (read after write)", "anti": "anti (write after read)",
            "output": "output (write after write)"}[info.kind]
    vec = ""
    if info.loops:
        parts = [
            f"{lp}: {dist if dist is not None else dirn}"
            for lp, dist, dirn in zip(info.loops, info.distance, info.direction, strict=True)
        ]
        vec = f", distance ({', '.join(parts)})"
    carried = f", carried by loop {', '.join(info.carried_by)}" if info.carried_by else ", loop-independent"
    return (f"{kind} on {info.array}: {info.source_access} at line {src.location.line} "
            f"`{src.source}` -> {info.sink_access} at line {dst.location.line} "
            f"`{dst.source}`{vec}{carried}")


def analysis(scop: Scop, deps: Dependences, tree: Node | None = None) -> Analysis:
    tree = scop.schedule if tree is None else tree
    v = verdicts(scop, deps, tree)
    stmts = tuple(
        StatementInfo(s.name, s.location.line, s.source, _labels(scop, s.loops))
        for s in scop.statements
    )
    dep_infos = tuple(dependence_info(scop, d) for d in deps.all)
    loop_infos = tuple(_loop_info(scop, v[d.loop_id], d.loop_id) for d, _ in loops(tree))
    return Analysis(user_text(scop.name), scop.filename, stmts, dep_infos, loop_infos)


def _loop_info(scop: Scop, v: LoopVerdict, loop_id: str) -> LoopInfo:
    line = scop.loops[loop_id].location.line if loop_id in scop.loops else None
    reason = ""
    if v.blocking:
        reason = describe(scop, v.blocking[0])
    return LoopInfo(
        id=loop_id, label=user_text(v.label), line=line, verdict=v.kind,
        vectorizable=v.vectorizable,
        reductions=tuple((op, user_text(var.removeprefix("[array]"))) for op, var in v.reductions),
        private=tuple(user_text(x) for x in v.private), reason=reason,
        blocking=tuple(dependence_info(scop, d) for d in v.blocking),
        private_arrays=tuple(user_text(x) for x in v.private_arrays),
    )


def text_report(a: Analysis) -> str:
    out: list[str] = [f"polyopt dependence report: {a.function}() in {a.filename}", ""]
    out.append("Statements")
    for s in a.statements:
        where = f" in loops {', '.join(s.loops)}" if s.loops else ""
        out.append(f"  {s.name}  line {s.line}: {s.source}{where}")
    out.append("")
    out.append("Loops")
    for lp in a.loops:
        line = f" (line {lp.line})" if lp.line else ""
        if lp.verdict == PARALLEL:
            what = "parallel"
        elif lp.verdict == REDUCTION:
            ops = ", ".join(f"{op}:{var}" for op, var in lp.reductions)
            what = f"parallel as a reduction ({ops})"
        else:
            what = "sequential"
        if lp.vectorizable:
            what += ", vectorizable"
        if lp.private:
            what += f"; private: {', '.join(lp.private)}"
        if lp.private_arrays:
            what += (f"; private arrays: {', '.join(lp.private_arrays)} (a copy per thread; "
                     "the last iteration's copy is the final value)")
        out.append(f"  {lp.label}{line}: {what}")
        if lp.reason:
            out.append(f"      because of {lp.reason}")
    out.append("")
    out.append("Dependences")
    header = f"  {'kind':<7} {'exact':<6} {'source':<22} {'sink':<22} {'carried by':<12} distance"
    out.append(header)
    for d in a.dependences:
        kind = {"flow": "RAW", "anti": "WAR", "output": "WAW"}[d.kind]
        exact = "value" if d.value_based else "memory"
        carried = ",".join(d.carried_by) or "-"
        vec = "(" + ", ".join(
            str(x) if x is not None else y for x, y in zip(d.distance, d.direction, strict=True)) + ")"
        red = "  [reduction]" if d.reduction else ""
        src = f"{d.source}:{d.source_access}"
        dst = f"{d.sink}:{d.sink_access}"
        out.append(f"  {kind:<7} {exact:<6} {src:<22} {dst:<22} {carried:<12} {vec}{red}")
    return "\n".join(out) + "\n"
