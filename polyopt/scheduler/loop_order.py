"""Loop order: the outermost loop parallel, the innermost unit stride.

Every perfectly nested chain gets its best legal permutation, so matmul's ::

    for i: for j: for k:                     for i: for k: for j:
        C[i, j] += A[i, k] * B[k, j]   ==>       C[i, j] += A[i, k] * B[k, j]

runs ``i`` in parallel and ``j`` unit stride.  Imperfect nests are distributed
first when a part of them then reorders (``for i: for j: {C[i,j] *= b; for k: ...}``
splits the ``j`` loop), and the point loops of a tile are reordered for stride
once the tile loops carry the parallelism.
"""

from __future__ import annotations

from itertools import permutations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import is_legal
from polyopt.analysis.verdicts import LoopKind, loop_verdict
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, loops
from polyopt.model.scop import Scop
from polyopt.scheduler.cost_model import (
    PARALLEL_BONUS,
    REDUCTION_BONUS,
    keeps_target,
    stride_improves,
    stride_score,
)
from polyopt.scheduler.nests import chains
from polyopt.transforms.fuse import distribute
from polyopt.transforms.interchange import permute
from polyopt.transforms.tree import chain, enclosing

MAX_PERMUTED = 4  # chains longer than this only get their innermost loops reordered


def reorder_all(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Give every chain its best legal loop order.

    Candidates are tried best stride score first: a legal order whose outer loop is
    parallel cannot be beaten by an order with a lower stride score, so the search stops
    there instead of proving every permutation legal or not.
    """
    for outer in chains(tree):
        dims = chain(tree, outer)
        if len(dims) < 2:
            continue
        fixed = max(0, len(dims) - MAX_PERMUTED)
        movable = dims[fixed:]
        anchor = movable[0].loop_id
        orders = sorted(permutations(movable), key=lambda o: (
            -stride_score(scop, o[-1]), list(o) != movable))
        best_tree, best = tree, None
        for order in orders:
            bound = 2 * stride_score(scop, order[-1]) + PARALLEL_BONUS
            if best is not None and bound <= best:
                break  # nothing left can beat the best legal order found
            cand = permute(scop, None, tree, anchor, [d.loop_id for d in order])
            if not is_legal(scop, deps, cand):
                continue
            score = _order_score(scop, deps, cand, list(order)) - (
                0 if list(order) == movable else 1)
            if best is None or score > best:
                best, best_tree = score, cand
        tree = best_tree
    return tree


def _order_score(scop: Scop, deps: Dependences, tree: Node, dims: list[LoopDim]) -> int:
    score = stride_score(scop, dims[-1]) * 2
    if _parallel_above(scop, deps, tree, dims[0].loop_id):
        return score  # the chain runs inside a parallel loop already: only stride counts
    kind = loop_verdict(scop, deps, tree, dims[0].loop_id).kind
    if kind is LoopKind.PARALLEL:
        score += PARALLEL_BONUS
    elif kind is LoopKind.REDUCTION:
        score += REDUCTION_BONUS
    return score


def _parallel_above(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> bool:
    """Some loop enclosing ``loop_id`` is parallel (doitgen's ``r``, once ``sum_`` is
    private, encloses the ``p, s`` chain)."""
    return any(loop_verdict(scop, deps, tree, d.loop_id).kind is LoopKind.PARALLEL
               for d in enclosing(tree, loop_id))


def distribute_for_order(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Distribute loops around imperfect nests when a part's loop order then improves."""
    changed = True
    while changed:
        changed = False
        for dim, path in list(loops(tree)):
            band = path[-1]
            assert isinstance(band, Band)
            if not isinstance(band.child, Sequence):
                continue
            if not any(isinstance(c, Band) for c in band.child.children):
                continue
            try:
                cand = distribute(scop, None, tree, dim.loop_id)
            except PolyoptError:
                continue
            if not is_legal(scop, deps, cand):
                continue
            reordered = reorder_all(scop, deps, cand)
            if reordered is cand:
                continue  # no part reorders: keep the statements together
            if _runs_in_parallel(scop, deps, tree, dim) and not stride_improves(
                    scop, cand, reordered):
                # only buys a parallel loop that the whole loop already is.  atax's
                # ``for i: {tmp[i] = A[i, :] . x; y += A[i, :] * tmp[i]}`` is unit
                # stride and, with ``y`` reduced per thread, parallel in ``i``:
                # distributed, it would sweep ``A`` twice instead of once
                continue
            tree, changed = cand, True
            break
    return tree


def _runs_in_parallel(scop: Scop, deps: Dependences, tree: Node, dim: LoopDim) -> bool:
    """``dim`` is an outermost loop, and runs in parallel outright or as a reduction (an
    array reduction gets a copy per thread).  Deeper loops are left to the loop-order
    search: a part reordered there may be tiled with better strides later (trmm, symm)."""
    if enclosing(tree, dim.loop_id):
        return False
    return loop_verdict(scop, deps, tree, dim.loop_id).kind in (LoopKind.PARALLEL,
                                                                LoopKind.REDUCTION)


def reorder_points(scop: Scop, deps: Dependences, tree: Node, points: list[LoopDim]) -> Node:
    """Reorder the point loops of a tile for stride, now that the tile loops carry the
    parallelism.  trmm's chain is ``j, k, i`` (``j``, the parallel loop, outermost; ``i``
    strided innermost); inside a tile ``i, k, j`` runs unit stride::

        for j.t, k.t, i.t:                 for j.t, k.t, i.t:
          for j: for k: for i:       ==>     for i: for k: for j:
            B[i, j] += A[k, i] * B[k, j]       B[i, j] += A[k, i] * B[k, j]

    Among the legal orders with the best innermost loop, one whose next loop leaves
    the written element in place (``k`` above: ``B[i, :]`` stays in L1) comes first,
    then the order closest to the current one.
    """
    if len(points) > MAX_PERMUTED:
        return tree
    current = stride_score(scop, points[-1])
    orders = sorted(permutations(points), key=lambda o: (
        -stride_score(scop, o[-1]), not keeps_target(scop, o[-2]), list(o) != points))
    for order in orders:
        if stride_score(scop, order[-1]) <= current:
            return tree  # nothing better than the order the chain already has
        cand = permute(scop, None, tree, points[0].loop_id, [d.loop_id for d in order])
        if is_legal(scop, deps, cand):
            return cand
    return tree
