"""Array values of subscripts: NumPy's basic indexing (affine integers, slices
``lo:hi:step``, ``None``/``np.newaxis`` and ``...``) of an array name or of any array
value, as a view (:class:`~python_array_values.ArrayValue`).

``A[1:][0]`` indexes the view ``A[1:]`` (the row ``A[1]``); ``x[:, None]`` on an ``n``
array is the ``n x 1`` value whose element at ``(i0, i1)`` is ``x[i0]``; ``(A + B)[1, :]``
is the row of the sum.  A subscript that picks one element of a named array stays the
user's node, for the statement walker.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from polyopt.frontends.python_array_values import (
    ArrayValue,
    Dim,
    SliceDim,
    scalar,
    slice_dim,
    subscript,
    transposed,
)
from polyopt.frontends.python_array_views import parts, through_a_slice
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import TRUE, Lin, MinMax


class ArrayIndexing:
    """Subscripts of one pass's array values; ``value`` turns an expression into one."""

    def __init__(self, scope: FunctionScope, value: Callable[[ast.expr], ArrayValue]) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self.value = value

    def view(self, node: ast.expr, ctx: ast.expr_context | None = None,
              at: ast.expr | None = None) -> ArrayValue:
        """An array name, or a subscript of an array value, as a view: its shape and the
        element of the array at each index of it (load or store, as ``node`` is used).
        ``A[1:][0]`` indexes the view ``A[1:]``; ``(A + B)[i, :]`` the sum's values."""
        own = node.ctx if isinstance(node, (ast.Name, ast.Subscript, ast.Attribute)) else ast.Load()
        use = ctx or own
        where = at or node
        if isinstance(node, ast.Name):
            info = self.symbols.arrays.get(node.id)
            if info is None:
                return scalar(node)
            name = node.id
            extents = [self.symbols.extent(name, d) for d in range(info.rank)]
            return ArrayValue(tuple(Dim((e,), e) for e in extents),
                              lambda idx: subscript(name, idx, use, where))
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return transposed(self.view(node.value, use, where))
        if not isinstance(node, ast.Subscript):
            return self.value(node)
        base = self.view(node.value, use, where)
        sl = node.slice
        out = self.index(base, list(sl.elts) if isinstance(sl, ast.Tuple) else [sl], node)
        if out is not None and out.rank == 0 and through_a_slice(node):
            return scalar(out.element(()))  # `x[1:][0]`: the element `x[1]`
        if out is None or out.rank == 0 and parts(node)[0] is not None:
            return scalar(node)  # an element (or too many indices): the walker's
        return out

    def index(self, v: ArrayValue, idx: list[ast.expr], node: ast.expr) -> ArrayValue | None:
        """``v[idx]`` with NumPy's basic indexing: affine integers, slices, ``None`` /
        ``np.newaxis`` (a new dimension of extent 1) and ``...``; None when there are more
        indices than dimensions."""
        real = [ix for ix in idx if not self.newaxis(ix)]
        dots = [k for k, ix in enumerate(idx) if is_ellipsis(ix)]
        if len(dots) > 1:
            raise NotAffine(node, "subscript", "an index can have only one `...`")
        if dots:
            fill = [ast.Slice()] * (v.rank - len(real) + 1)
            idx = idx[:dots[0]] + fill + idx[dots[0] + 1:]
            real = [ix for ix in idx if not self.newaxis(ix)]
        if v.rank == 0 or len(real) > v.rank:
            return None
        idx = idx + [ast.Slice()] * (v.rank - len(real))
        need = self.scope.index_requirements
        parts: list[Lin | SliceDim | None] = []
        dims = iter(v.dims)
        for ix in idx:
            if self.newaxis(ix):
                parts.append(None)
                continue
            dim = next(dims)
            size = dim.extents[0]
            if isinstance(ix, ast.Slice):
                sd = slice_dim(ix, size, lambda b: self.aff(b, "slice bound"),
                               lambda b, at: need.append((b, "bound", at, node, TRUE)))
                parts.append(SliceDim(sd.start, sd.step, Dim(sd.dim.extents, dim.cap)))
                continue
            if self.value(ix).rank > 0 or isinstance(ix, ast.Constant) and not isinstance(ix.value, int):
                raise NotAffine(ix, "fancy indexing", f"`{ast.unparse(ix)}` is not an integer "
                                "index; index with affine integers, slices `lo:hi:step` and "
                                "`None`")
            a = self.aff(ix, "subscript")
            a = size + a if a.is_constant() and a.const < 0 else a
            # within the dimension, also where nothing is read from it (a row of no
            # columns) and where it is a view's (`x[1:][j]`: x[1 + j] may be in x)
            if not a.is_constant():
                need.append((a, "index", ix, node, TRUE))
            need.append((size - Lin.constant(1) - a, "index", ix, node, TRUE))
            parts.append(a)
        one = Dim((Lin.constant(1),), Lin.constant(1))
        shape = tuple(one if p is None else p.dim for p in parts if not isinstance(p, Lin))

        def element(at_idx: tuple[Lin, ...]) -> ast.expr:
            it = iter(at_idx)
            full: list[Lin] = []
            for p in parts:
                i = next(it) if not isinstance(p, Lin) else None
                if isinstance(p, SliceDim):
                    assert i is not None
                    full.append(p.start + i.scale(p.step))
                elif isinstance(p, Lin):
                    full.append(p)
            return v.element(tuple(full))
        return ArrayValue(shape, element)

    def newaxis(self, ix: ast.expr) -> bool:
        """``None`` or ``np.newaxis`` in a subscript."""
        if isinstance(ix, ast.Constant):
            return ix.value is None
        return isinstance(ix, ast.Attribute) and ix.attr == "newaxis" and \
            isinstance(ix.value, ast.Name) and self.symbols.facts.env.module_alias(ix.value.id) == "np"

    def aff(self, node: ast.expr, construct: str) -> Lin:
        try:
            a = self.scope.affine.aff(node)
        except NotAffine as e:
            raise NotAffine(node, construct,
                            f"`{ast.unparse(node)}` must be affine in loop variables and sizes "
                            f"({e.construct} {e.reason})") from None
        if isinstance(a, MinMax):
            raise NotAffine(node, "min/max subscript", "subscripts must be affine (no min/max)")
        return a


def is_ellipsis(ix: ast.expr) -> bool:
    return isinstance(ix, ast.Constant) and ix.value is ...
