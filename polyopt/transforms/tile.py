"""Tiling (strip-mining plus interchange) of a perfectly nested band.

Before ``tile(("i", "j"), (32, 32))``::      After::

    for i in range(n):                        for i.tile in range(ceil(n/32)):
        for j in range(m):                        for j.tile in range(ceil(m/32)):
            S(i, j)                                   for i in range(32*i.tile, min(n, 32*i.tile+32)):
                                                          for j in range(32*j.tile, ...):
                                                              S(i, j)

Partial tiles at the edges are exact (isl generates the ``min``).  Legal when
the band is permutable, which the dependence check decides.
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import combinations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import require_legal
from polyopt.model.aff import Lin, floordiv
from polyopt.model.errors import PolyoptError
from polyopt.model.names import has_iterator_stride
from polyopt.model.options import tile_sizes_problem
from polyopt.model.schedule_tree import LoopDim, LoopMark, Node
from polyopt.model.scop import Loop, Scop, loop_label
from polyopt.transforms.tree import (
    below_chain,
    build_chain,
    chain,
    dim_of,
    find,
    fresh,
    refuse_unrolled,
    replace_at,
    taken_ids,
    taken_labels,
)


def tile_dim(d: LoopDim, size: int, label: str, loop_id: str = "") -> LoopDim:
    """The tile loop of ``d``: ``floor(e / size)`` of each statement's expression ``e``."""
    return LoopDim(loop_id or f"{d.loop_id}.tile", d.name,
                   tuple((s, floordiv(e, size)) for s, e in d.exprs), LoopMark(atomic=True), (),
                   label)


def refuse_strided(scop: Scop, dims: list[LoopDim], what: str) -> None:
    """Misuse: ``what`` strip-mines a loop around a statement whose instances lie on a
    lattice (a loop stepping by more than 1, an ``i % 2 == 0`` test).  isl's code
    generator can lose instances of such tiles when they do not align with the lattice
    (a 2 x 3 tiling of ``for i in range(1, n, 3): for j in range(i, -1, -2)`` ran 112 of
    176), so polyopt leaves those loops untiled."""
    known = {s.name: s for s in scop.statements}
    first: dict[str, LoopDim] = {}  # each statement once, with the outermost loop it is in
    for d in dims:
        for stmt, _ in d.exprs:
            first.setdefault(stmt, d)
    for stmt, d in first.items():
        s = known.get(stmt)
        if s is not None and (has_iterator_stride(s.domain) or not _unimodular(
                [x.expr(stmt) for x in dims if stmt in dict(x.exprs)], s.iterators)):
            raise PolyoptError(
                f"{what} of loop {loop_label(scop, d)} is not done: statement "
                f"{stmt} runs on a lattice of its loops (a step other than 1, a `%` "
                "test, or loops scaled by a factor), whose tiles isl's code generator "
                f"does not always cover{_double_buffer(scop, s.loops)}")


def _double_buffer(scop: Scop, around: tuple[str, ...]) -> str:
    """Where a double buffer's time loop is around the statement, that it steps by 2:
    the user wrote no step (hostile session 47a, finding 07)."""
    def encloses(lid: str, lp: Loop) -> bool:
        parent = lp.parent
        while parent is not None and parent != lid:
            parent = scop.loops[parent].parent if parent in scop.loops else None
        return parent == lid

    for lid in around:
        if lid in scop.loops and any(o.swapped and encloses(lid, o) for o in scop.loops.values()):
            return (f"; here loop {scop.loops[lid].name} steps by 2: its body ends in a "
                    "double-buffer swap, so it runs two copies of the body per iteration, "
                    "the arrays exchanged in the second")
    return ""


def _unimodular(exprs: list[Lin], iterators: tuple[str, ...]) -> bool:
    """Whether the loops ``exprs`` (of one statement's ``iterators``) take every point of
    an integer grid: the gcd of the maximal minors of their coefficients is 1 (``3*i``,
    or ``3*i`` beside ``2*j + i``, leave gaps).  A loop over a tile (a floor) counts as
    covering."""
    rows: list[list[int]] = []
    for e in exprs:
        if any(not isinstance(atom, str) for atom, _ in e.terms):
            return True
        coeff = dict(e.terms)
        rows.append([int(coeff.get(v, 0)) for v in iterators])
    # the image is saturated in its span when the gcd of the minors of the rank's size
    # is 1 (a statement outside an inner loop may repeat an outer loop's expression)
    for size in range(min(len(rows), len(iterators)), 0, -1):
        g = 0
        for picked in combinations(rows, size):
            for cols in combinations(range(len(iterators)), size):
                g = math.gcd(g, _det([[r[c] for c in cols] for r in picked]))
        if g:
            return g == 1
    return True


def _det(m: list[list[int]]) -> int:
    if len(m) == 1:
        return m[0][0]
    return sum((-1) ** k * m[0][k] * _det([row[:k] + row[k + 1:] for row in m[1:]])
               for k in range(len(m)) if m[0][k])


def tile(scop: Scop, deps: Dependences | None, tree: Node, loops: list[str], sizes: list[int],
         labels: list[str] | None = None) -> Node:
    """Tile the perfectly nested loops ``loops`` (outermost first) by ``sizes``.

    Tile loops get the id ``<id>.tile`` and the label ``<label>.tile`` (``labels``
    overrides the latter), numbered ``.tile2``... when a loop is tiled again.
    """
    if len(loops) != len(sizes):
        raise PolyoptError(f"{len(loops)} loops but {len(sizes)} tile sizes")
    problem = tile_sizes_problem(sizes)
    if problem is not None:
        raise PolyoptError(problem[1])
    refuse_unrolled(scop, tree, loops, "tiling")
    dims = chain(tree, loops[0])
    head = dims[: len(loops)]
    if len(head) < len(loops) or any(not d.answers_to(x) for d, x in zip(head, loops, strict=True)):
        shown = ", ".join(loop_label(scop, dim_of(tree, x)) for x in loops)
        raise PolyoptError(
            f"loops {shown} are not perfectly nested in this order; tiling needs a "
            "chain of loops with no statement between them"
        )
    refuse_strided(scop, head, "tiling")
    ids, names = taken_ids(tree), taken_labels(scop, tree)
    labels = [fresh(lab, names) for lab in
              (labels or [f"{loop_label(scop, d)}.tile" for d in head])]
    tiles = [tile_dim(d, s, lab, fresh(f"{d.loop_id}.tile", ids))
             for d, s, lab in zip(head, sizes, labels, strict=True)]
    points = [replace(d, mark=LoopMark()) for d in head]
    new = build_chain([*tiles, *points, *dims[len(loops):]],
                      below_chain(tree, loops[0]))
    result = replace_at(tree, find(tree, loops[0]), new)
    if deps is not None:
        require_legal(scop, deps, result, f"tiling loops ({', '.join(labels)})")
    return result
