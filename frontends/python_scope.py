"""What a name or subscript means at one statement of a Python function: the affine
expression it is in a bound, subscript or test, and the typed value it is on a
right-hand side.

Inside ``for i in range(n)`` with ``k = n - 1`` at the top level, ``A[i, k]`` reads
``A`` at ``(i, n - 1)``; ``i`` is a loop variable, ``n`` a size parameter and ``k`` an
alias of ``n - 1``, while a local scalar ``t`` is a run-time value, refused in a bound.
"""

from __future__ import annotations

import ast

from polyopt.frontends.python_affine import AffineConverter
from polyopt.frontends.python_array_views import through_a_slice
from polyopt.frontends.python_helpers import Helper, at_helper, helper_of, inline_expression
from polyopt.frontends.python_symbols import WIDE_LOCAL, Symbols
from polyopt.frontends.python_values import ValueConverter, ValueScope, lin_to_expr
from polyopt.frontends.refusal import READ_BEFORE_ASSIGNED, NotAffine

from polyopt.model.aff import Formula, Lin, MinMax
from polyopt.model.dtypes import WEAK_INT, DType, ValueType
from polyopt.model.errors import SourceLocation
from polyopt.model.expr import Cast, Expr, Load, Name


class FunctionScope:
    """Resolves names for the statement being converted; :meth:`enter` moves it to the
    next statement (the loop variables around it)."""

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols
        # what array code's subscripts need of the sizes, for the statement being lowered
        # (python_statements records where it must hold): a value that must be >= 0, what
        # it is ("bound" of a slice, "index" into a dimension), its node, the subscript's,
        # and the test under which it is evaluated at all (a branch of `a if c else b`)
        self.index_requirements: list[tuple[Lin, str, ast.expr, ast.expr, Formula]] = []
        self.iters: tuple[str, ...] = ()
        self._scalar_reads: dict[str, SourceLocation] = {}  # local scalars the statement reads
        self.affine = AffineConverter(self._affine_name, self.size, self._helper,
                                      symbols.facts.env.module_alias, self.fixed_width)
        self.values = ValueConverter(ValueScope(
            self._value_name, self.load, self.size, symbols.facts.env.module_alias,
            self._affine_test, symbols.facts.env.imported, self._helper,
            symbols.facts.env.binding))

    def enter(self, iters: tuple[str, ...]) -> None:
        self.iters = iters
        self._scalar_reads = {}

    def take_scalar_reads(self) -> tuple[tuple[str, SourceLocation], ...]:
        """Where each local scalar was first read since the statement began (reports
        point at a read of a scalar that may be uninitialized)."""
        out = tuple(self._scalar_reads.items())
        self._scalar_reads = {}
        return out

    # --- names ----------------------------------------------------------------------------

    def _affine_name(self, node: ast.Name) -> Lin:
        n, sym = node.id, self.symbols
        if n in self.iters:
            return Lin.var(n)
        if n in sym.aliases:
            return sym.aliases[n]
        if n in sym.params:
            return Lin.var(n)
        if n in sym.scalar_args:
            raise NotAffine(node, f"`{n}`", "is a float argument; bounds and subscripts must be integers")
        if sym.is_local(n):
            raise NotAffine(node, f"`{n}`", "is a value computed at run time; bounds, subscripts and "
                            "`if` tests must be affine in loop variables and sizes")
        if n in sym.arrays:
            raise NotAffine(node, f"`{n}`", "is an array, not an integer")
        constant = sym.facts.env.int_constant(node)
        if constant is not None:
            return constant
        raise NotAffine(node, f"`{n}`", sym.facts.env.unusable(node, affine=True))

    def fixed_width(self, node: ast.Name) -> str | None:
        """The NumPy integer type of an argument or global whose arithmetic wraps (any
        but int64 and bool, which meet Python ints exactly enough); None for another name."""
        n, sym = node.id, self.symbols
        if n in self.iters or n in sym.aliases or sym.is_local(n) or n in sym.arrays:
            return None
        if n in sym.scalar_args:
            t = sym.scalar_args[n]
            dtype = None if t.weak else t.dtype
        else:
            dtype = sym.facts.env.int_dtype(n)
        if dtype is None or not dtype.is_int or dtype is DType.INT64:
            return None
        return str(dtype.value)

    def _helper(self, call: ast.Call) -> tuple[ast.expr, str] | None:
        """A call to a helper function as the expression it returns (python_helpers)."""
        helper = self.helper_called(call)
        if helper is None:
            return None
        return (inline_expression(helper, call, self.symbols.facts, self.symbols.arrays),
                at_helper(helper))

    def helper_called(self, call: ast.Call) -> Helper | None:
        """The helper ``call`` calls; None for another call."""
        if not isinstance(call.func, ast.Name):
            return None
        n, sym = call.func.id, self.symbols
        if n in sym.arrays or n in sym.scalar_args or n in sym.params or sym.is_local(n):
            return None
        return helper_of(sym.facts.env.values.get(n), call)

    def _affine_test(self, node: ast.AST) -> Formula | None:
        try:
            return self.affine.formula(node)
        except NotAffine:
            return None

    def _value_name(self, node: ast.Name) -> Expr:
        n, sym = node.id, self.symbols
        if n in self.iters:
            return Name(n, WEAK_INT)
        if n in sym.aliases:
            return lin_to_expr(sym.aliases[n])
        if n in sym.scalar_args:
            return Name(n, sym.scalar_args[n])
        if n in sym.params:
            return Name(n, WEAK_INT)
        if sym.is_local(n):
            self._scalar_reads.setdefault(n, sym.facts.src.location(node))
            if sym.held_wide(n):
                return Cast(Name(n, WIDE_LOCAL), sym.local_type(n))
            return Name(n, sym.local_type(n))
        if n in sym.arrays:
            raise NotAffine(node, f"`{n}`", "an array cannot be used as a value (index it)")
        constant = sym.facts.env.value_constant(node)
        if constant is not None:
            return constant
        if n in sym.facts.loop_vars:
            raise NotAffine(node, f"loop variable `{n}`", "is used outside its loop")
        if n in sym.facts.assign_count:
            raise NotAffine(node, f"`{n}`", READ_BEFORE_ASSIGNED)
        raise NotAffine(node, f"`{n}`", sym.facts.env.unusable(node, affine=False))

    # --- sizes and subscripts -------------------------------------------------------------

    def size(self, node: ast.AST) -> Lin | None:
        """The size parameter ``X.shape[d]`` or ``len(x)`` stands for; None for another node."""
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name)
        ):
            arr = node.value.value.id
            if arr not in self.symbols.arrays:
                raise NotAffine(node, f"`{arr}.shape`", self.not_an_array(arr))
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)) and not (
                isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.operand, ast.Constant)
            ):
                raise NotAffine(node, f"`{arr}.shape[...]`", "the dimension must be a constant")
            d = ast.literal_eval(node.slice)
            return self.symbols.shape_param(node, arr, d)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
        ):
            arr = node.args[0].id
            if arr not in self.symbols.arrays:
                raise NotAffine(node, "`len()`", self.not_an_array(arr))
            return self.symbols.shape_param(node, arr, 0)
        return None

    def not_an_array(self, name: str) -> str:
        if name not in self.symbols.scalar_args and self.symbols.facts.env.is_array(name):
            # a global array's data and shape would be compiled in: it must be an argument
            return f"global arrays are not supported: pass `{name}` as an argument"
        return f"{name!r} is not an array"

    def indices(self, node: ast.Subscript) -> tuple[str, tuple[Lin, ...]]:
        """The array ``node`` subscripts and its affine indices (a constant negative index
        counts from the end, as in Python)."""
        base = node.value
        while isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name):
            what = self.symbols.facts.env.binding(base.func.id)
            if what is not None and what.startswith("the function builtins."):
                # a builtin polyopt does not compile: said first, not "make it a local"
                # whose call is then refused (hostile session 47a, 04: divmod(x, 3)[0])
                raise NotAffine(base, f"call to {base.func.id}()", f"unknown function: "
                                f"`{base.func.id}` is {what}, which polyopt does not compile")
        name, idx = _subscript_parts(node)
        if name not in self.symbols.arrays:
            raise NotAffine(node, f"`{ast.unparse(node)}`", self.not_an_array(name))
        info = self.symbols.arrays[name]
        if through_a_slice(node):
            # (hostile session 44a, 02: each subscript of the chain was counted as a dimension)
            raise NotAffine(node, f"`{ast.unparse(node)}`",
                            "an element of a sliced view is supported as a value, not as "
                            f"the target of an assignment: index {name} itself, at the "
                            "element the view's subscript names (as `x[2:][1]` is `x[3]`)")
        if len(idx) != info.rank:
            raise NotAffine(node, f"`{ast.unparse(node)}`",
                            f"{name} has {info.rank} dimension(s) but is indexed with {len(idx)}")
        out: list[Lin] = []
        for d, ix in enumerate(idx):
            if isinstance(ix, ast.Slice):
                raise NotAffine(ix, "slice", "slicing is not supported; write a loop")
            if any(isinstance(s, ast.Subscript) and self._is_array_subscript(s) for s in ast.walk(ix)):
                raise NotAffine(ix, "indirect subscript", f"`{ast.unparse(ix)}` reads an array; "
                                f"subscripts must be affine{_DATA_INDEX}")
            try:
                a = self.affine.aff(ix)
            except NotAffine as e:
                if not any(isinstance(n, ast.Name) and self.symbols.is_local(n.id) for n in ast.walk(ix)):
                    raise
                raise NotAffine(e.node, f"subscript `{ast.unparse(ix)}`",
                                f"{e.construct} {e.reason}{_DATA_INDEX}") from None
            if isinstance(a, MinMax):
                raise NotAffine(ix, "min/max subscript", "subscripts must be affine (no min/max)")
            if a.is_constant() and a.const < 0:  # Python wraps a constant negative index
                a = self.symbols.shape_param(ix, name, d) + a
            out.append(a)
        return name, tuple(out)

    def _is_array_subscript(self, s: ast.Subscript) -> bool:
        if isinstance(s.value, ast.Attribute) and s.value.attr == "shape":
            return False  # `x[x.shape[0] - 1 - i]`: a size, not data
        try:
            name, _ = _subscript_parts(s)
        except NotAffine:
            return True
        return name in self.symbols.arrays

    def load(self, node: ast.Subscript) -> Load:
        name, indices = self.indices(node)
        return Load(name, indices, ValueType(self.symbols.arrays[name].dtype))


#: what to do about an index computed from data, which no static analysis can follow
_DATA_INDEX = ("; an index computed from the data (a histogram's bin, a gather) cannot be "
               "analysed: keep that loop in Python, or use @polyopt.jit(fallback=True)")


def _subscript_parts(node: ast.Subscript) -> tuple[str, list[ast.expr]]:
    """``A[i, j]`` and ``A[i][j]``: ``("A", [i, j])``."""
    idx: list[ast.expr] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Subscript):
        sl = cur.slice
        parts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        idx = parts + idx
        cur = cur.value
    if isinstance(cur, ast.Call):
        raise NotAffine(node, f"`{ast.unparse(node)}`", "a subscript of a new array is not "
                        "supported here: make it a local first (`t = "
                        f"{ast.unparse(cur)}`, then `t[...]`)")
    if not isinstance(cur, ast.Name):
        raise NotAffine(node, f"`{ast.unparse(node)}`", "only subscripts of array names are supported")
    return cur.id, idx
