"""Dependences in source terms: statements by line, loops by iterator name."""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.analysis.dependences import Dependence
from polyopt.model.aff import Lin, python_text
from polyopt.model.names import user_text
from polyopt.model.scop import Scop


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


def access_text(indices: tuple[Lin, ...], target: str) -> str:
    """An access as the user wrote it: ``C[i, j]``, or a scalar's name."""
    if not indices:
        return user_text(target)
    return user_text(f"{target}[{', '.join(python_text(i) for i in indices)}]")


def _labels(scop: Scop, loop_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Loop labels in the user's spelling (internal names: polyopt.model.names)."""
    return tuple(user_text(scop.loop_label(x)) for x in loop_ids)


def dependence_info(scop: Scop, d: Dependence) -> DependenceInfo:
    return DependenceInfo(
        kind=d.kind.value, value_based=d.value_based, source=d.source.statement,
        sink=d.sink.statement, source_access=access_text(d.source.indices, d.source.target),
        sink_access=access_text(d.sink.indices, d.sink.target), array=user_text(d.array),
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
    array = scop.arrays.get(d.array)
    made = f" ({array.origin})" if array is not None and array.origin else ""
    return (f"{kind} on {info.array}{made}: {info.source_access} at line {src.location.line} "
            f"`{src.source}` -> {info.sink_access} at line {dst.location.line} "
            f"`{dst.source}`{vec}{carried}")
