"""The automatic scheduler: Pluto-like goals with polyopt's own legal transformations.

The phases run in order, each step applied only where the dependence check
accepts it:

0. **Accumulator promotion** (``acc = 0; for k: acc += ...; C[i, j] = acc`` keeps
   the sum in ``C[i, j]``: :mod:`polyopt.transforms.promote`) and index-set
   splitting at **pivots** (:mod:`polyopt.scheduler.pivots`).
1. **Loop order** (:mod:`polyopt.scheduler.loop_order`): imperfect nests
   distributed where that lets a loop order improve, then every chain the outermost
   loop parallel and the innermost unit stride, as scored by
   :mod:`polyopt.scheduler.cost_model`; then reduction loops swapped with the loop
   around them where exact reductions may run in another order
   (:mod:`polyopt.scheduler.reduction_order`).
2. **Fusion** of consecutive sibling loops (:mod:`polyopt.scheduler.fusion`).
3. **Time tiling** of stencils (:mod:`polyopt.scheduler.time_tiling`).
4. **Register tiling** of matmul-like reductions
   (:mod:`polyopt.scheduler.register_tiling`).
5. **Tiling** of chains that carry reuse (:mod:`polyopt.scheduler.tiling`).

Marks for OpenMP (parallel, simd, reductions) and LICM are then chosen by
:func:`polyopt.transforms.mark_parallel.mark` on the resulting tree.
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Scop
from polyopt.scheduler.applied import Record, note
from polyopt.scheduler.fusion import fuse_all
from polyopt.scheduler.loop_order import distribute_for_order, reorder_all
from polyopt.scheduler.pivots import split_pivots
from polyopt.scheduler.reduction_order import interchange_reductions
from polyopt.scheduler.register_tiling import register_tile_all
from polyopt.scheduler.tiling import tile_all
from polyopt.scheduler.time_tiling import time_tile_all, time_tile_sizes
from polyopt.transforms.promote import promote
from polyopt.transforms.tree import normalize


def schedule(scop: Scop, deps: Dependences, options: Options,
             record: Record | None = None) -> tuple[Scop, Dependences, Node]:
    """The automatic schedule.  Register tiling may split statements, so the (possibly
    new) scop and its dependences come back with the tree.  ``record`` notes what each
    phase changed (for reports)."""
    if options.interchange and scop.statements:
        promoted = promote(scop, deps, expand=options.array_copies)
        if promoted is not scop:
            note(record, "accumulator promotion", (scop, scop.schedule),
                 (promoted, promoted.schedule))
            scop, deps = promoted, analyze(promoted)
    tree = normalize(scop.schedule)
    if not scop.statements:
        return scop, deps, tree
    if options.parallel or options.vectorize:
        before = scop, tree
        scop, deps, tree = split_pivots(scop, deps, tree)
        note(record, "index-set splitting", before, (scop, tree))
    if options.interchange:
        before = scop, tree
        tree = distribute_for_order(scop, deps, tree)
        note(record, "distribution", before, (scop, tree))
        before = scop, tree
        tree = reorder_all(scop, deps, tree)
        note(record, "loop order", before, (scop, tree))
        before = scop, tree
        scop, deps, tree = interchange_reductions(scop, deps, tree)
        note(record, "reduction interchange", before, (scop, tree))
    if options.fuse != "none":
        before = scop, tree
        tree = fuse_all(scop, deps, tree, options)
        note(record, "fusion", before, (scop, tree))
    if options.tile:
        before = scop, tree
        tree = time_tile_all(scop, deps, tree, time_tile_sizes(options))
        note(record, "time tiling", before, (scop, tree))
    if options.unroll_jam:
        before = scop, tree
        scop, deps, tree = register_tile_all(scop, deps, tree, options)
        note(record, "register tiling", before, (scop, tree))
    if options.tile:
        before = scop, tree
        tree = tile_all(scop, deps, tree, options)
        note(record, "tiling", before, (scop, tree))
    return scop, deps, tree
