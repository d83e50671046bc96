"""Time tiling of stencils: skewed tiles run as a parallel wavefront.

A sequential time loop around a deeper nest (jacobi-2d) is rescheduled by isl's
scheduler into a permutable band, the classic ``(t, 2t + i, 2t + j)``; its two
outer dimensions are tiled and the tiles run as a wavefront, whose inner loop
over tiles is parallel::

    for t:                                 for w (wavefront):          # sequential
        for i: B[i] = A[i-1] + A[i+1]  ==>     for tile on w:          # parallel
        for i: A[i] = B[i]                         for t, 2t + i in the tile: ...
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import is_legal
from polyopt.analysis.verdicts import LoopKind, loop_verdict
from polyopt.model.errors import PolyoptError
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, loops, statements
from polyopt.model.scop import Scop
from polyopt.scheduler.isl_schedule import isl_schedule
from polyopt.scheduler.nests import chains, loops_around
from polyopt.scheduler.tiling import user_sizes
from polyopt.transforms.align import align, parallel_alignment
from polyopt.transforms.fuse import distribute
from polyopt.transforms.skew import wavefront
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import Path, at, find, normalize, replace_at

TIME_TILE = (16, 32)  # time steps x rows per tile


def time_tile_sizes(options: Options) -> tuple[int, int]:
    """(time steps, rows) of a time tile: ``TIME_TILE``, or the first two of the user's
    ``tile=`` sizes (the last one repeated, as for other bands)."""
    if isinstance(options.tile, tuple):
        steps, rows = user_sizes(options.tile, 2)
        return steps, rows
    return TIME_TILE


def time_tile_all(scop: Scop, deps: Dependences, tree: Node, sizes: tuple[int, int]) -> Node:
    """Stencils: a sequential outer loop around a deeper nest is rescheduled by isl's
    scheduler into a skewed permutable band, tiled on its two outer dimensions by
    ``sizes``, and run as a wavefront of tiles; inner loops are distributed so each
    statement vectorizes."""
    for outer in chains(tree):
        path_loops = [d for d, _ in loops(tree)]
        if outer not in {d.loop_id for d in path_loops}:
            continue
        if loop_verdict(scop, deps, tree, outer).kind is not LoopKind.SEQUENTIAL:
            continue
        sub_path = find(tree, outer)
        sub = at(tree, sub_path)
        depth = max(len(loops_around(sub, name)) for name in statements(sub))
        if not 2 <= depth <= 3 or _scalar_deep(scop, sub):
            continue
        cand = _time_tiled(scop, deps, tree, sub_path, sub, sizes)
        if cand is not None:
            tree = cand
    return tree


def _scalar_deep(scop: Scop, sub: Node) -> bool:
    """A statement inside two loops of ``sub`` writes a local scalar.  Every instance
    writes one location, so no band of two of those loops is permutable, and isl's
    scheduler can spend tens of seconds proving there is none."""
    return any(len(loops_around(sub, name)) >= 2 and not st.indices
               and st.target in scop.local_scalars
               for name in statements(sub) for st in [scop.statement(name)])


def _time_tiled(scop: Scop, deps: Dependences, tree: Node, path: Path, sub: Node,
                sizes: tuple[int, int]) -> Node | None:
    stmts = statements(sub)
    new = isl_schedule(scop, deps, stmts, prefix=f"{stmts[0]}.band")
    if new is None:
        return None
    dims: list[LoopDim] = []
    node = new
    while isinstance(node, Band):
        dims += node.dims
        node = node.child
    if len(dims) != 3:
        # time and two space dimensions: a time tile covers rows of the last one
        # whole, a working set that grows like N.  With two whole space dimensions
        # (heat-3d) it grows like N^2 and leaves every cache: time_tile_all does not
        # ask isl for a nest four loops deep
        return None
    cand = normalize(replace_at(tree, path, new))
    if not is_legal(scop, deps, cand):
        return None
    try:
        cand = tile(scop, None, cand, [dims[0].loop_id, dims[1].loop_id], list(sizes))
        cand = wavefront(scop, None, cand, f"{dims[0].loop_id}.tile", f"{dims[1].loop_id}.tile")
    except PolyoptError:
        return None
    cand = _distribute_innermost(scop, deps, cand)
    if not is_legal(scop, deps, cand):
        return None
    if loop_verdict(scop, deps, cand, f"{dims[1].loop_id}.tile").kind is not LoopKind.PARALLEL:
        return None
    return cand


def _distribute_innermost(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Make innermost loops around statement sequences parallel: by aligning their
    statements when constant shifts do it (the statements stay in one loop, which
    sweeps the data once), else by splitting the loop."""
    for dim, path in list(loops(tree)):
        band = path[-1]
        assert isinstance(band, Band)
        if not isinstance(band.child, Sequence) or any(
                isinstance(c, Band) for c in band.child.children):
            continue
        if loop_verdict(scop, deps, tree, dim.loop_id).kind is LoopKind.PARALLEL:
            continue
        try:
            shifts = parallel_alignment(scop, deps, tree, dim.loop_id)
        except PolyoptError:
            shifts = {}
        if any(shifts.values()):
            cand = align(scop, None, tree, dim.loop_id, shifts)
            if (is_legal(scop, deps, cand)
                    and loop_verdict(scop, deps, cand, dim.loop_id).kind is LoopKind.PARALLEL):
                tree = cand
                continue
        try:
            cand = distribute(scop, None, tree, dim.loop_id)
        except PolyoptError:
            continue
        if is_legal(scop, deps, cand):
            tree = cand
    return tree
