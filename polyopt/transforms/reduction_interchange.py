"""Reduction interchange: a reduction loop swapped with the loop around it, for the
reduction's statements only, while the loop's other statements stay where they are.

Nussinov's dynamic program updates each cell ``T[i, j]`` by a ``max`` in four
statements; the ``k`` loop reads a column of ``T``, one element per row::

    for i in range(n - 1, -1, -1):               for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):                    for m in range(i + 1, n):
            T[i, j] = max(T[i, j], T[i, j - 1])  =>      T[i, m] = max(T[i, m], T[i, m - 1])
            for k in range(i + 1, j):                    for j in range(m + 1, n):
                T[i, j] = max(T[i, j],                       T[i, j] = max(T[i, j],
                              T[i, k] + T[k + 1, j])                       T[i, m] + T[m + 1, j])

The outer loop runs ``j`` for the statements beside the reduction loop and ``k`` for
the reduction's, whose inner loop now runs ``j``: unit stride, and each ``j`` its own
cell.  The updates of one cell now run in another order (the ``k`` ones before the
first statement's), so the check is the dependences less those between updates of an
*exact* reduction (integer ``max``, ``min``, ``+``, ``*``: any order gives the same
bits; :meth:`polyopt.analysis.dependences.Dependences.reorderable`).  Every other read
of a cell keeps its dependences on each update, so ``T[i, m]`` above is read only once
all its updates have run.  Refused otherwise: a float sum, or a cell read before its
last update (``T[i, j - 1]`` read by the ``k`` statement itself).

The result is a new program whose source order is the returned tree: the analyses
after it see its own dependences, with no reduction left to reorder.
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import is_legal, require_legal
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, statements
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.tree import at, dim_of, find, refuse_unrolled, replace_at


def interchange_reduction(scop: Scop, deps: Dependences, tree: Node, outer: str,
                          inner: str) -> tuple[Scop, Node]:
    """Swap loop ``inner`` with the loop ``outer`` around it for the statements in
    ``inner`` (see the module docstring); the program with the new order as its own.

    ``outer`` must be the innermost loop of its band, and ``inner`` the outermost loop
    of a band directly below it (beside other statements or not).  Raises
    :class:`IllegalTransformationError` when the new order breaks a dependence other
    than one between updates of an exact reduction."""
    refuse_unrolled(scop, tree, [outer, inner], "reduction interchange")
    # as the user names them (``j.tile``: a loop tiling made has no source name)
    outer_name, inner_name = (loop_label(scop, dim_of(tree, x)) for x in (outer, inner))
    path = find(tree, outer)
    band = at(tree, path)
    assert isinstance(band, Band)
    if not band.dims[-1].answers_to(outer):
        raise PolyoptError(f"loop {outer_name} is not the innermost loop of its "
                           "band: split the band first")
    below = band.child.children if isinstance(band.child, Sequence) else (band.child,)
    k = next((k for k, c in enumerate(below)
              if isinstance(c, Band) and c.dims[0].answers_to(inner)), None)
    if k is None:
        raise PolyoptError(f"loop {inner_name} is not directly inside loop {outer_name}")
    child = below[k]
    assert isinstance(child, Band)
    moved = set(statements(child))
    o, i = band.dims[-1], child.dims[0]
    # the inner loop now runs the outer loop's iterator: named after it (``j.inner``)
    inner_dim = replace(_swapped(i, o, moved), label=f"{loop_label(scop, o)}.inner")
    new_child = replace(child, dims=(inner_dim, *child.dims[1:]))
    others = below[:k] + below[k + 1:]
    dims = (*band.dims[:-1], _swapped(o, i, moved))
    candidates = []
    # in its place, else last or first: lu's `A[i, j] /= A[j, j]`, after the k loop, must
    # now run before it, since the swapped loop reads A[i, m] in the iteration m = j
    for at_k in dict.fromkeys((k, len(others), 0)):
        kids = (*others[:at_k], new_child, *others[at_k:])
        new_band = replace(band, dims=dims, permutable=False,
                           child=Sequence(kids) if len(kids) > 1 else kids[0])
        result = replace_at(tree, path, new_band)
        if is_legal(scop, deps, result, reorder_reductions=True):
            return replace(scop, schedule=result), result
        candidates.append(result)
    # none is legal: name what the swap in place would break
    require_legal(scop, deps, candidates[0], f"interchanging loops {outer_name} "
                  f"and {inner_name} of the reduction", reorder_reductions=True)
    raise AssertionError("a candidate is_legal refused passed require_legal")


def _swapped(dim: LoopDim, other: LoopDim, moved: set[str]) -> LoopDim:
    """``dim`` running ``other``'s expression for the statements in ``moved``."""
    return replace(dim, exprs=tuple((s, other.expr(s) if s in moved else e)
                                    for s, e in dim.exprs))
