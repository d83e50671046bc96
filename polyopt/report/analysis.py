"""Dependence reports in source terms: statements by line, loops by iterator name.

:func:`analysis` gathers the data (:class:`Analysis`, plain dataclasses that
other tools can consume); :func:`text_report` prints it as readable tables.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.describe import DependenceInfo, _labels, dependence_info, describe
from polyopt.analysis.verdicts import (
    PARALLEL,
    REDUCTION,
    LoopVerdict,
    owned_arrays,
    var_name,
    verdicts,
)
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import Node, loops
from polyopt.model.scop import Scop
from polyopt.report.groups import ScalarGroup
from polyopt.report.groups import rows as dependence_rows
from polyopt.report.reasons import why


@dataclass(frozen=True)
class StatementInfo:
    name: str
    line: int
    source: str
    loops: tuple[str, ...]  # enclosing loops, as labels


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
    why: str = ""  # why it is sequential, in one sentence (polyopt.report.reasons)
    why_kind: str = ""  # one of polyopt.report.reasons' kinds ("" for a loop not sequential)


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


def analysis(scop: Scop, deps: Dependences, tree: Node | None = None) -> Analysis:
    tree = scop.schedule if tree is None else tree
    v = verdicts(scop, deps, tree)
    stmts = tuple(
        StatementInfo(s.name, s.location.line, s.source, _labels(scop, s.loops))
        for s in scop.statements
    )
    dep_infos = tuple(dependence_info(scop, d) for d in deps.all)
    loop_infos = tuple(_loop_info(scop, deps, _without_owned(scop, deps, tree, v[d.loop_id]),
                                  d.loop_id) for d, _ in loops(tree))
    return Analysis(user_text(scop.name), scop.filename, stmts, dep_infos, loop_infos)


def _without_owned(scop: Scop, deps: Dependences, tree: Node, v: LoopVerdict) -> LoopVerdict:
    """``v`` blocked only by the arrays no iteration could own: the others' dependences
    are not why the loop is sequential."""
    owned = owned_arrays(scop, deps, tree, v)
    blocking = tuple(d for d in v.blocking if d.array not in owned)
    return replace(v, blocking=blocking) if owned and blocking else v


def _loop_info(scop: Scop, deps: Dependences, v: LoopVerdict, loop_id: str) -> LoopInfo:
    line = scop.loops[loop_id].location.line if loop_id in scop.loops else None
    cause = why(scop, deps, v)
    reason = describe(scop, cause.dependence) if cause is not None else ""
    return LoopInfo(
        id=loop_id, label=user_text(v.label), line=line, verdict=v.kind,
        vectorizable=v.vectorizable,
        reductions=tuple((op, user_text(var_name(var))) for op, var in v.reductions),
        # a firstprivate scalar is private too, each copy starting from the value before
        # the loop (`t = 0.0; for i: if i > 2: t = x[i]; y[i] = t`)
        private=tuple(user_text(x) for x in (*v.private, *v.firstprivate)), reason=reason,
        blocking=tuple(dependence_info(scop, d) for d in v.blocking),
        private_arrays=tuple(user_text(x) for x in v.private_arrays),
        why=cause.sentence if cause is not None else "",
        why_kind=cause.kind if cause is not None else "",
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
        if lp.why:
            out.append(f"      {lp.why}")
    out.append("")
    out.append("Dependences")
    header = f"  {'kind':<7} {'exact':<6} {'source':<22} {'sink':<22} {'carried by':<12} distance"
    out.append(header)
    for row in dependence_rows(a.dependences):
        if isinstance(row, ScalarGroup):
            out.append(f"  {row.scalar} (scalar): {row.summary}")
            continue
        d = row[1]
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
