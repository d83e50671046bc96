"""The scalar code array statements become: loop nests over a shape, temporary
arrays, accumulators and reductions, as Python ``ast`` statements that the statement
walker converts like the user's own loops.

``t = np.sum(A, axis=0)`` on an ``n x m`` array becomes::

    for i1 in range(m):          # t[i1] = 0
        t[i1] = 0
    for i0 in range(n):
        for i1 in range(m):
            t[i1] += A[i0, i1]

Every generated node is placed at the user's construct, so a refusal points there.
"""

from __future__ import annotations

import ast

from polyopt.frontends.python_array_values import (
    ArrayValue,
    Dim,
    Index,
    binop,
    call,
    each_converted,
    lin_ast,
    located,
    subscript,
)
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_symbols import ArrayInfo
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.scop import ArrayKind

#: reductions: (initial value or None for the first element, update operator)
REDUCTIONS: dict[str, tuple[int | None, str]] = {
    "sum": (0, "+"), "prod": (1, "*"), "mean": (0, "+"), "max": (None, "maximum"),
    "min": (None, "minimum"),
}


class Emitter:
    """Fresh names, temporaries and loop nests for the array statements of one pass
    (names are numbered in statement order, so every pass makes the same ones)."""

    def __init__(self, scope: FunctionScope) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self._count = 0
        self.iters: tuple[str, ...] = ()
        self.prelude: list[ast.stmt] = []

    def start(self, iters: tuple[str, ...]) -> None:
        self.iters = iters
        self.prelude = []

    def fresh(self, base: str) -> str:
        self._count += 1
        return self.symbols.facts.fresh(f"{base}{self._count}", self.symbols.params)

    def ivs(self, n: int) -> tuple[str, ...]:
        return tuple(self.fresh("i") for _ in range(n))

    def nest(self, dims: tuple[Dim, ...], ivs: tuple[str, ...], body: list[ast.stmt],
             at: ast.AST) -> list[ast.stmt]:
        """``for iv in range(extent)`` around ``body``, one loop per dimension; extents
        that must agree run to their ``max`` (the bounds checks then demand equality)."""
        out = body
        for dim, iv in reversed(list(zip(dims, ivs, strict=True))):
            ext = [lin_ast(e, at) for e in dim.extents]
            stop = ext[0] if len(ext) == 1 else call(located(ast.Name("max", ast.Load()), at), ext, at)
            rng = call(located(ast.Name("range", ast.Load()), at), [stop], at)
            out = [located(ast.For(located(ast.Name(iv, ast.Store()), at), rng, out, []), at)]
        return out

    def type_of(self, element: ast.expr, ivs: tuple[str, ...]) -> ValueType:
        """The type the statement walker will give ``element`` inside the nest."""
        self.scope.enter(self.iters + ivs)
        try:
            return self.scope.values.convert(element).type
        finally:
            self.scope.values.choices.clear()
            self.scope.enter(self.iters)

    def temp(self, dims: tuple[Dim, ...], dtype: DType, origin: str) -> str:
        """A temporary array as large as any value of shape ``dims`` can be; ``origin``
        says what for, in messages that name it."""
        name = self.fresh("tmp")
        self.symbols.arrays[name] = ArrayInfo(dtype, len(dims), ArrayKind.TEMPORARY,
                                              [d.cap for d in dims], origin, clamped=True)
        return name

    def materialize(self, v: ArrayValue, at: ast.AST) -> ArrayValue:
        """``v`` computed into a temporary before the statement (NumPy's order: an
        operand is read entirely before the result is written)."""
        ivs = self.ivs(v.rank)
        idx = tuple(Lin.var(i) for i in ivs)
        dtype = self.type_of(v.element(idx), ivs).dtype
        name = self.temp(v.dims, dtype, "polyopt's copy of an operand, read whole before "
                         "the store, as NumPy does")
        store = subscript(name, idx, ast.Store(), at)
        self.prelude += self.nest(v.dims, ivs, [located(ast.Assign([store], v.element(idx)), at)], at)
        return ArrayValue(v.dims, lambda i: subscript(name, i, ast.Load(), at))

    def reduce(self, v: ArrayValue, axes: tuple[int, ...], kind: str, module: ast.expr,
               at: ast.AST, widen: bool = True) -> ArrayValue:
        """``np.<kind>(v, axis=axes)``: the kept dimensions, in order; a scalar (a local
        accumulator) when every axis is reduced.  ``widen``: a sum or product of small
        ints is an int64, as ``np.sum`` gives; a matrix product keeps its operands' int32."""
        init, update = REDUCTIONS[kind]
        keep = tuple(d for d in range(v.rank) if d not in axes)
        ivs = self.ivs(v.rank)
        idx = tuple(Lin.var(i) for i in ivs)
        etype = self.type_of(v.element(idx), ivs)
        dtype = etype.dtype
        if init is not None and not dtype.is_float and widen:
            # NumPy sums and multiplies integers in its widest int of their signedness,
            # and averages them in float64
            dtype = (DType.FLOAT64 if kind == "mean" else
                     DType.UINT64 if dtype.is_unsigned else DType.INT64)
        # NumPy sums and multiplies float16 in float32 (its reduce loops' and dot's
        # accumulators) and rounds the total once: a float16 sum of ones stops at 2048.
        # Where the axis its loops run along (the operand's contiguous one) is kept, it
        # adds each row into the float16 result instead, rounding every addition
        # (hostile session 48a, 02: A.sum(axis=0)); a mean accumulates in float32 either way
        half = dtype is DType.FLOAT16 and init is not None and (
            kind == "mean" or _inner_axis(v.element(idx), ivs) in axes)
        if half:
            dtype = DType.FLOAT32
        dims = tuple(v.dims[d] for d in keep)
        if keep:
            name = self.temp(dims, dtype, "polyopt's array for a reduction or product's result")

            def target(i: Index, ctx: ast.expr_context) -> ast.Name | ast.Subscript:
                return subscript(name, tuple(i[d] for d in keep) if len(i) == v.rank else i, ctx, at)
        else:
            name = self.fresh("acc")
            self.symbols.local_types.setdefault(name, ValueType(dtype))

            def target(i: Index, ctx: ast.expr_context) -> ast.Name | ast.Subscript:
                return located(ast.Name(name, ctx), at)
        kept = ivs[: len(keep)]
        kidx = tuple(Lin.var(i) for i in kept)
        if init is None:  # the first element along the reduced axes
            first = iter(kidx)
            start = v.element(tuple(next(first) if d in keep else Lin.constant(0) for d in range(v.rank)))
        else:
            # a bool matrix product's accumulator stays a bool (False, or-ed into): `0` made
            # the scalar one an int64 and b @ b counted the pairs
            start = located(ast.Constant(bool(init) if dtype.is_bool else init), at)
        first_step: ast.stmt = located(ast.Assign([target(kidx, ast.Store())], start), at)
        if init is None:
            tests = self._empty_tests(v, axes, at)
            if tests is not None:  # NumPy raises ValueError for an empty axis
                empty, nonempty = tests
                if keep:  # raised once, also where the kept axes are empty too
                    raising = self._raise_empty(update, dtype, self.fresh("empty"), at)
                    self.prelude.append(located(ast.If(empty, [raising], []), at))
                    first_step = located(ast.If(nonempty, [first_step], []), at)
                else:  # the accumulator is assigned on both branches
                    first_step = located(ast.If(nonempty, [first_step], [
                        self._raise_empty(update, dtype, name, at)]), at)
        self.prelude += self.nest(dims, kept, [first_step], at)
        if init is None:
            fn = located(ast.Attribute(module, update, ast.Load()), at)
            step: ast.stmt = ast.Assign([target(idx, ast.Store())],
                                        call(fn, [target(idx, ast.Load()), v.element(idx)], at))
        else:
            op: ast.operator = ast.Add() if update == "+" else ast.Mult()
            step = ast.AugAssign(target(idx, ast.Store()), op, v.element(idx))
        self.prelude += self.nest(v.dims, ivs, [located(step, at)], at)
        out = ArrayValue(dims, lambda i: target(i, ast.Load()))
        if kind == "mean":
            count: ast.expr | None = None
            for d in axes:  # (an empty slice's extent may be negative: `x[k:3]`, k = 5)
                e = call(located(ast.Name("max", ast.Load()), at),
                         [lin_ast(v.dims[d].extents[0], at), located(ast.Constant(0), at)], at)
                count = e if count is None else binop(count, ast.Mult(), e, at)
            assert count is not None
            total, summed = count, out
            out = ArrayValue(dims, lambda i: binop(summed.element(i), ast.Div(), total, at))
        return each_converted(out, module, "float16", at) if half else out


    @staticmethod
    def _empty_tests(v: ArrayValue, axes: tuple[int, ...], at: ast.AST
                     ) -> tuple[ast.expr, ast.expr] | None:
        """Whether some reduced axis of ``v`` is empty, and its negation (affine tests: a
        slice's extent may depend on loop variables, ``A[i, :i]``); None when no axis
        can be."""
        extents = [e for d in axes for e in v.dims[d].extents
                   if not (e.is_constant() and e.const >= 1)]
        if not extents:
            return None

        def each(op: ast.cmpop, bool_op: ast.boolop) -> ast.expr:
            parts: list[ast.expr] = [located(ast.Compare(lin_ast(e, at), [op], [
                located(ast.Constant(1), at)]), at) for e in extents]
            return parts[0] if len(parts) == 1 else located(ast.BoolOp(bool_op, parts), at)

        return each(ast.Lt(), ast.Or()), each(ast.GtE(), ast.And())

    def _raise_empty(self, update: str, dtype: DType, name: str, at: ast.AST) -> ast.stmt:
        """``name = <raise>``: sets the call's error flag, raised after the call as
        NumPy's ``ValueError: zero-size array to reduction operation maximum which has
        no identity`` (README "Integers", the flag)."""
        self.symbols.local_types.setdefault(name, ValueType(dtype))
        raising = located(ast.Call(located(ast.Name(name, ast.Load()), at), [], []), at)
        raising.empty_reduction = (update, dtype)  # type: ignore[attr-defined]
        return located(ast.Assign([located(ast.Name(name, ast.Store()), at)], raising), at)


def param_only(dims: tuple[Dim, ...], params: list[str], node: ast.AST) -> None:
    """Refuse a new array whose shape changes from one loop iteration to the next."""
    for d in dims:
        for e in d.extents:
            if not e.names() <= set(params):
                raise NotAffine(node, "array allocation", "the shape depends on a loop variable; "
                                "allocate the array at the top level of the function")


def _inner_axis(element: ast.expr, ivs: tuple[str, ...]) -> int:
    """The axis of a value that NumPy's loops run along: the one the last subscript of
    its arrays follows (``A.T``'s is its first), or its last where they disagree or it
    reads none (a temporary NumPy makes is C-ordered)."""
    found: set[int] = set()
    for n in ast.walk(element):
        if not isinstance(n, ast.Subscript) or isinstance(n.value, ast.Subscript):
            continue
        last = n.slice.elts[-1] if isinstance(n.slice, ast.Tuple) else n.slice
        used = [k for k, iv in enumerate(ivs)
                if any(isinstance(x, ast.Name) and x.id == iv for x in ast.walk(last))]
        found.add(used[0] if len(used) == 1 else -1)
    return found.pop() if len(found) == 1 and -1 not in found else len(ivs) - 1
