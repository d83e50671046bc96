"""Top-level bindings of a Python function that are declarations, not statements:
sizes (``n, m = A.shape``, ``n = len(x)``, affine int aliases ``k = n - 1``) and array
allocations (``np.empty``, ``np.zeros``, ``np.ones``, ``np.full``, and their ``_like``
forms).

``np.zeros``/``np.ones``/``np.full`` also fill the array, with a loop nest that runs before
everything else::

    T = np.zeros((n, m))     # for i0 in range(n):
                             #     for i1 in range(m):
                             #         T[i0, i1] = 0.0
"""

from __future__ import annotations

import ast

from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_math import ALLOCATIONS
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_symbols import ArrayInfo, Symbols
from polyopt.frontends.python_values import check_fits
from polyopt.frontends.refusal import NotAffine
from polyopt.frontends.scop_builder import Place, ScopBuilder, loop_band

from polyopt.model.aff import Cmp, Formula, Lin, MinMax, conj
from polyopt.model.dtypes import WEAK_FLOAT, WEAK_INT, DType, ValueType, numpy_named
from polyopt.model.expr import Cast, Expr, Literal, Load, Name, walk
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import ArrayKind

_BUILTIN_DTYPES = {"float": DType.FLOAT64, "int": DType.INT64, "bool": DType.BOOL}


