"""NumPy array code in a Python function, lowered to loop nests before the statement
walker converts it: slices, whole-array statements, elementwise arithmetic and ufuncs
with broadcasting, reductions, ``.T``, ``@``, ``np.dot`` and ``np.outer``.

``B[1:-1] = 0.5 * (A[:-2] + A[2:])`` becomes::

    for i1 in range(B_shape0 - 2):          # A_shape0 is B_shape0: checked at the call
        B[1 + i1] = 0.5 * (A[i1] + A[2 + i1])

so array code is part of the same polyhedral model as loops (fused, tiled,
parallelized with them).  A right-hand side that reads the target array elsewhere than
the element being written (``a[1:] += a[:-1]``) is computed into a temporary first, as
NumPy reads it entirely before writing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np
from polyopt.frontends.python_array_calls import ArrayCalls
from polyopt.frontends.python_array_index import ArrayIndexing, is_ellipsis
from polyopt.frontends.python_array_nests import Emitter, param_only
from polyopt.frontends.python_array_values import (
    ArrayValue,
    Dim,
    broadcast,
    join_dims,
    located,
    scalar,
    stretched,
    transposed,
)
from polyopt.frontends.python_array_views import parts, view_base, written
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_symbols import ArrayInfo
from polyopt.frontends.refusal import READ_BEFORE_ASSIGNED, NotAffine
from polyopt.frontends.scop_builder import Place

from polyopt.model.aff import Lin, Not, conj
from polyopt.model.scop import ArrayKind

_Make = Callable[[list[ast.expr]], ast.expr]


class ArrayLowering:
    """Rewrites the array statements of one pass into scalar loop code."""

    def __init__(self, scope: FunctionScope) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self.emit = Emitter(scope)
        self.calls = ArrayCalls(self.emit, self.value, self._elementwise, self.equate)
        self.indexing = ArrayIndexing(scope, self.value)

    def equate(self, left: Lin, right: Lin, node: ast.AST) -> bool:
        """Record that two extents must be equal (the call checks it)."""
        return self.symbols.shapes.equate(left, right, node, self.symbols.params)

    # --- statements -----------------------------------------------------------------------

    def lower(self, st: ast.stmt, place: Place) -> list[ast.stmt] | None:
        """The loop code of ``st``; None when ``st`` is not array code."""
        if isinstance(st, ast.Return) and st.value is not None and \
                not isinstance(st.value, ast.Name) and self._is_array_code(st.value):
            name = self.emit.fresh("result")
            assign = located(ast.Assign([located(ast.Name(name, ast.Store()), st)], st.value), st)
            body = self._assign(assign, [located(ast.Name(name, ast.Store()), st)], place, fresh=True)
            if _unchanged(body, assign):  # scalar code after all (`return x.copy()`): the
                return None               # walker reports it, not the name made for it
            return [*body, located(ast.Return(located(ast.Name(name, ast.Load()), st)), st)]
        if not isinstance(st, (ast.Assign, ast.AugAssign)) or not self._is_array_statement(st):
            return None
        targets: list[ast.expr] = list(st.targets) if isinstance(st, ast.Assign) else [st.target]
        out = self._assign(st, targets, place, fresh=False)
        return None if _unchanged(out, st) else out  # scalar code after all: the walker reports it

    def _is_array_statement(self, st: ast.Assign | ast.AugAssign) -> bool:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        if len(targets) != 1 or self.calls.is_allocation(st.value):
            return False
        t = targets[0]
        if isinstance(t, ast.Name) and t.id in self.symbols.arrays:
            return isinstance(st, ast.AugAssign)  # `A += x` updates A in place
        return self._is_array_code(t) or self._is_array_code(st.value)

    def _assign(self, st: ast.Assign | ast.AugAssign, targets: list[ast.expr], place: Place,
                fresh: bool) -> list[ast.stmt]:
        self.emit.start(place.iters)
        self.scope.enter(place.iters)
        target = targets[0]
        value = self.value(st.value)
        op = st.op if isinstance(st, ast.AugAssign) else None
        if isinstance(target, ast.Name) and target.id not in self.symbols.arrays:
            if value.rank == 0:
                return [*self.emit.prelude, _statement(target, op, value.element(()), st)]
            self._allocate(target, value, st, place, fresh)
        view = self.indexing.view(target)
        if view.rank == 0 and value.rank == 0:
            return [*self.emit.prelude, _statement(target, op, value.element(()), st)]
        dims = self._fit(view, value, st, target)
        ivs = self.emit.ivs(len(dims))
        idx = tuple(Lin.var(i) for i in ivs)
        store = view.element(idx)
        rhs = stretched(value, dims)
        if op is not None:
            self._check_in_place(store, op, rhs.element(idx), ivs, st)
        if self._overlaps(store, rhs.element(idx)):
            rhs = self.emit.materialize(rhs, st)
        body = [_statement(store, op, rhs.element(idx), st)]
        return [*self.emit.prelude, *self.emit.nest(dims, ivs, body, st)]

    def _allocate(self, target: ast.Name, value: ArrayValue, st: ast.stmt, place: Place,
                  fresh: bool) -> None:
        """``t = <array value>`` declares the new local array ``t``."""
        if isinstance(st, ast.AugAssign):
            raise NotAffine(target, f"`{target.id}`", READ_BEFORE_ASSIGNED)
        if not fresh and (not place.top or self.symbols.facts.rebindings(target.id) != 1):
            raise NotAffine(target, f"new array `{target.id}`", "an array value can be assigned to a "
                            "new name only once, at the top level of the function (write "
                            f"`{target.id}[:] = ...` to update it)")
        param_only(value.dims, self.symbols.params, target)
        if isinstance(st, ast.Assign):
            self._refuse_shared_view(target, st.value)
        ivs = self.emit.ivs(value.rank)
        vtype = self.emit.type_of(value.element(tuple(Lin.var(i) for i in ivs)), ivs)
        dtype = vtype.dtype
        self.symbols.arrays[target.id] = ArrayInfo(
            dtype, value.rank, ArrayKind.TEMPORARY, [d.extents[0] for d in value.dims],
            clamped=True)

    def _refuse_shared_view(self, target: ast.Name, value: ast.expr) -> None:
        """``t = x[1:]``: a view of ``x`` in NumPy, a copy here; refused when the function
        writes either (:mod:`python_array_views`)."""
        base = view_base(value, self.symbols.arrays)
        if base is not None and written(self.symbols.facts.src.tree) & {base, target.id}:
            v, t = ast.unparse(value), target.id
            raise NotAffine(value, f"`{t} = {v}`", f"is a view of `{base}` in NumPy (they "
                            f"share memory), and the function writes `{base}` or `{t}`: "
                            f"polyopt would give `{t}` a copy; write `{t} = {v}.copy()` for a "
                            f"copy, or use `{v}` where `{t}` is used")

    def _fit(self, view: ArrayValue, value: ArrayValue, st: ast.Assign | ast.AugAssign,
             target: ast.expr) -> tuple[Dim, ...]:
        """The target's shape, which the value must broadcast to (NumPy's rule)."""
        if value.rank > view.rank:
            what = "one element" if view.rank == 0 else f"the {view.rank}-D target"
            extra = value.dims[:value.rank - view.rank]
            # NumPy drops leading axes of length 1 (hostile session 48a, 09: the message
            # said it raises for `x[:] = y[None, :] * 2`)
            numpy = "NumPy drops its leading axes of length 1, which polyopt does not: " \
                "index them away (`v[0]`)" if all(d.is_one for d in extra) else \
                "NumPy raises a shape error unless its leading axes have length 1"
            raise NotAffine(st.value, "array assignment", f"assigns a {value.rank}-D value to "
                            f"{what} `{ast.unparse(target)}` ({numpy})")
        dims = list(view.dims)
        lead = view.rank - value.rank
        for k, dim in enumerate(value.dims):
            cur = dims[lead + k]
            if dim.is_one:
                continue
            if cur.is_one and all(e.is_constant() for e in dim.extents):
                raise NotAffine(st, "array assignment", "the value does not fit the target's "
                                "shape (a dimension of extent 1 cannot take more)")
            dims[lead + k] = join_dims(cur, dim, st, "array assignment", self.equate)
        return tuple(dims)

    def _check_in_place(self, store: ast.expr, op: ast.operator, value: ast.expr,
                        ivs: tuple[str, ...], st: ast.stmt) -> None:
        """``A op= value`` on arrays is NumPy's ufunc with ``out=A``, which casts the result
        back with the ``same_kind`` rule: ``k += 1.5`` on an int array raises UFuncTypeError
        (where ``k[i] += 1.5`` on one element truncates), so it is refused here too."""
        if isinstance(op, ast.MatMult):  # elementwise lowering would multiply elements
            raise NotAffine(st, "`@=`", "an in-place matrix product is not supported; write "
                            "`A[:] = A @ B` (the right-hand side is read first)")
        target = self.emit.type_of(store, ivs).dtype
        result = self.emit.type_of(located(ast.BinOp(store, op, value), st), ivs).dtype
        if not np.can_cast(np.dtype(result.value), np.dtype(target.value), "same_kind"):
            assert isinstance(st, ast.AugAssign)
            a = ast.unparse(st.target) + ("[:]" if isinstance(st.target, ast.Name) else "")
            raise NotAffine(st, f"`{ast.unparse(st)}`", f"computes {result.value} values that "
                            f"NumPy does not cast back to the {target.value} array in place "
                            f"(it raises UFuncTypeError); write `{a} = {a} "
                            f"{_OPS[type(op)]} {ast.unparse(st.value)}` to convert them")

    def _overlaps(self, store: ast.expr, rhs: ast.expr) -> bool:
        """The right-hand side reads the target array anywhere but the element written."""
        assert isinstance(store, ast.Subscript) and isinstance(store.value, ast.Name)
        name, written = store.value.id, ast.dump(store.slice)
        for n in ast.walk(rhs):
            if isinstance(n, ast.Subscript) and _base(n) == name and (
                    not isinstance(n.value, ast.Name) or ast.dump(n.slice) != written):
                return True
        return False

    # --- values ---------------------------------------------------------------------------

    def value(self, node: ast.expr) -> ArrayValue:
        """``node`` as an array value (a scalar one, the node itself, when it holds no
        array code)."""
        if self.scope.size(node) is not None:
            return scalar(node)
        if isinstance(node, ast.Name) and node.id in self.symbols.arrays:
            return self.indexing.view(node)
        if isinstance(node, ast.Subscript):
            return self.indexing.view(node)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return transposed(self.value(node.value))
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return self.calls.matmul(self.value(node.left), self.value(node.right), node)
            return self._elementwise(node, [node.left, node.right],
                                     lambda a: array_binop(a[0], node.op, a[1]))
        if isinstance(node, ast.UnaryOp):
            out = self._elementwise(node, [node.operand], lambda a: ast.UnaryOp(node.op, a[0]))
            if isinstance(node.op, ast.Not) and out.rank:
                # (hostile session 48a, 04: `not x` was computed elementwise)
                raise NotAffine(node, "`not` of an array", "asks for the truth value of the "
                                "whole array, which is ambiguous (CPython raises ValueError); "
                                "use np.logical_not(x), or x == 0")
            return out
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return self._elementwise(node, [node.left, node.comparators[0]],
                                     lambda a: ast.Compare(a[0], node.ops, [a[1]]))
        if isinstance(node, ast.Call):
            return self.calls.call(node)
        if isinstance(node, ast.IfExp) and self._is_array_code(node):
            return self._choice(node)
        return scalar(node)

    def _choice(self, node: ast.IfExp) -> ArrayValue:
        """``a if c else b`` whose operands array code computes: scalars (``A[i].sum() if
        c else 0``), each branch's reduction run, and its subscripts checked, only where
        CPython evaluates that branch (an ``if`` on ``c`` around its loops); an array
        operand is refused by name (lowered as a scalar, it was refused for a part of it:
        hostile session 36b)."""
        outer, lowered = self.emit.prelude, []
        need = self.scope.index_requirements
        start = len(need)
        for operand in (node.test, node.body, node.orelse):
            self.emit.prelude, first = [], len(need)
            v = self.value(operand)
            if v.rank:
                raise NotAffine(node, "conditional expression on arrays", "`a if c else b` "
                                "takes scalars, not arrays; `np.where(c, a, b)` chooses "
                                "elementwise")
            lowered.append((v.element(()), self.emit.prelude, first))
        (test, before, _), (body, then, then_from), (orelse, other, other_from) = lowered
        self.emit.prelude = [*outer, *before]
        if not (before or then or other) and all(
                ast.dump(a) == ast.dump(b)
                for a, b in zip((test, body, orelse), (node.test, node.body, node.orelse), strict=True)):
            # scalar code after all (`x[i] if c else np.where(x[i] > 0, 3, 1.5)`): the node
            # itself, so that the statement is seen unchanged and not lowered again; the
            # scalar walk checks its subscripts where each branch is taken
            del need[start:]
            return scalar(node)
        if then or other or len(need) > then_from:
            try:
                cond = self.scope.affine.formula(test)
            except NotAffine as e:
                raise NotAffine(node, "reduction in a data-dependent conditional expression",
                                f"{e.construct} {e.reason}; compute the reduction into a local "
                                "first") from None
            need[then_from:] = [(*r[:4], conj(cond, r[4])) for r in need[then_from:other_from]] + \
                [(*r[:4], conj(Not(cond), r[4])) for r in need[other_from:]]
            self.emit.prelude.append(located(ast.If(test, then, other), node))
        return scalar(located(ast.IfExp(test, body, orelse), node))

    def _elementwise(self, node: ast.expr, operands: list[ast.expr], make: _Make,
                     rewrite: bool = False) -> ArrayValue:
        """``make`` applied to the operands' elements, broadcast; ``node`` itself when no
        operand is array code (unless ``rewrite``: ``np.clip`` on scalars is rewritten)."""
        values = [self.value(o) for o in operands]
        if not rewrite and all(v.rank == 0 and v.element(()) is o for v, o in zip(values, operands, strict=True)):
            return scalar(node)
        dims, parts = broadcast(values, node, self.equate)
        return ArrayValue(dims, lambda idx: located(make([p.element(idx) for p in parts]), node))

    def _is_array_code(self, node: ast.expr) -> bool:
        """Whether ``node`` mentions array code (a cheap test before the lowering)."""
        sym = self.symbols
        for n in ast.walk(node):
            if isinstance(n, ast.Slice) or isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
                return True
            if isinstance(n, ast.Attribute) and n.attr == "T":
                return True
            if isinstance(n, ast.Call) and self.calls.is_array_call(n):
                return True
            if isinstance(n, ast.Name) and n.id in sym.arrays and not _indexed(node, n):
                return True
            if isinstance(n, ast.Subscript) and any(
                    self.indexing.newaxis(ix) or is_ellipsis(ix) for ix in parts(n)[1]):
                return True
            if isinstance(n, ast.Subscript) and not isinstance(n.value, ast.Subscript):
                name, idx = parts(n)
                if name in sym.arrays and len(idx) < sym.arrays[name].rank:
                    return True
        return False


def array_binop(a: ast.expr, op: ast.operator, b: ast.expr) -> ast.BinOp:
    """An element of ``A op B`` on arrays: marked, for the one case where NumPy's array
    operator types its result unlike the same operator on elements (``bool_array ** 2``
    is ``np.square``, which has no bool loop: int8, where ``np.True_ ** 2`` is an int64)."""
    out = ast.BinOp(a, op, b)
    out.array_code = True  # type: ignore[attr-defined]
    return out


_OPS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.LShift: "<<", ast.RShift: ">>"}


def _unchanged(out: list[ast.stmt], st: ast.Assign | ast.AugAssign) -> bool:
    """``out`` is ``st`` itself, as scalar code."""
    return len(out) == 1 and isinstance(out[0], (ast.Assign, ast.AugAssign)) and \
        out[0].value is st.value


def _statement(target: ast.expr, op: ast.operator | None, value: ast.expr, at: ast.stmt) -> ast.stmt:
    if op is None:
        out = located(ast.Assign([target], value), at)
        out.slice_store = True  # type: ignore[attr-defined]  # NumPy's cast of arrays
        return out
    assert isinstance(target, (ast.Name, ast.Attribute, ast.Subscript))
    return located(ast.AugAssign(target, op, value), at)


def _base(node: ast.Subscript) -> str | None:
    return parts(node)[0]


def _indexed(root: ast.AST, name: ast.Name) -> bool:
    """``name`` is subscripted, or an argument of ``len``, or has ``.shape``/``.dtype`` taken."""
    for n in ast.walk(root):
        if isinstance(n, ast.Subscript) and n.value is name:
            return True
        if isinstance(n, ast.Attribute) and n.value is name and n.attr in ("shape", "dtype"):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" \
                and name in n.args:
            return True
    return False

