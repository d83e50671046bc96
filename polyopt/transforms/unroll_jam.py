"""Unroll-and-jam (register tiling): unroll an outer loop and fuse the copies
into the innermost loop, so each loaded value is used several times.

Before ``unroll_jam("i", 2)``::              After::

    for i in range(n):                        for i.uj in range(ceil(n/2)):
        for k in range(m):                        for k in range(m):
            for j in range(p):                        for j in range(p):
                S(i, k, j)                                S(2*i.uj, k, j)
                                                          S(2*i.uj + 1, k, j)   # if < n

It is strip-mining ``i`` by the factor, sinking the point loop below every
inner loop of the chain and unrolling it; legal when that reordering is.
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import require_legal
from polyopt.model import isl_text
from polyopt.model.aff import block_size
from polyopt.model.errors import PolyoptError
from polyopt.model.names import dim_bounds
from polyopt.model.options import MAX_UNROLL_COPIES, MAX_UNROLL_FACTOR
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, LoopMark, Node, Sequence
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.tile import refuse_strided, tile_dim
from polyopt.transforms.tree import (
    below_chain,
    build_chain,
    chain,
    find,
    fresh,
    refuse_unrolled,
    replace_at,
    taken_ids,
    taken_labels,
)


def unroll_jam(scop: Scop, deps: Dependences | None, tree: Node, loop: str, factor: int,
               label: str) -> Node:
    """Unroll ``loop`` (an id) by ``factor`` and jam the copies below its inner loops; the
    new outer loop gets the id ``<id>.uj`` and the label ``label``."""
    if isinstance(factor, bool) or not isinstance(factor, int):
        raise PolyoptError(f"the unroll-and-jam factor must be an int, not {factor!r}")
    if factor < 2:
        raise PolyoptError("the unroll-and-jam factor must be at least 2")
    refuse_unrolled(scop, tree, [loop], "unroll-and-jam")
    dims = chain(tree, loop)
    head = dims[0]
    extent = loop_extent(scop, head)
    if extent is not None and factor > extent:
        factor = max(extent, 2)  # every iteration in one strip: no more copies are needed
    if factor > MAX_UNROLL_FACTOR:
        raise PolyoptError(
            f"the unroll-and-jam factor {factor} of loop {loop_label(scop, head)} is larger than "
            f"the maximum, {MAX_UNROLL_FACTOR} (the factor is the number of copies of the loop "
            "body written out; a factor above a loop's constant trip count is clamped to it)")
    if len(dims) < 2:
        raise PolyoptError(f"loop {loop_label(scop, head)} has no perfectly nested inner loop to "
                           "jam into")
    refuse_strided(scop, [head], "unroll-and-jam")
    outer = tile_dim(head, factor, fresh(label, taken_labels(scop, tree)),
                     fresh(f"{head.loop_id}.uj", taken_ids(tree)))
    point = replace(head, mark=LoopMark(unroll=True))
    new = build_chain([outer, *dims[1:], point], below_chain(tree, loop))
    result = replace_at(tree, find(tree, loop), new)
    most = max(body_copies(result).values(), default=1)
    if most > MAX_UNROLL_COPIES:
        raise PolyoptError(
            f"unroll-and-jam of loop {loop_label(scop, head)} by {factor} would write out "
            f"{most} copies of a statement, with the unroll-and-jams around it; the most is "
            f"{MAX_UNROLL_COPIES}")
    if deps is not None:
        require_legal(scop, deps, result,
                      f"unroll-and-jam of loop {loop_label(scop, head)} by {factor}")
    return result


def body_copies(tree: Node) -> dict[str, int]:
    """How many copies of each statement the fully unrolled loops around it write out:
    the product of their trip counts, each the block size of the nearest loop above it
    that runs over blocks of its values (the loop it was strip-mined from)."""
    out: dict[str, int] = {}

    def walk(node: Node, above: tuple[LoopDim, ...]) -> None:
        if isinstance(node, Leaf):
            out[node.stmt] = _copies(node.stmt, above)
        elif isinstance(node, Band):
            walk(node.child, (*above, *node.dims))
        elif isinstance(node, Sequence):
            for c in node.children:
                walk(c, above)

    walk(tree, ())
    return out


def _copies(stmt: str, dims: tuple[LoopDim, ...]) -> int:
    total = 1
    for k, d in enumerate(dims):
        e = dict(d.exprs).get(stmt)
        if not d.mark.unroll or e is None:
            continue
        for outer in reversed(dims[:k]):
            oe = dict(outer.exprs).get(stmt)
            size = None if oe is None else block_size(oe, e)
            if size is not None and size > 1:
                total *= size
                break
    return total


def loop_extent(scop: Scop, dim: LoopDim) -> int | None:
    """How many values ``dim`` takes over its statements' domains, when that is a
    constant (None when it depends on the sizes)."""
    lo: int | None = None
    hi: int | None = None
    known = {s.name: s for s in scop.statements}
    for stmt, e in dim.exprs:
        s = known.get(stmt)
        if s is None:  # a statement a transformation made: no domain to measure
            return None
        values = isl_text.make_map(scop.params, stmt, s.iterators, "v", (e,)) \
            .intersect_domain(s.domain).range()
        if values.is_empty():
            continue
        a, b = dim_bounds(values, 0)
        if a is None or b is None:
            return None
        lo = a if lo is None else min(lo, a)
        hi = b if hi is None else max(hi, b)
    return None if lo is None or hi is None else hi - lo + 1
