"""NumPy array values of a Python function as index functions: a shape, and the
scalar expression at each index of that shape.

``A[1:-1, :j]`` on an ``n x m`` array is the value of shape ``(n - 2, j)`` whose element
at ``(i0, i1)`` is ``A[1 + i0, i1]``; ``x.T`` permutes the indices; a row ``r`` of shape
``(m,)`` broadcast against ``(n, m)`` ignores the first index.  Array statements
(:mod:`python_arrays`) loop over such a shape and assign the element expression, so the
statement walker only ever sees scalar code.

Extents that must be equal at run time (``A[1:]`` against ``B[:n]``) are one extent
when both are in sizes only: the equality is recorded (:mod:`python_array_shapes`)
and the call checks it.  Extents with loop variables cannot be checked at the call:
they stay a tuple, the loop runs to their ``max`` and every operand is read up to it,
so the bounds checks the backend derives from the accesses refuse the call unless they
agree.  Extents that differ by a known constant are refused at compile time.  Broadcasting follows NumPy on the static shapes: an extent of 1
(a constant) stretches, every other extent must match.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin, floordiv, python_text

Index = tuple[Lin, ...]
Element = Callable[[Index], ast.expr]
#: records that two extents in sizes only must be equal (python_array_shapes); False
#: when they involve loop variables
Equate = Callable[[Lin, Lin, ast.AST], bool]
_N = TypeVar("_N", bound=ast.AST)


@dataclass(frozen=True)
class Dim:
    """One dimension of an array value: extents that must agree, and a bound on them
    in sizes only (the extent of a temporary that holds the value)."""

    extents: tuple[Lin, ...]
    cap: Lin

    @property
    def is_one(self) -> bool:
        return len(self.extents) == 1 and self.extents[0] == Lin.constant(1)


@dataclass(frozen=True)
class ArrayValue:
    """A value of shape ``dims`` (``()`` for a scalar) and its element at an index."""

    dims: tuple[Dim, ...]
    element: Element

    @property
    def rank(self) -> int:
        return len(self.dims)


def scalar(node: ast.expr) -> ArrayValue:
    return ArrayValue((), lambda idx: node)


def same(a: Lin, b: Lin) -> bool:
    d = a - b
    return d.is_constant() and d.const == 0


def join_dims(a: Dim, b: Dim, node: ast.AST, what: str, equate: Equate) -> Dim:
    """The dimension where ``a`` and ``b`` meet; a known mismatch is refused, and two
    extents in sizes only are recorded as equal (``equate``) and run to the first."""
    out = list(a.extents)
    for e in b.extents:
        for f in out:
            d = e - f
            if d.is_constant() and d.const != 0:
                raise NotAffine(node, what, f"has extents {python_text(f)} and {python_text(e)}, "
                                "which differ (NumPy raises a shape mismatch)")
        if any(same(e, f) for f in out) or len(out) == 1 and equate(out[0], e, node):
            continue
        out.append(e)
    return Dim(tuple(out), a.cap)


def broadcast(values: list[ArrayValue], node: ast.AST, equate: Equate
              ) -> tuple[tuple[Dim, ...], list[ArrayValue]]:
    """NumPy broadcasting of ``values``: the common shape, and each value read at an
    index of it (trailing dimensions aligned, extents of 1 stretched)."""
    rank = max(v.rank for v in values)
    dims: list[Dim | None] = [None] * rank
    for v in values:
        for k, dim in enumerate(v.dims):
            d = rank - v.rank + k
            cur = dims[d]
            if cur is None or cur.is_one:
                dims[d] = dim
            elif not dim.is_one:
                dims[d] = join_dims(cur, dim, node, f"`{ast.unparse(node)}`", equate)
    shape = tuple(d for d in dims if d is not None)
    return shape, [stretched(v, shape) for v in values]


def stretched(v: ArrayValue, shape: tuple[Dim, ...]) -> ArrayValue:
    """``v`` read at the indices of ``shape`` (which it broadcasts to)."""
    if v.dims == shape:
        return v
    lead = len(shape) - v.rank
    ones = tuple(dim.is_one and not shape[lead + k].is_one for k, dim in enumerate(v.dims))

    def element(idx: Index) -> ast.expr:
        own = idx[lead:]
        return v.element(tuple(Lin.constant(0) if one else i for one, i in zip(ones, own, strict=True)))

    return ArrayValue(shape, element)


def transposed(v: ArrayValue) -> ArrayValue:
    """``v.T``: the reversed shape; ``v.T[i, j]`` is ``v[j, i]``."""
    return ArrayValue(tuple(reversed(v.dims)), lambda idx: v.element(tuple(reversed(idx))))


@dataclass(frozen=True)
class SliceDim:
    """``lo:hi:step`` of an array dimension as a start, a step and an extent."""

    start: Lin
    step: int
    dim: Dim


def slice_dim(sl: ast.Slice, size: Lin, aff: Callable[[ast.expr], Lin],
              taken: Callable[[Lin, ast.expr], None] | None = None) -> SliceDim:
    """A slice of a dimension of extent ``size``: a constant negative bound counts from
    the end; other bounds are taken to lie in ``[0, size]`` (as Python clamps them), and
    each is passed to ``taken`` (the call checks it is not negative)."""
    step = 1
    if sl.step is not None:
        s = aff(sl.step)
        if not s.is_constant() or s.const == 0:
            raise NotAffine(sl.step, "slice step", "must be a nonzero integer constant")
        step = s.const

    def bound(node: ast.expr | None, default: Lin) -> Lin:
        if node is None:
            return default
        b = aff(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not b.is_constant():
            # NumPy counts `-k` from the end only when k > 0 (`A[:-0]` is empty)
            raise NotAffine(node, "slice bound", f"`{ast.unparse(node)}` counts from the end only "
                            "if it is negative at run time; write `A.shape[d] - ...` instead")
        if not b.is_constant() and taken is not None:
            taken(b, node)
        return size + b if b.is_constant() and b.const < 0 else b

    if step > 0:
        lo, hi = bound(sl.lower, Lin.constant(0)), bound(sl.upper, size)
        span = hi - lo
    else:
        lo, hi = bound(sl.lower, size - Lin.constant(1)), bound(sl.upper, Lin.constant(-1))
        if sl.upper is not None and hi.is_constant() and hi.const == -1:
            hi = size - Lin.constant(1)  # an explicit -1 is the last element
        span = lo - hi
    extent = floordiv(span + Lin.constant(abs(step) - 1), abs(step))
    if extent.is_constant() and extent.const < 0:  # `x[5:3]`: empty, as in NumPy
        extent = Lin.constant(0)
    return SliceDim(lo, step, Dim((extent,), size))


def subscript(name: str, idx: Index, ctx: ast.expr_context, at: ast.AST) -> ast.Subscript:
    """``name[idx]`` as an AST located at ``at``."""
    parts = [lin_ast(i, at) for i in idx]
    sl: ast.expr = parts[0] if len(parts) == 1 else located(ast.Tuple(parts, ast.Load()), at)
    return located(ast.Subscript(located(ast.Name(name, ast.Load()), at), sl, ctx), at)


def lin_ast(e: Lin, at: ast.AST) -> ast.expr:
    tree = ast.parse(python_text(e), mode="eval").body
    for n in ast.walk(tree):
        located(n, at)
    return tree


def located(node: _N, at: ast.AST) -> _N:
    """``node`` (not its children) placed at ``at``: errors point at the user's construct."""
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(at, attr):
            setattr(node, attr, getattr(at, attr))
    return node


def call(func: ast.expr, args: list[ast.expr], at: ast.AST) -> ast.Call:
    return located(ast.Call(func, args, []), at)


def converted(e: ast.expr, module: ast.expr, dtype: str, at: ast.AST) -> ast.Call:
    """``np.<dtype>(e)``, ``module`` naming NumPy."""
    return call(located(ast.Attribute(module, dtype, ast.Load()), at), [e], at)


def each_converted(v: ArrayValue, module: ast.expr, dtype: str, at: ast.AST) -> ArrayValue:
    """``v`` with every element converted to NumPy's ``dtype``."""
    return ArrayValue(v.dims, lambda i: converted(v.element(i), module, dtype, at))


def binop(a: ast.expr, op: ast.operator, b: ast.expr, at: ast.AST) -> ast.BinOp:
    return located(ast.BinOp(a, op, b), at)
