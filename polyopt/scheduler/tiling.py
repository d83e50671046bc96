"""Tiling of perfectly nested chains that carry reuse.

A chain of depth >= 2 is tiled when its band is permutable and some data is
reused across one of its outer loops, with sizes from a simple cache model
(:func:`polyopt.scheduler.cost_model.cache_tile_side`) or the user's ``tile=``::

    for i: for j:                        for i.tile: for j.tile:
        for k:                     ==>       for i in tile: for j in tile:
            C[i, j] += A[i, k] * B[k, j]         for k: C[i, j] += A[i, k] * B[k, j]

The point loops inside a tile are then reordered for stride.
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import is_legal
from polyopt.model.aff import block_size
from polyopt.model.errors import PolyoptError
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, loops
from polyopt.model.scop import Scop
from polyopt.scheduler.cost_model import cache_tile_side, reuse_spans, sweeps_rows
from polyopt.scheduler.loop_order import reorder_points
from polyopt.scheduler.nests import band_at, chains
from polyopt.transforms.fuse import distribute
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import chain, enclosing


def user_sizes(sizes: tuple[int, ...], n: int) -> list[int]:
    """The user's ``tile=`` sizes for ``n`` loops: the last one repeated as needed."""
    return (list(sizes) + [sizes[-1]] * n)[:n]


def tile_sizes(scop: Scop, dims: list[LoopDim], options: Options) -> list[int]:
    """The tile sizes of chain ``dims``: the user's, or square tiles from the cache model."""
    if isinstance(options.tile, tuple):
        return user_sizes(options.tile, len(dims))
    return [cache_tile_side(scop, len(dims))] * len(dims)


def tile_all(scop: Scop, deps: Dependences, tree: Node, options: Options) -> Node:
    """Tile every chain worth tiling, where tiling is legal."""
    for outer in chains(tree):
        dims = chain(tree, outer)
        if len(dims) < 2 or not _worth_tiling(scop, tree, dims) or _has_joint_band(tree, outer):
            continue
        if any(not isinstance(x, str) for d in dims for _, e in d.exprs for x, _ in e.terms):
            continue  # already tiled
        sizes = _inherited_sizes(tree, dims, tile_sizes(scop, dims, options))
        try:
            cand = tile(scop, None, tree, [d.loop_id for d in dims], sizes)
        except PolyoptError:
            continue
        if not is_legal(scop, deps, cand):
            continue
        tree = reorder_points(scop, deps, cand, dims)
        innermost = chain(tree, dims[0].loop_id)[-1]
        tree = _reorder_below(scop, deps, tree, innermost.loop_id)
    return tree


def _worth_tiling(scop: Scop, tree: Node, dims: list[LoopDim]) -> bool:
    """Tiling the chain pays: data reused across one of its outer loops (temporal
    reuse), or a statement that sweeps an array across its rows innermost (mvt's
    ``A[i, j]`` under ``j, i``), which a tile's point loops reorder.

    Except an outermost chain whose reuse is only of vectors (each reused access spans
    one of the loops inside): a vector stays in cache untiled, and tiles would cut the
    rows that the inner loops sweep whole (gemver's fused ``for i: for j: {A[i, j] +=
    ...; x[j] += beta * A[i, j] * y[i]}``).  Deeper in a nest, tiles still help:
    doitgen's ``for s: for p: sum_[p] += A[r, q, s] * C4[s, p]`` inside ``r, q``, whose
    stores to ``sum_`` and loads of ``C4`` collide on 4 KiB aliasing when untiled."""
    last = dims[-1]
    if any(sweeps_rows(scop, last, stmt) for stmt, _ in last.exprs):
        return True
    spans = reuse_spans(scop, tree, dims)
    return bool(spans) and (max(spans) >= 2 or bool(enclosing(tree, dims[0].loop_id)))


def _has_joint_band(tree: Node, outer: str) -> bool:
    """A band of the chain at ``outer`` holds several loops: one that register tiling
    built as a unit (packing's copy loops), not a nest to tile again."""
    node: Node = band_at(tree, outer)
    while isinstance(node, Band):
        if len(node.dims) > 1:
            return True
        node = node.child
    return False


def _inherited_sizes(tree: Node, dims: list[LoopDim], sizes: list[int]) -> list[int]:
    """``sizes``, but a loop that an enclosing tile loop already cuts into tiles (the
    shared row tiles of tile-level fusion, :mod:`polyopt.scheduler.register_tiling`)
    keeps that tile size: its own tile loop then runs once per enclosing tile, and isl
    emits none."""
    above = enclosing(tree, dims[0].loop_id)
    out = list(sizes)
    for k, d in enumerate(dims):
        for a in above:
            size = {block_size(a.expr(s), e) for s, e in d.exprs}
            if len(size) == 1 and None not in size and 1 not in size:
                out[k] = _only(size)
    return out


def _only(sizes: set[int | None]) -> int:
    size = sizes.pop()
    assert size is not None
    return size


def _reorder_below(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> Node:
    """The innermost point loop of a tile around an imperfect body: distribute it when a
    part then runs a better order.  symm's tile of ``i, j`` runs ``temp2[i, j] = 0;
    for k: {C[k, j] += ...; temp2[i, j] += B[k, j] * ...}; C[i, j] = ...``; the middle
    part runs ``k, j``: unit stride in ``j`` instead of ``n``."""
    band = band_at(tree, loop_id)
    if not isinstance(band.child, Sequence) or not any(
            isinstance(c, Band) for c in band.child.children):
        return tree
    try:
        cand = distribute(scop, None, tree, loop_id)
    except PolyoptError:
        return tree
    improved = False
    for dim, _ in list(loops(cand)):
        if dim.loop_id != loop_id and not dim.loop_id.startswith(f"{loop_id}."):
            continue
        part = chain(cand, dim.loop_id)
        if len(part) < 2:
            continue
        new = reorder_points(scop, deps, cand, part)
        if new is not cand:
            cand, improved = new, True
    return cand if improved and is_legal(scop, deps, cand) else tree
