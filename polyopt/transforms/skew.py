"""Loop skewing: ``inner`` becomes ``inner + factor * outer``.

Before ``skew("t", "i", 1)``::             After::

    for t in range(T):                        for t in range(T):
        for i in range(1, n - 1):                 for i' in range(t + 1, t + n - 1):   # i = i' - t
            S(t, i)                                   S(t, i' - t)

For fixed outer values the inner order is unchanged, so skewing alone never
breaks a dependence; it makes stencil bands permutable, hence tileable.
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import require_legal
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, Node
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.tree import at, chain, dim_of, find, refuse_unrolled, replace_at


def skew(scop: Scop, deps: Dependences | None, tree: Node, outer: str, inner: str,
         factor: int) -> Node:
    """``inner`` (an id, perfectly nested in ``outer``) runs over ``inner + factor * outer``."""
    refuse_unrolled(scop, tree, [outer, inner], "skewing")
    dims = chain(tree, outer)
    o = next((d for d in dims if d.answers_to(outer)), None)
    i = next((d for d in dims[1:] if d.answers_to(inner)), None)
    if o is None or i is None:
        raise PolyoptError(f"loop {loop_label(scop, dim_of(tree, inner))} is not perfectly nested "
                           f"inside loop {loop_label(scop, dim_of(tree, outer))}")
    exprs = tuple((s, e + o.expr(s).scale(factor)) for s, e in i.exprs)
    path = find(tree, inner)
    band = at(tree, path)
    assert isinstance(band, Band)
    result = replace_at(tree, path, replace(band, dims=(replace(i, exprs=exprs),)))
    if deps is not None:
        require_legal(scop, deps, result, f"skewing loop {loop_label(scop, i)} by "
                      f"{factor}*{loop_label(scop, o)}")
    return result


def wavefront(scop: Scop, deps: Dependences | None, tree: Node, outer: str, inner: str) -> Node:
    """Replace ``outer`` by ``outer + inner``: tiles on one anti-diagonal run in parallel.

    Before::                         After::

        for T: for I: tile(T, I)         for W in ...:           # W = T + I
                                             for I: tile(W - I, I)    # parallel
    """
    dims = chain(tree, outer)
    o = next((d for d in dims if d.answers_to(outer)), None)
    i = next((d for d in dims[1:] if d.answers_to(inner)), None)
    if o is None or i is None:
        raise PolyoptError(f"loop {inner} is not perfectly nested inside loop {outer}")
    exprs = tuple((s, e + i.expr(s)) for s, e in o.exprs)
    path = find(tree, outer)
    band = at(tree, path)
    assert isinstance(band, Band)
    label = f"{o.label or o.name}+{i.label or i.name}"
    result = replace_at(tree, path, replace(band, dims=(replace(o, exprs=exprs, label=label),)))
    if deps is not None:
        require_legal(scop, deps, result, f"wavefront of loops {outer} and {inner}")
    return result
