"""Loops that isl peels: their first or last instances run outside the ``for``.

isl peels statement instances that only run on the first or last iteration
(``if i == 0: t = ...``) out of the loop::

    t = x[0];                          // peeled: before the loop, on one thread
    #pragma omp parallel for firstprivate(t) lastprivate(t)
    for (c0 = 1; c0 < n; c0 += 1) ...

They run outside any OpenMP region, on the shared variables, so the loop's
private scalars must carry their values in and out.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import islpy as isl
from polyopt.backend_c.isl_ast import NodeKind, block_children, node_kind

from polyopt.model.schedule_tree import LoopMark


def runs_outside_loops(node: isl.AstNode) -> bool:
    """Whether the AST under a loop's mark runs statements outside its ``for`` loops."""
    kind = node_kind(node)
    if kind is NodeKind.FOR:
        return bool(node.for_is_degenerate())
    if kind is NodeKind.BLOCK:
        return any(runs_outside_loops(c) for c in block_children(node))
    if kind is NodeKind.IF:
        return runs_outside_loops(node.if_get_then_node()) or bool(
            node.if_has_else_node() and runs_outside_loops(node.if_get_else_node()))
    if kind is NodeKind.MARK:
        return runs_outside_loops(node.mark_get_node())
    return True


@dataclass(frozen=True)
class PeeledMark(LoopMark):
    """The mark of a loop isl peeled (:func:`runs_outside_loops`).

    A scalar private to each iteration may then be written by a peeled instance
    before the loop and read inside it (``firstprivate``), or written inside and read
    by a peeled instance after it (``lastprivate``: the sequentially last iteration's
    value, the only one such an instance can read)."""

    lastprivate: tuple[str, ...] = ()


def peeled(mark: LoopMark) -> LoopMark:
    """``mark`` made correct for a peeled loop."""
    local = tuple(dict.fromkeys((*mark.private, *mark.firstprivate)))
    if not local:
        return mark
    same = {f.name: getattr(mark, f.name) for f in fields(LoopMark)}
    # no `simd`: it has no firstprivate, and its lastprivate would give each vector
    # lane an uninitialized copy
    if not mark.parallel:
        return LoopMark(**{**same, "simd": False, "private": (), "reductions": ()})
    return PeeledMark(**{**same, "simd": False, "private": (), "firstprivate": local},
                      lastprivate=local)
