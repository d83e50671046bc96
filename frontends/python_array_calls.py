"""NumPy functions on array values: ufuncs and ``np.maximum``/``np.minimum``/
``np.clip``/``np.where`` elementwise, the reductions ``np.sum/max/min/mean/prod``
(with ``axis=``), ``@``/``np.dot`` on 1-D and 2-D operands, ``np.outer`` and
``np.transpose``; the array methods ``A.sum(axis=0)``, ``A.max()``..., ``A.copy()``,
``A.transpose()``, ``A.dot(B)`` and ``A.astype(t)``.

``A @ B`` is the sum over ``k`` of the value ``P[i, j, k] = A[i, k] * B[k, j]``::

    tmp[i, j] = 0                       # for i, j
    tmp[i, j] += A[i, k] * B[k, j]      # for i, j, k
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from polyopt.frontends.python_array_nests import REDUCTIONS, Emitter
from polyopt.frontends.python_array_values import (
    ArrayValue,
    Equate,
    Index,
    binop,
    call,
    converted,
    each_converted,
    join_dims,
    lin_ast,
    located,
    scalar,
    transposed,
)
from polyopt.frontends.python_bindings import DTYPE_SPELLINGS, allocation_kind, named_dtype
from polyopt.frontends.python_helpers import inline_expression
from polyopt.frontends.python_values import CLIP_BOUND
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin
from polyopt.model.dtypes import DType

Value = Callable[[ast.expr], ArrayValue]
Elementwise = Callable[[ast.expr, list[ast.expr], Callable[[list[ast.expr]], ast.expr], bool],
                       ArrayValue]

_ARRAY_FUNCTIONS = {*REDUCTIONS, "dot", "matmul", "outer", "transpose", "where", "clip"}


class ArrayCalls:
    def __init__(self, emit: Emitter, value: Value, elementwise: Elementwise,
                 equate: Equate) -> None:
        self.emit = emit
        self.equate = equate
        self.value = value
        self.elementwise = elementwise

    def _np(self, func: ast.expr) -> bool:
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            self.emit.symbols.facts.env.module_alias(func.value.id) == "np"

    def is_array_call(self, node: ast.Call) -> bool:
        """A NumPy function that only array code uses."""
        return self._np(node.func) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in _ARRAY_FUNCTIONS

    def is_allocation(self, node: ast.expr) -> bool:
        """``np.zeros(...)``, ``np.empty_like(...)``...: declarations, not array code."""
        return allocation_kind(node, self.emit.symbols.facts.env) is not None

    def call(self, node: ast.Call) -> ArrayValue:
        func = node.func
        if isinstance(func, ast.Attribute) and not self._np(func):
            receiver = self.value(func.value)
            if receiver.rank > 0:
                return self._method(node, func, receiver)
        if not (self._np(func) and isinstance(func, ast.Attribute)):
            if any(isinstance(a, ast.Starred) for a in node.args):
                return scalar(node)
            if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1 and \
                    not node.keywords:
                return self._len(node)
            helper = self.emit.scope.helper_called(node)
            if helper is not None:  # `def at(a, i): return a[i] * 2` is not elementwise:
                # inlined first, its array parameters are the arrays passed
                sym = self.emit.symbols
                return self.value(inline_expression(helper, node, sym.facts, sym.arrays))
            return _of_numbers(node, self.elementwise(
                node, list(node.args), lambda a: ast.Call(func, a, node.keywords), False))
        fn, module = func.attr, func.value
        if fn in REDUCTIONS:
            return self._reduction(node, fn, module)
        if fn in ("dot", "matmul", "outer", "transpose", "where", "clip") and node.keywords:
            raise NotAffine(node, f"np.{fn}()", "keyword arguments are not supported")
        if fn in ("dot", "matmul"):  # the same on the 1-D and 2-D operands `@` takes
            _arity(node, 2)
            return self.matmul(self.value(node.args[0]), self.value(node.args[1]), node)
        if fn == "outer":
            _arity(node, 2)
            return self._outer(node)
        if fn == "transpose":
            _arity(node, 1)
            return transposed(self.value(node.args[0]))
        if fn == "where":  # per element the scalar np.where: NumPy's promotion (x32 with
            _arity(node, 3)  # 0.1 is float32), not the Python choice `a if c else b` (float64)
            return self.elementwise(node, list(node.args), lambda a: ast.Call(func, a, []), False)
        if fn == "clip":
            _arity(node, 3)
            upper = located(ast.Attribute(module, "minimum", ast.Load()), node)
            lower = located(ast.Attribute(module, "maximum", ast.Load()), node)

            def clip(a: list[ast.expr]) -> ast.expr:
                # the bound first: np.maximum returns its second operand of two equal
                # ones, and np.clip keeps x where x equals a bound (-0.0 clipped to
                # [0.0, 1.0] is -0.0; hostile session 48a, 03)
                below = located(ast.Call(lower, [a[1], a[0]], []), node)
                above = ast.Call(upper, [a[2], below], [])
                setattr(below, CLIP_BOUND, "lower")
                setattr(above, CLIP_BOUND, "upper")
                return above

            return self.elementwise(node, list(node.args), clip, True)
        return self.elementwise(node, list(node.args), lambda a: ast.Call(func, a, node.keywords),
                                False)

    def _reduction(self, node: ast.Call, fn: str, module: ast.expr) -> ArrayValue:
        if not 1 <= len(node.args) <= 2 or len(node.args) == 2 and node.keywords:
            raise NotAffine(node, f"np.{fn}()", "takes an array and an optional `axis`")
        v = self.value(node.args[0])
        if v.rank == 0:
            raise NotAffine(node.args[0], f"np.{fn}()", "needs an array operand")
        return self._reduce(v, node, fn, module, node.args[1:], f"np.{fn}")

    def _reduce(self, v: ArrayValue, node: ast.Call, fn: str, module: ast.expr,
                args: list[ast.expr], what: str) -> ArrayValue:
        """``v`` reduced by ``fn`` along the ``axis`` given by ``args`` or a keyword."""
        axis: ast.expr | None = args[0] if args else None
        for kw in node.keywords:
            if kw.arg != "axis":
                raise NotAffine(kw, f"{what}(..., {kw.arg}=)", "only `axis=` is supported")
            axis = kw.value
        if axis is None or isinstance(axis, ast.Constant) and axis.value is None:
            axes = tuple(range(v.rank))
        else:
            parts = axis.elts if isinstance(axis, ast.Tuple) else [axis]
            try:
                consts = [ast.literal_eval(p) for p in parts]
            except ValueError:
                consts = []
            if not consts or not all(isinstance(c, int) and -v.rank <= c < v.rank for c in consts):
                raise NotAffine(axis, "`axis=`", f"must be a constant axis of the {v.rank}-D operand")
            axes = tuple(sorted({c % v.rank for c in consts}))
        return self.emit.reduce(v, axes, fn, module, node)

    def _len(self, node: ast.Call) -> ArrayValue:
        """``len(v)`` of an array value (``len(A[0])``, ``len(A.T)``): its first extent, an
        int; never negative (an empty slice's may be: ``x[k:3]`` with ``k = 5``).  Before, it
        was taken for an elementwise call (hostile session 44a, 03)."""
        v = self.value(node.args[0])
        if not v.rank:  # (hostile session 46, 05: it read "unknown function")
            raise NotAffine(node, f"`{ast.unparse(node)}`", "a scalar has no len() (CPython "
                            "raises TypeError)")
        zero = located(ast.Constant(0), node)
        return scalar(call(located(ast.Name("max", ast.Load()), node),
                           [lin_ast(v.dims[0].extents[0], node), zero], node))

    def _method(self, node: ast.Call, func: ast.Attribute, v: ArrayValue) -> ArrayValue:
        """``A.sum(axis=0)``, ``A.max()``..., ``A.copy()``, ``A.transpose()``, ``A.dot(B)``
        and ``A.astype(np.float32)`` as the NumPy functions they are."""
        fn, what = func.attr, f"`{ast.unparse(func)}()`"
        if fn in REDUCTIONS:
            if len(node.args) > 1 or node.args and node.keywords:
                raise NotAffine(node, what, "takes an optional `axis` only")
            module = self._numpy_name(node, what, fn)
            return self._reduce(v, node, fn, module, list(node.args), ast.unparse(func))
        if node.keywords:
            raise NotAffine(node, what, "keyword arguments are not supported")
        if fn in ("copy", "transpose") and not node.args:
            # a copy is read entirely before the statement writes, as every operand is
            return v if fn == "copy" else transposed(v)
        if fn == "dot" and len(node.args) == 1:
            return self.matmul(v, self.value(node.args[0]), node)
        if fn == "astype" and len(node.args) == 1:
            return self._astype(node, v, node.args[0], what)
        raise NotAffine(node, what, "is not an array method polyopt compiles; write "
                        "`np.sum/max/min/mean/prod(A, axis=...)`, `A.copy()`, `A.T`, `A.dot(B)` "
                        "or `A.astype(np.float32)`, or loop over the elements")

    def _astype(self, node: ast.Call, v: ArrayValue, dtype_arg: ast.expr, what: str) -> ArrayValue:
        """``A.astype(t)``: each element converted by NumPy's scalar type (``np.int64``
        for ``int``, ``np.bool_`` for ``bool``), so it computes on in ``t``, as NumPy's
        array does (``float(x)`` would be a weak Python float: ``x32.astype(float) * y32``
        computed in float32)."""
        dtype = named_dtype(dtype_arg, self.emit.symbols)
        if dtype is None:
            raise NotAffine(dtype_arg, f"dtype `{ast.unparse(dtype_arg)}`", DTYPE_SPELLINGS)
        np_name = self._numpy_name(node, what, "astype")
        type_name = "bool_" if dtype is DType.BOOL else dtype.value
        cast = located(ast.Attribute(np_name, type_name, ast.Load()), node)
        return ArrayValue(v.dims, lambda idx: located(ast.Call(cast, [v.element(idx)], []), node))

    def _numpy_name(self, node: ast.Call, what: str, fn: str) -> ast.expr:
        """A name of the module numpy in the function's globals (``np.maximum``...)."""
        env = self.emit.symbols.facts.env
        name = next((n for n in env.values if env.module_alias(n) == "np"), None)
        if name is None:
            if fn in ("sum", "prod", "mean"):
                return located(ast.Name("np", ast.Load()), node)  # not used by the update
            raise NotAffine(node, what, "needs numpy imported in the function's module "
                            f"(`import numpy as np`, then `np.{fn}(A)`)")
        return located(ast.Name(name, ast.Load()), node)

    def matmul(self, a: ArrayValue, b: ArrayValue, node: ast.expr) -> ArrayValue:
        """``a @ b`` for 1-D and 2-D operands (NumPy's rules for vectors)."""
        if a.rank not in (1, 2) or b.rank not in (1, 2):
            raise NotAffine(node, f"`{ast.unparse(node)}`", "matrix products take 1-D or 2-D arrays")
        k = join_dims(a.dims[-1], b.dims[0], node, f"`{ast.unparse(node)}`", self.equate)
        rows = a.dims[:-1]
        cols = b.dims[1:]
        dims = (*rows, *cols, k)
        nr = len(rows)

        module = located(ast.Name("np", ast.Load()), node)
        ivs = self.emit.ivs(len(dims))
        idx0 = tuple(Lin.var(v) for v in ivs)
        half = all(self.emit.type_of(x, ivs).dtype is DType.FLOAT16 for x in (
            a.element((*idx0[:nr], idx0[-1])), b.element((idx0[-1], *idx0[nr:-1]))))

        def operand(e: ast.expr) -> ast.expr:
            # NumPy multiplies float16 operands in float32 (and sums in float32)
            return converted(e, module, "float32", node) if half else e

        def product(idx: Index) -> ast.expr:
            i, j, kk = idx[:nr], idx[nr:-1], idx[-1]
            return binop(operand(a.element((*i, kk))), ast.Mult(), operand(b.element((kk, *j))),
                         node)

        out = self.emit.reduce(ArrayValue(dims, product), (len(dims) - 1,), "sum", module, node,
                               widen=False)
        return each_converted(out, module, "float16", node) if half else out

    def _outer(self, node: ast.Call) -> ArrayValue:
        a, b = self.value(node.args[0]), self.value(node.args[1])
        if a.rank != 1 or b.rank != 1:
            raise NotAffine(node, "np.outer()", "takes two 1-D arrays")
        return ArrayValue((a.dims[0], b.dims[0]), lambda idx: binop(
            a.element(idx[:1]), ast.Mult(), b.element(idx[1:]), node))