def allocation_kind(value: ast.AST, env: Environment) -> str | None:
    """``"zeros"`` for ``np.zeros(...)`` (or ``zeros(...)`` imported from NumPy), and so
    on for the allocations of :data:`ALLOCATIONS`; None for another value."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        kind = func.attr if env.module_alias(func.value.id) == "np" else None
    elif isinstance(func, ast.Name):
        imported = env.imported(func.id)
        kind = imported[0] if imported is not None and imported[1] == "np" else None
    else:
        kind = None
    return kind if kind in ALLOCATIONS else None


class Bindings:
    """Declares sizes, aliases and arrays; ``fills`` are the fill loops of allocations."""

    def __init__(self, scope: FunctionScope, scop: ScopBuilder) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self.scop = scop
        self.fills: list[Node] = []

    def bind(self, target: ast.AST, value: ast.AST) -> bool:
        """Declare ``target = value`` at the top level when it is a size, an alias or an
        allocation; False when it is an ordinary assignment."""
        sym = self.symbols
        if isinstance(target, ast.Tuple):
            if (isinstance(value, ast.Attribute) and value.attr == "shape"
                    and isinstance(value.value, ast.Name) and value.value.id in sym.arrays):
                arr = value.value.id
                if len(target.elts) != sym.arrays[arr].rank:
                    raise NotAffine(target, "shape unpacking",
                                    f"{arr} has {sym.arrays[arr].rank} dimension(s), "
                                    f"unpacked into {len(target.elts)} names")
                for d, elt in enumerate(target.elts):
                    if not isinstance(elt, ast.Name):
                        raise NotAffine(elt, "shape unpacking", "targets must be names")
                    sym.bind_dim(elt, elt.id, arr, d)
                return True
            return False
        if not isinstance(target, ast.Name):
            return False
        n = target.id
        if n in sym.arrays or n in sym.scalar_args:
            return False
        kind = allocation_kind(value, sym.facts.env)
        count = sym.facts.assign_count.get(n, 0)
        if kind is not None and sym.facts.rebindings(n) == 1:
            assert isinstance(value, ast.Call)
            self._allocate(target, value, kind)
            return True
        if count != 1:
            return False
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute) and \
                value.value.attr == "shape" and isinstance(value.value.value, ast.Name) and \
                value.value.value.id in sym.arrays and isinstance(value.slice, ast.Constant) and \
                isinstance(value.slice.value, int):
            arr = value.value.value.id
            sym.bind_dim(target, n, arr, sym.dimension(value, arr, value.slice.value))
            return True
        if isinstance(value, ast.Name) and self.scope.affine.fixed_width(value) is not None:
            return False  # a local of the NumPy integer's type: `m - 20` wraps as NumPy's does
        try:
            a = self.scope.affine.aff(value)
        except NotAffine:
            return False
        if isinstance(a, MinMax):
            return False
        sym.aliases[n] = a
        return True

    def _allocate(self, target: ast.Name, call: ast.Call, kind: str) -> None:
        """``target = np.<kind>(...)``: a temporary, filled first unless ``empty``."""
        like = kind.endswith("_like")
        n_args = 2 if kind in ("full", "full_like") else 1
        if len(call.args) < n_args:
            raise NotAffine(call, f"np.{kind}()", "needs " + (
                "an array" if like else "a shape") + (" and a fill value" if n_args == 2 else ""))
        dtype_node = call.args[n_args] if len(call.args) > n_args else None
        for kw in call.keywords:
            if kw.arg == "dtype":
                dtype_node = kw.value
            else:
                raise NotAffine(kw, f"np.{kind}(..., {kw.arg}=)", "only `dtype=` is supported")
        shape, dtype = self._like(call.args[0], kind) if like else (self._shape(call.args[0]), None)
        fill = self._fill_value(call.args[1]) if n_args == 2 else None
        if dtype_node is not None:
            dtype = self._dtype(dtype_node)
        elif dtype is None:  # np.full(shape, 3) is an int64 array, np.zeros(n) a float64 one
            dtype = fill.type.dtype if fill is not None else DType.FLOAT64
        self.symbols.arrays[target.id] = ArrayInfo(dtype, len(shape), ArrayKind.TEMPORARY, list(shape))
        if kind.startswith(("zeros", "ones")):
            fill = Literal(0 if kind.startswith("zeros") else 1, WEAK_INT)
        if fill is not None:
            check_fits(fill, dtype, call.args[1] if n_args == 2 else call)
            self._fill(target, target.id, shape, dtype, fill)

    def _shape(self, node: ast.expr) -> list[Lin]:
        shape: list[Lin] = []
        for e in node.elts if isinstance(node, ast.Tuple) else [node]:
            a = self.scope.affine.aff(e)
            if isinstance(a, MinMax):
                raise NotAffine(e, "array shape", "must be affine in sizes (no min/max)")
            shape.append(a)
        return shape

    def _like(self, node: ast.expr, kind: str) -> tuple[list[Lin], DType]:
        """The shape and dtype of the array ``np.<kind>(node)`` copies them from."""
        sym = self.symbols
        if not (isinstance(node, ast.Name) and node.id in sym.arrays):
            raise NotAffine(node, f"np.{kind}({ast.unparse(node)})", "takes an array of the function")
        info = sym.arrays[node.id]
        return [sym.extent(node.id, d) for d in range(info.rank)], info.dtype

    def _fill_value(self, node: ast.expr) -> Expr:
        """A fill value: it is stored before any statement runs, so it may read only
        arguments and constants."""
        value = self.scope.values.convert(node)
        for e in walk(value):
            if isinstance(e, Load) or (isinstance(e, Name) and self.symbols.is_local(e.name)):
                raise NotAffine(node, "fill value", "may use only arguments and constants "
                                "(allocations are filled before the function's statements run)")
        return value

    def _fill(self, node: ast.AST, name: str, shape: list[Lin], dtype: DType, value: Expr) -> None:
        facts = self.symbols.facts
        location = facts.src.statement_location(node)
        iters: list[str] = []
        conds: list[Formula] = []
        loop_ids: list[str] = []
        for d, extent in enumerate(shape):
            it = facts.fresh(f"i{d}", self.symbols.params)
            iters.append(it)
            conds += [Cmp(">=", Lin.var(it), Lin.constant(0)), Cmp("<", Lin.var(it), extent)]
            loop_ids.append(self.scop.new_loop(tuple(loop_ids), it, location))
        t = ValueType(dtype)
        if value.type == WEAK_FLOAT and not dtype.is_float:
            # np.full casts its fill as an array: a Python float is a NumPy float64 there
            # (np.full(n, -1.5, np.uint8) holds 255, where `u8[i] = -1.5` raises)
            value = Cast(value, ValueType(DType.FLOAT64))
        if isinstance(value, Literal):
            lit: Expr = Literal(float(value.value) if dtype.is_float else value.value, t)
        else:
            lit = value if value.type == t else Cast(value, t, unsafe=True)
        place = Place(tuple(iters), (conj(*conds),) if conds else (), tuple(loop_ids))
        nodes: list[Node] = [self.scop.add(place, name, tuple(Lin.var(i) for i in iters), lit,
                                           None, location)]
        for it, loop_id in reversed(list(zip(iters, loop_ids, strict=True))):
            nodes = loop_band(loop_id, it, 1, nodes)
        self.fills += nodes

    def _dtype(self, node: ast.AST) -> DType:
        named = named_dtype(node, self.symbols)
        if named is not None:
            return named
        raise NotAffine(node, f"dtype `{ast.unparse(node)}`", DTYPE_SPELLINGS)


#: how a dtype argument may be written (np.zeros(n, dtype), A.astype(dtype))
DTYPE_SPELLINGS = ("use a NumPy type (np.float64, np.float32, np.int8, np.uint8, np.bool_...), "
                   "float, int, bool or A.dtype")


def named_dtype(node: ast.AST, symbols: Symbols) -> DType | None:
    """The dtype a dtype argument names (``np.float32``, ``"int8"``, ``bool``,
    ``A.dtype``, ``float32`` imported from NumPy); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return numpy_named(node.value)
    if isinstance(node, ast.Name) and node.id in _BUILTIN_DTYPES:
        return _BUILTIN_DTYPES[node.id]
    if isinstance(node, ast.Name):
        imported = symbols.facts.env.imported(node.id)
        if imported is not None and imported[1] == "np":  # `from numpy import float32`
            return numpy_named(imported[0])
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.attr == "dtype" and node.value.id in symbols.arrays:
            return symbols.arrays[node.value.id].dtype
        if symbols.facts.env.module_alias(node.value.id) == "np":
            return numpy_named(node.attr)
    return None
