"""Top-level bindings of a Python function that are declarations, not statements:
sizes (``n, m = A.shape``, ``n = len(x)``, affine int aliases ``k = n - 1``) and array
allocations (``np.empty``, ``np.zeros``, ``np.ones``).

``np.zeros``/``np.ones`` also fill the array, with a loop nest that runs before
everything else::

    T = np.zeros((n, m))     # for i0 in range(n):
                             #     for i1 in range(m):
                             #         T[i0, i1] = 0.0
"""

from __future__ import annotations

import ast

from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_symbols import ArrayInfo
from polyopt.frontends.refusal import NotAffine
from polyopt.frontends.scop_builder import Place, ScopBuilder, loop_band

from polyopt.model.aff import Cmp, Formula, Lin, MinMax, conj
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.expr import Literal
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import ArrayKind

_ALLOC = {"empty", "zeros", "ones"}


def is_allocation(value: ast.AST, env: Environment) -> bool:
    """``np.empty(...)``, ``np.zeros(...)`` or ``np.ones(...)``."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and env.module_alias(value.func.value.id) == "np"
        and value.func.attr in _ALLOC
    )


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
        if sym.facts.assign_count.get(n, 0) != 1 or n in sym.arrays or n in sym.scalar_args:
            return False
        if isinstance(value, ast.Call) and is_allocation(value, sym.facts.env):
            self._allocate(target, value)
            return True
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute) and \
                value.value.attr == "shape" and isinstance(value.value.value, ast.Name) and \
                value.value.value.id in sym.arrays and isinstance(value.slice, ast.Constant) and \
                isinstance(value.slice.value, int):
            arr = value.value.value.id
            sym.bind_dim(target, n, arr, value.slice.value % max(sym.arrays[arr].rank, 1))
            return True
        try:
            a = self.scope.affine.aff(value)
        except NotAffine:
            return False
        if isinstance(a, MinMax):
            return False
        sym.aliases[n] = a
        return True

    def _allocate(self, target: ast.Name, call: ast.Call) -> None:
        kind = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        if not call.args:
            raise NotAffine(call, f"np.{kind}()", "needs a shape")
        shape_node = call.args[0]
        elts = shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node]
        shape: list[Lin] = []
        for e in elts:
            a = self.scope.affine.aff(e)
            if isinstance(a, MinMax):
                raise NotAffine(e, "array shape", "must be affine in sizes (no min/max)")
            shape.append(a)
        dtype_node = call.args[1] if len(call.args) > 1 else None
        for kw in call.keywords:
            if kw.arg == "dtype":
                dtype_node = kw.value
            else:
                raise NotAffine(kw, f"np.{kind}(..., {kw.arg}=)", "only `dtype=` is supported")
        dtype = self._dtype(dtype_node) if dtype_node is not None else DType.FLOAT64
        self.symbols.arrays[target.id] = ArrayInfo(dtype, len(shape), ArrayKind.TEMPORARY, list(shape))
        if kind in ("zeros", "ones"):
            self._fill(target, target.id, shape, dtype, 0 if kind == "zeros" else 1)

    def _fill(self, node: ast.AST, name: str, shape: list[Lin], dtype: DType, value: int) -> None:
        facts = self.symbols.facts
        location = facts.src.location(node)
        iters: list[str] = []
        conds: list[Formula] = []
        loop_ids: list[str] = []
        for d, extent in enumerate(shape):
            it = facts.fresh(f"i{d}", self.symbols.params)
            iters.append(it)
            conds += [Cmp(">=", Lin.var(it), Lin.constant(0)), Cmp("<", Lin.var(it), extent)]
            loop_ids.append(self.scop.new_loop(tuple(loop_ids), it, location))
        lit = Literal(float(value) if dtype.is_float else value, ValueType(dtype))
        place = Place(tuple(iters), (conj(*conds),) if conds else (), tuple(loop_ids))
        nodes: list[Node] = [self.scop.add(place, name, tuple(Lin.var(i) for i in iters), lit,
                                           None, location)]
        for it, loop_id in reversed(list(zip(iters, loop_ids, strict=True))):
            nodes = loop_band(loop_id, it, 1, nodes)
        self.fills += nodes

    def _dtype(self, node: ast.AST) -> DType:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return DType(node.value)
            except ValueError:
                pass
        if isinstance(node, ast.Name) and node.id in ("float", "int"):
            return DType.FLOAT64 if node.id == "float" else DType.INT64
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr == "dtype" and node.value.id in self.symbols.arrays:
                return self.symbols.arrays[node.value.id].dtype
            if self.symbols.facts.env.module_alias(node.value.id) == "np":
                try:
                    return DType(node.attr)
                except ValueError:
                    pass
        raise NotAffine(node, f"dtype `{ast.unparse(node)}`",
                        "use np.float64, np.float32, np.int64, np.int32, float, int or A.dtype")
