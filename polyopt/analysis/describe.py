"""Dependences in source terms: statements by line, loops by iterator name."""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.analysis.dependences import Dependence
from polyopt.analysis.timeline import timeline
from polyopt.model.aff import Lin, python_text
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import Node, loops
from polyopt.model.scop import Scop, loop_label


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


def _tree_labels(scop: Scop, tree: Node, loop_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Labels of loops of a transformed schedule (``i.tile``, ``j#2``)."""
    dims = {dim.loop_id: dim for dim, _ in loops(tree)}
    return tuple(user_text(loop_label(scop, dims[x])) for x in loop_ids)


def dependence_info(scop: Scop, d: Dependence, tree: Node | None = None) -> DependenceInfo:
    """``d`` in source terms; its loops those of ``tree`` where given (a transformed
    schedule, which ``d`` must have been seen in: :meth:`Dependence.seen_in`)."""
    labels = _labels if tree is None else (lambda s, ids: _tree_labels(s, tree, ids))
    return DependenceInfo(
        kind=d.kind.value, value_based=d.value_based, source=d.source.statement,
        sink=d.sink.statement, source_access=access_text(d.source.indices, d.source.target),
        sink_access=access_text(d.sink.indices, d.sink.target), array=user_text(d.array),
        carried_by=labels(scop, d.carried_by), loops=labels(scop, d.common_loops),
        distance=d.distance, direction=d.direction, reduction=d.reduction,
        relation=str(d.relation), dependence=d,
    )


def describe(scop: Scop, d: Dependence, tree: Node | None = None) -> str:
    """One dependence in a sentence, in source terms: its distance and the loops that
    carry it in the source order, or in ``tree`` where given (what a transformed
    schedule's loop carries, as a refusal to run that loop in parallel must say)."""
    if tree is not None:
        d = d.seen_in(timeline(scop, tree))
    info = dependence_info(scop, d, tree)
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