def _arity(node: ast.Call, n: int) -> None:
    if len(node.args) != n or any(isinstance(a, ast.Starred) for a in node.args):
        raise NotAffine(node, f"`{ast.unparse(node.func)}()`", f"takes {n} arguments")


#: NumPy's own spelling of what a scalar function does to each element
_UFUNC_OF = {"max": "np.maximum", "min": "np.minimum", "float": "x.astype(np.float64)",
             "int": "x.astype(np.int64)"}


def _of_numbers(node: ast.Call, out: ArrayValue) -> ArrayValue:
    """``out``, a Python function of numbers (``max``, ``float``, ``math.sin``) of each
    element; refused where an operand is an array (``out``'s rank is the largest):
    CPython raises (``max(x, y)`` asks whether ``x > y`` is true, which is ambiguous for an
    array, and ``float(x[0:1])`` or ``math.sin(x)`` convert only 0-d arrays), where it was
    computed elementwise (hostile session 48a, findings 04 and 05).  ``abs`` is the
    array's own ``__abs__``, elementwise in NumPy too."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else ast.unparse(func)
    if name == "abs" or not out.rank:
        return out
    short = name.split(".")[-1]
    instead = _UFUNC_OF.get(name, f"np.{short}")
    why = ("compares whole arrays, whose truth value is ambiguous (CPython raises "
           "ValueError)") if name in ("max", "min") else \
        "converts a number or a 0-d array only (NumPy raises TypeError)"
    raise NotAffine(node, f"`{name}()` of an array", f"{why}; index an element, or "
                    f"compute elementwise with {instead}")
