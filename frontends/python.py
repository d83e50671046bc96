"""The Python frontend: a function of loops over NumPy arrays becomes a :class:`Scop`.

The accepted language is documented in the README ("What polyopt accepts").
Everything else is reported, all at once, as :class:`polyopt.UnsupportedError`
pointing at the construct.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

import numpy as np
from polyopt.frontends.python_affine import AffineConverter, NotAffine
from polyopt.frontends.python_choices import follow_cpython
from polyopt.frontends.python_names import renamed_signature, renamed_source, renaming
from polyopt.frontends.python_source import FunctionSource, function_source
from polyopt.frontends.python_values import ValueConverter, ValueScope, binary, lin_to_expr

from polyopt import isl_text
from polyopt.aff import TRUE, Cmp, Divisible, Formula, Lin, MinMax, Not, Or, conj, pieces
from polyopt.dtypes import WEAK_FLOAT, WEAK_INT, DType, ValueType, join
from polyopt.errors import ArgumentTypeError, Problem, SourceLocation, UnsupportedError
from polyopt.expr import Cast, Expr, Literal, Load, Name, names_read, walk
from polyopt.model import (
    Access,
    Array,
    ArrayKind,
    Loop,
    ReturnValue,
    Scalar,
    ScalarKind,
    Scop,
    Statement,
)
from polyopt.names import user_text
from polyopt.schedule_tree import Band, Leaf, LoopDim, Node, Sequence, statements
from polyopt.signature import ArrayType, ScalarType, Signature

_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**"}
_ALLOC = {"empty", "zeros", "ones"}
_UNSUPPORTED_STMT = {
    ast.While: "`while` loop", ast.Break: "`break`", ast.Continue: "`continue`",
    ast.With: "`with` block", ast.Try: "`try` block", ast.FunctionDef: "nested function",
    ast.ClassDef: "class definition", ast.Global: "`global`", ast.Nonlocal: "`nonlocal`",
    ast.Delete: "`del`", ast.Raise: "`raise`", ast.Assert: "`assert`", ast.Import: "`import`",
    ast.ImportFrom: "`import`", ast.AsyncFor: "`async for`",
}


def parse_function(fn: object, signature: Signature | None = None) -> Scop:
    """The polyhedral model of ``fn`` for ``signature`` (inferred from use when None)."""
    src = function_source(fn)
    # names isl or C cannot take are renamed; messages spell them as the user did
    renames = renaming(src)
    src = renamed_source(src, renames)
    signature = renamed_signature(signature, renames)
    if signature is not None:
        try:
            _check_argument_kinds(src, signature)
        except TypeError as exc:
            raise ArgumentTypeError(user_text(str(exc))) from None
    env = _globals_of(fn)
    _check_shadowed_builtins(src, env)
    local_types: dict[str, ValueType] = {}
    for _ in range(6):
        builder = _Builder(src, signature, env, dict(local_types))
        try:
            scop = builder.build()
        except RecursionError:
            raise _too_deep(src) from None
        if builder.local_types == local_types:
            break
        local_types = builder.local_types
    if builder.problems:
        raise UnsupportedError(sorted(builder.problems, key=lambda p: (p.location.line, p.location.col)))
    assert scop is not None
    return scop


def _too_deep(src: FunctionSource) -> UnsupportedError:
    """The clean refusal of an expression nested beyond what the converter recurses
    through, at the statement holding the deepest one."""
    best: tuple[int, ast.AST] = (0, src.tree)
    stack: list[tuple[ast.AST, int, ast.AST]] = [(src.tree, 0, src.tree)]
    while stack:
        node, depth, stmt = stack.pop()
        if isinstance(node, ast.stmt):
            stmt, depth = node, 0
        if depth > best[0]:
            best = (depth, stmt)
        stack.extend((c, depth + 1, stmt) for c in ast.iter_child_nodes(node))
    return UnsupportedError([src.problem(
        best[1], "expression", f"is nested {best[0]} levels deep, more than polyopt handles "
        "(split it into several statements)")])


def _check_argument_kinds(src: FunctionSource, signature: Signature) -> None:
    """A TypeError when an argument is not what the code uses it as: a scalar passed
    for a name the code subscripts, or an array of another rank than every use of it
    has (``A[i, j]`` and ``n, m = A.shape`` want 2).  The code is fine; the call is not."""
    inner = {id(n.value) for n in ast.walk(src.tree) if isinstance(n, ast.Subscript)}
    uses: dict[str, list[tuple[int, ast.AST]]] = {}
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Subscript) and id(n) not in inner:
            rank, cur = 0, n
            while isinstance(cur, ast.Subscript):
                rank += len(cur.slice.elts) if isinstance(cur.slice, ast.Tuple) else 1
                cur = cur.value
            if isinstance(cur, ast.Name):
                uses.setdefault(cur.id, []).append((rank, n))
        elif (isinstance(n, ast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], ast.Tuple) and isinstance(n.value, ast.Attribute)
              and n.value.attr == "shape" and isinstance(n.value.value, ast.Name)
              and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts)):
            uses.setdefault(n.value.value.id, []).append((len(n.targets[0].elts), n))
    for name, t in signature.args:
        found = uses.get(name)
        if not found:
            continue
        rank, node = min(found, key=lambda u: (u[1].lineno, u[1].col_offset))
        where = f"`{ast.unparse(node)}` at {src.location(node)}"
        if isinstance(t, ScalarType):
            raise TypeError(f"{src.tree.name}() uses argument {name!r} as an array ({where}), "
                            f"but a {t} was passed")
        ranks = {r for r, _ in found}
        if isinstance(t, ArrayType) and len(ranks) == 1 and rank != t.ndim:
            raise TypeError(f"argument {name!r} has {t.ndim} dimension(s), but {src.tree.name}() "
                            f"uses it with {rank} ({where})")


#: bool constants are refused rather than read as Python's int 0/1: `x * FLAG` reads as a
#: mistake more often than as arithmetic, and a bool global changed from an int must not
#: silently keep compiling as a number
_BOOL_GLOBAL = "bool globals are not supported (use an int 0 or 1, or pass it as an argument)"


def _int64_global(node: ast.AST, name: str, value: int) -> int:
    """A global int constant, refused when it does not fit the int64 the C code uses."""
    if not -(2**63) <= value < 2**63:
        raise NotAffine(node, f"`{name}`", f"global int {value} does not fit in 64 bits")
    return value


#: Builtins the frontend compiles itself; a module that redefines one would get the
#: builtin's meaning instead of its own, so such a redefinition is refused.
_INTERPRETED_BUILTINS = frozenset({"range", "len", "abs", "min", "max", "int", "float"})


def _check_shadowed_builtins(src: FunctionSource, env: dict[str, object]) -> None:
    shadowed = [n for n in ast.walk(src.tree)
                if isinstance(n, ast.Name) and n.id in _INTERPRETED_BUILTINS and n.id in env]
    if shadowed:
        raise UnsupportedError([src.problem(
            n, f"`{n.id}`", f"redefines the builtin {n.id}() in the function's module or closure; "
            f"polyopt compiles only the builtin (rename the redefinition)") for n in shadowed])


def _globals_of(fn: object) -> dict[str, object]:
    env = dict(getattr(fn, "__globals__", {}))
    code = getattr(fn, "__code__", None)
    closure = getattr(fn, "__closure__", None)
    if code is not None and closure:
        for name, cell in zip(code.co_freevars, closure, strict=True):
            try:
                env[name] = cell.cell_contents
            except ValueError:
                pass
    return env


@dataclass(frozen=True)
class _Ctx:
    iters: tuple[str, ...] = ()
    conds: tuple[Formula, ...] = ()
    loops: tuple[str, ...] = ()

    @property
    def top(self) -> bool:
        return not self.iters and not self.conds


@dataclass
class _PendingStmt:
    name: str
    iters: tuple[str, ...]
    cond: Formula
    target: str
    indices: tuple[Lin, ...]
    value: Expr
    update_op: str | None
    loops: tuple[str, ...]
    node: ast.AST
    read_at: tuple[tuple[str, SourceLocation], ...] = ()


@dataclass
class _ArrayInfo:
    dtype: DType
    rank: int
    kind: ArrayKind
    shape: list[Lin | None] = field(default_factory=list)


class _Builder:
    def __init__(
        self, src: FunctionSource, signature: Signature | None, env: dict[str, object],
        local_types: dict[str, ValueType],
    ) -> None:
        self.src = src
        self.sig = signature
        self.env = env
        self.prior_types = local_types
        self.local_types: dict[str, ValueType] = {}
        self.problems: list[Problem] = []
        self.arrays: dict[str, _ArrayInfo] = {}
        self.scalar_args: dict[str, ValueType] = {}
        self.params: list[str] = []
        self.param_sources: dict[str, tuple[str, int]] = {}
        self.aliases: dict[str, Lin] = {}
        self.dim_params: dict[tuple[str, int], str] = {}
        self.stmts: list[_PendingStmt] = []
        self.loops: dict[str, Loop] = {}
        self.returns: ReturnValue | None = None
        self.assign_count: dict[str, int] = {}
        self.affine = AffineConverter(self._affine_name, self._size)
        self.values = ValueConverter(
            ValueScope(self._value_name, self._load, self._size, self._module_alias,
                       self._affine_test)
        )
        self.used_names: set[str] = set()
        self.scalar_reads: dict[str, SourceLocation] = {}  # local scalars read by the statement
        self.loop_vars: set[str] = set()

    # --- entry --------------------------------------------------------------------------

    def build(self) -> Scop | None:
        fdef = self.src.tree
        self.used_names = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
        self.loop_vars = {n.target.id for n in ast.walk(fdef)
                          if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}
        self._count_assignments(fdef)
        self._arguments(fdef)
        body = list(fdef.body)
        nodes = self._block(body, _Ctx(), top=True)
        if self.problems:
            return None
        return self._finish(nodes)

    def problem(self, node: ast.AST, construct: str, reason: str) -> None:
        self.problems.append(self.src.problem(node, construct, reason))

    def _count_assignments(self, fdef: ast.FunctionDef) -> None:
        for n in ast.walk(fdef):
            targets: list[ast.AST] = []
            if isinstance(n, ast.Assign):
                targets = list(n.targets)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)):
                targets = [n.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                        self.assign_count[leaf.id] = self.assign_count.get(leaf.id, 0) + 1

    # --- arguments ----------------------------------------------------------------------

    def _arguments(self, fdef: ast.FunctionDef) -> None:
        a = fdef.args
        if a.vararg or a.kwarg:
            self.problem(fdef, "`*args`/`**kwargs`", "only named arguments are supported")
        names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        self.arg_order = tuple(names)
        inferred = _infer_arg_kinds(fdef, names) if self.sig is None else {}
        for name in names:
            t = self.sig.get(name) if self.sig is not None else inferred.get(name)
            if isinstance(t, ArrayType):
                self.arrays[name] = _ArrayInfo(t.dtype, t.ndim, ArrayKind.ARGUMENT, [None] * t.ndim)
            elif isinstance(t, ScalarType):
                self.scalar_args[name] = t.type
                if t.is_int:
                    self._add_param(name)
            elif t is None and self.sig is not None:
                self.problem(fdef, f"argument {name!r}", "has no type in the signature")

    def _add_param(self, name: str) -> Lin:
        if name not in self.params:
            self.params.append(name)
        return Lin.var(name)

    def _shape_param(self, node: ast.AST, array: str, d: int) -> Lin:
        info = self.arrays[array]
        if not -info.rank <= d < info.rank:
            raise NotAffine(node, f"`{array}.shape[{d}]`", f"{array} has only {info.rank} dimension(s)")
        d %= info.rank
        if info.kind is not ArrayKind.ARGUMENT:
            known = info.shape[d]
            assert known is not None
            return known
        key = (array, d)
        if key not in self.dim_params:
            name = f"{array}_shape{d}"
            while name in self.used_names:
                name += "_"
            self.dim_params[key] = name
            self.param_sources[name] = key
            self._add_param(name)
        return Lin.var(self.dim_params[key])

    def _bind_dim(self, node: ast.AST, alias: str, array: str, d: int) -> None:
        """``alias = array.shape[d]``: the parameter takes the user's name when it can."""
        info = self.arrays[array]
        if info.kind is ArrayKind.ARGUMENT and (array, d) not in self.dim_params and (
            self.assign_count.get(alias, 0) == 1 and alias not in self.params
        ):
            self.dim_params[(array, d)] = alias
            self.param_sources[alias] = (array, d)
            self._add_param(alias)
            return
        self.aliases[alias] = self._shape_param(node, array, d)

    # --- name resolution ----------------------------------------------------------------

    def _module_alias(self, name: str) -> str | None:
        obj = self.env.get(name)
        if obj is math:
            return "math"
        if obj is np:
            return "np"
        return None

    def _size(self, node: ast.AST) -> Lin | None:
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name)
        ):
            arr = node.value.value.id
            if arr not in self.arrays:
                raise NotAffine(node, f"`{arr}.shape`", self._not_an_array(arr))
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)) and not (
                isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.operand, ast.Constant)
            ):
                raise NotAffine(node, f"`{arr}.shape[...]`", "the dimension must be a constant")
            d = ast.literal_eval(node.slice)
            return self._shape_param(node, arr, d)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
        ):
            arr = node.args[0].id
            if arr not in self.arrays:
                raise NotAffine(node, "`len()`", self._not_an_array(arr))
            return self._shape_param(node, arr, 0)
        return None

    def _affine_name(self, node: ast.Name) -> Lin:
        n = node.id
        if n in self.ctx_iters:
            return Lin.var(n)
        if n in self.aliases:
            return self.aliases[n]
        if n in self.params:
            return Lin.var(n)
        if n in self.scalar_args:
            raise NotAffine(node, f"`{n}`", "is a float argument; bounds and subscripts must be integers")
        if n in self.local_types or n in self.prior_types:
            raise NotAffine(node, f"`{n}`", "is a value computed at run time; bounds, subscripts and "
                            "`if` tests must be affine in loop variables and sizes")
        if n in self.arrays:
            raise NotAffine(node, f"`{n}`", "is an array, not an integer")
        g = self.env.get(n)
        if isinstance(g, bool):
            raise NotAffine(node, f"`{n}`", _BOOL_GLOBAL)
        if isinstance(g, int):
            return Lin.constant(_int64_global(node, n, g))
        raise NotAffine(node, f"`{n}`", "unknown name")

    def _affine_test(self, node: ast.AST) -> Formula | None:
        try:
            return self.affine.formula(node)
        except NotAffine:
            return None

    def _value_name(self, node: ast.Name) -> Expr:
        n = node.id
        if n in self.ctx_iters:
            return Name(n, WEAK_INT)
        if n in self.aliases:
            return lin_to_expr(self.aliases[n])
        if n in self.scalar_args:
            return Name(n, self.scalar_args[n])
        if n in self.params:
            return Name(n, WEAK_INT)
        if n in self.local_types or n in self.prior_types:
            self.scalar_reads.setdefault(n, self.src.location(node))
            return Name(n, self.prior_types.get(n) or self.local_types[n])
        if n in self.arrays:
            raise NotAffine(node, f"`{n}`", "an array cannot be used as a value (index it)")
        g = self.env.get(n)
        if isinstance(g, np.generic) and DType.from_numpy(g.dtype) is not None:
            # a NumPy scalar is strongly typed (NEP 50), even np.float64, a float subclass
            return Literal(g.item(), ValueType(DType.from_numpy(g.dtype)))
        if isinstance(g, (bool, np.bool_)):
            raise NotAffine(node, f"`{n}`", _BOOL_GLOBAL)
        if isinstance(g, int):
            return Literal(_int64_global(node, n, g), WEAK_INT)
        if isinstance(g, float):
            return Literal(g, WEAK_FLOAT)
        if n in self.loop_vars:
            raise NotAffine(node, f"loop variable `{n}`", "is used outside its loop")
        if n in self.assign_count:
            raise NotAffine(node, f"`{n}`", "is read before it is assigned")
        raise NotAffine(node, f"`{n}`", "unknown name")

    def _subscript_parts(self, node: ast.Subscript) -> tuple[str, list[ast.AST]]:
        idx: list[ast.AST] = []
        cur: ast.AST = node
        while isinstance(cur, ast.Subscript):
            sl = cur.slice
            parts = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
            idx = parts + idx
            cur = cur.value
        if not isinstance(cur, ast.Name):
            raise NotAffine(node, f"`{ast.unparse(node)}`", "only subscripts of array names are supported")
        return cur.id, idx

    def _not_an_array(self, name: str) -> str:
        if name not in self.scalar_args and isinstance(self.env.get(name), np.ndarray):
            # a global array's data and shape would be compiled in: it must be an argument
            return f"global arrays are not supported: pass `{name}` as an argument"
        return f"{name!r} is not an array"

    def _indices(self, node: ast.Subscript) -> tuple[str, tuple[Lin, ...]]:
        name, idx = self._subscript_parts(node)
        if name not in self.arrays:
            raise NotAffine(node, f"`{ast.unparse(node)}`", self._not_an_array(name))
        info = self.arrays[name]
        if len(idx) != info.rank:
            raise NotAffine(node, f"`{ast.unparse(node)}`",
                            f"{name} has {info.rank} dimension(s) but is indexed with {len(idx)}")
        out: list[Lin] = []
        for d, ix in enumerate(idx):
            if isinstance(ix, ast.Slice):
                raise NotAffine(ix, "slice", "slicing is not supported; write a loop")
            if any(isinstance(s, ast.Subscript) and self._is_array_subscript(s) for s in ast.walk(ix)):
                raise NotAffine(ix, "indirect subscript",
                                f"`{ast.unparse(ix)}` reads an array; subscripts must be affine")
            a = self.affine.aff(ix)
            if isinstance(a, MinMax):
                raise NotAffine(ix, "min/max subscript", "subscripts must be affine (no min/max)")
            if a.is_constant() and a.const < 0:  # Python wraps a constant negative index
                a = self._shape_param(ix, name, d) + a
            out.append(a)
        return name, tuple(out)

    def _is_array_subscript(self, s: ast.Subscript) -> bool:
        try:
            name, _ = self._subscript_parts(s)
        except NotAffine:
            return True
        return name in self.arrays

    def _load(self, node: ast.Subscript) -> Load:
        name, indices = self._indices(node)
        return Load(name, indices, ValueType(self.arrays[name].dtype))

    # --- statements ---------------------------------------------------------------------

    def _block(self, body: list[ast.stmt], ctx: _Ctx, top: bool = False) -> list[Node]:
        nodes: list[Node] = []
        for k, st in enumerate(body):
            self.ctx_iters = ctx.iters
            self.scalar_reads = {}
            self.values.choices.clear()  # none left by a statement refused half-way
            try:
                nodes += self._statement(st, ctx, last=top and k == len(body) - 1)
            except NotAffine as e:
                self.problem(e.node, e.construct, e.reason)
        return nodes

    def _statement(self, st: ast.stmt, ctx: _Ctx, last: bool) -> list[Node]:
        if isinstance(st, ast.Pass):
            return []
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            return []  # docstring or comment string
        if isinstance(st, ast.For):
            return self._for(st, ctx)
        if isinstance(st, ast.If):
            return self._if(st, ctx)
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            return self._assign(st, ctx)
        if isinstance(st, ast.Return):
            return self._return(st, ctx, last)
        if isinstance(st, ast.Expr):
            raise NotAffine(st, f"`{ast.unparse(st)}`", "an expression statement has no effect polyopt "
                            "can compile (only assignments, loops and ifs)")
        construct = _UNSUPPORTED_STMT.get(type(st), type(st).__name__)
        raise NotAffine(st, construct, "is not supported in a polyopt function")

    def _for(self, st: ast.For, ctx: _Ctx) -> list[Node]:
        if st.orelse:
            raise NotAffine(st, "`for ... else`", "loop `else` clauses are not supported")
        if not isinstance(st.target, ast.Name):
            raise NotAffine(st.target, "loop target", "must be a single name")
        it = st.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and "range" not in self.env.get("__polyopt_shadow__", ())):
            raise NotAffine(it, f"`for ... in {ast.unparse(it)}`", "only `range(...)` loops are supported")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise NotAffine(it, "`range()`", "takes 1 to 3 positional arguments")
        v = st.target.id
        if v in ctx.iters:
            raise NotAffine(st.target, f"loop variable `{v}`", "shadows an enclosing loop's variable")
        if v in self.arrays or v in self.scalar_args or v in self.params or v in self.aliases:
            raise NotAffine(st.target, f"loop variable `{v}`", "reuses the name of an argument or size")
        if self.assign_count.get(v, 0) > sum(
            1 for n in ast.walk(self.src.tree) if isinstance(n, ast.For)
            and isinstance(n.target, ast.Name) and n.target.id == v
        ):
            raise NotAffine(st.target, f"loop variable `{v}`", "is also assigned as a variable")
        args = it.args
        start = self.affine.aff(args[0]) if len(args) > 1 else Lin.constant(0)
        stop = self.affine.aff(args[1] if len(args) > 1 else args[0])
        step = 1
        if len(args) == 3:
            s = self.affine.aff(args[2])
            if not (isinstance(s, Lin) and s.is_constant()) or s.const == 0:
                raise NotAffine(args[2], "range step", "must be a nonzero integer constant")
            step = s.const
        var = Lin.var(v)
        if step > 0:
            bounds = conj(Cmp(">=", var, start), Cmp("<", var, stop))
        else:
            bounds = conj(Cmp("<=", var, start), Cmp(">", var, stop))
        if abs(step) != 1:
            cases = [conj(*g, Divisible(var - lin, abs(step))) for g, lin in pieces(start)]
            bounds = conj(bounds, cases[0] if len(cases) == 1 else Or(tuple(cases)))
        loop_id = f"L{len(self.loops)}"
        parent = ctx.loops[-1] if ctx.loops else None
        self.loops[loop_id] = Loop(loop_id, v, self.src.location(st), len(ctx.loops), parent)
        inner = _Ctx((*ctx.iters, v), (*ctx.conds, bounds), (*ctx.loops, loop_id))
        children = self._block(st.body, inner)
        self.ctx_iters = ctx.iters
        if not children:
            return []
        child = children[0] if len(children) == 1 else Sequence(tuple(children))
        expr = var if step > 0 else -var
        dim = LoopDim(loop_id, v, tuple((s, expr) for s in statements(child)))
        return [Band((dim,), child)]

    def _if(self, st: ast.If, ctx: _Ctx) -> list[Node]:
        try:
            cond = self.affine.formula(st.test)
        except NotAffine as e:
            raise NotAffine(st.test, "data-dependent `if`", f"{e.construct} {e.reason}; write a "
                            "conditional expression `a if cond else b` instead") from None
        then = self._block(st.body, _Ctx(ctx.iters, (*ctx.conds, cond), ctx.loops))
        other = self._block(st.orelse, _Ctx(ctx.iters, (*ctx.conds, Not(cond)), ctx.loops))
        self.ctx_iters = ctx.iters
        return then + other

    def _assign(self, st: ast.stmt, ctx: _Ctx) -> list[Node]:
        if isinstance(st, ast.AnnAssign):
            if st.value is None:
                return []
            targets, value_node = [st.target], st.value
        elif isinstance(st, ast.Assign):
            targets, value_node = st.targets, st.value
        else:
            assert isinstance(st, ast.AugAssign)
            targets, value_node = [st.target], st.value
        if len(targets) != 1:
            raise NotAffine(st, "chained assignment", "assign one target per statement")
        target = targets[0]
        if ctx.top and not isinstance(st, ast.AugAssign) and self._top_level_binding(target, value_node):
            return []
        if isinstance(target, ast.Tuple):
            raise NotAffine(target, "tuple assignment", "only `n, m = A.shape` may unpack")
        if isinstance(target, ast.Name):  # before the value: `A = np.zeros(n)` rebinds A
            self._check_scalar_target(target, ctx)
        if _is_alloc(value_node, self._module_alias):
            assert isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Attribute)
            raise NotAffine(value_node, f"np.{value_node.func.attr}()", "arrays can only be "
                            "allocated at the top level of the function, once per name")
        value = self.values.convert(value_node)
        if isinstance(st, ast.AugAssign):
            op = _AUG.get(type(st.op))
            if op is None:
                raise NotAffine(st, "augmented assignment", "only += -= *= /= //= %= **= are supported")
            current = self.values.convert(_as_load(target))
            value = binary(op, current, value, st)
            update = op
        else:
            update = None
        value = self._follow_cpython(value, st)
        if isinstance(target, ast.Subscript):
            name, indices = self._indices(target)
            ttype = ValueType(self.arrays[name].dtype)
        elif isinstance(target, ast.Name):
            name, indices = target.id, ()
            ttype = join(self.local_types[name], value.type) if name in self.local_types else value.type
            self.local_types[name] = ttype
            ttype = self.prior_types.get(name, ttype)
        else:
            raise NotAffine(target, f"assignment to `{ast.unparse(target)}`",
                            "only array elements and local variables can be assigned")
        if value.type != ttype:
            value = Cast(value, ttype)
        return [self._add_stmt(st, ctx, name, indices, value, update)]

    def _follow_cpython(self, value: Expr, st: ast.stmt) -> Expr:
        """``value`` with arithmetic on a choice computed in the chosen operand's type
        (:mod:`python_choices`); the converter's record of choices is for one statement."""
        try:
            return follow_cpython(value, self.values.choices, st)
        finally:
            self.values.choices.clear()

    def _check_scalar_target(self, target: ast.Name, ctx: _Ctx) -> None:
        n = target.id
        if n in self.scalar_args or n in self.params:
            raise NotAffine(target, f"assignment to argument `{n}`", "arguments cannot be reassigned; "
                            "use a new local name")
        if n in ctx.iters:
            raise NotAffine(target, f"assignment to loop variable `{n}`", "is not supported")
        if n in self.arrays:
            raise NotAffine(target, f"assignment to array `{n}`",
                            "arrays cannot be rebound; assign to elements `A[i] = ...`")
        if n in self.aliases:
            raise NotAffine(target, f"assignment to size `{n}`", "sizes cannot be reassigned")

    def _add_stmt(self, st: ast.AST, ctx: _Ctx, target: str, indices: tuple[Lin, ...],
                  value: Expr, update: str | None) -> Node:
        name = f"S{len(self.stmts)}"
        self.stmts.append(_PendingStmt(name, ctx.iters, conj(*ctx.conds), target, indices, value,
                                       update, ctx.loops, st, tuple(self.scalar_reads.items())))
        self.scalar_reads = {}
        return Leaf(name)

    def _top_level_binding(self, target: ast.AST, value: ast.AST) -> bool:
        """Sizes (``n, m = A.shape``, ``n = len(x)``, affine int aliases) and allocations."""
        if isinstance(target, ast.Tuple):
            if (isinstance(value, ast.Attribute) and value.attr == "shape"
                    and isinstance(value.value, ast.Name) and value.value.id in self.arrays):
                arr = value.value.id
                if len(target.elts) != self.arrays[arr].rank:
                    raise NotAffine(target, "shape unpacking",
                                    f"{arr} has {self.arrays[arr].rank} dimension(s), "
                                    f"unpacked into {len(target.elts)} names")
                for d, elt in enumerate(target.elts):
                    if not isinstance(elt, ast.Name):
                        raise NotAffine(elt, "shape unpacking", "targets must be names")
                    self._bind_dim(elt, elt.id, arr, d)
                return True
            return False
        if not isinstance(target, ast.Name):
            return False
        n = target.id
        if self.assign_count.get(n, 0) != 1:
            return False
        if n in self.arrays or n in self.scalar_args:
            return False
        if _is_alloc(value, self._module_alias):
            self._allocate(target, value)
            return True
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute) and \
                value.value.attr == "shape" and isinstance(value.value.value, ast.Name) and \
                value.value.value.id in self.arrays and isinstance(value.slice, ast.Constant):
            arr = value.value.value.id
            d = value.slice.value % max(self.arrays[arr].rank, 1)
            self._bind_dim(target, n, arr, d)
            return True
        try:
            saved = self.problems[:]
            a = self.affine.aff(value)
        except NotAffine:
            self.problems = saved
            return False
        if isinstance(a, MinMax):
            return False
        self.aliases[n] = a
        return True

    def _allocate(self, target: ast.Name, call: ast.Call) -> None:
        kind = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        if not call.args:
            raise NotAffine(call, f"np.{kind}()", "needs a shape")
        shape_node = call.args[0]
        elts = shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node]
        shape: list[Lin] = []
        for e in elts:
            a = self.affine.aff(e)
            if isinstance(a, MinMax):
                raise NotAffine(e, "array shape", "must be affine in sizes (no min/max)")
            shape.append(a)
        dtype_node = call.args[1] if len(call.args) > 1 else None
        for kw in call.keywords:
            if kw.arg == "dtype":
                dtype_node = kw.value
            else:
                raise NotAffine(kw, f"np.{kind}(..., {kw.arg}=)", "only `dtype=` is supported")
        dtype = self._dtype_of(dtype_node) if dtype_node is not None else DType.FLOAT64
        name = target.id
        self.arrays[name] = _ArrayInfo(dtype, len(shape), ArrayKind.TEMPORARY, list(shape))
        if kind in ("zeros", "ones"):
            self._fill(target, name, shape, dtype, 0 if kind == "zeros" else 1)

    def _fill(self, node: ast.AST, name: str, shape: list[Lin], dtype: DType, value: int) -> None:
        iters: list[str] = []
        conds: list[Formula] = []
        loop_ids: list[str] = []
        for d, extent in enumerate(shape):
            it = f"i{d}"
            while it in self.used_names or it in self.params:
                it = "_" + it
            iters.append(it)
            conds += [Cmp(">=", Lin.var(it), Lin.constant(0)), Cmp("<", Lin.var(it), extent)]
            loop_id = f"L{len(self.loops)}"
            self.loops[loop_id] = Loop(loop_id, it, self.src.location(node), d,
                                       loop_ids[-1] if loop_ids else None)
            loop_ids.append(loop_id)
        lit = Literal(float(value) if dtype.is_float else value, ValueType(dtype))
        ctx = _Ctx(tuple(iters), (conj(*conds),) if conds else (), tuple(loop_ids))
        leaf: Node = self._add_stmt(node, ctx, name, tuple(Lin.var(i) for i in iters), lit, None)
        self._fill_nodes = getattr(self, "_fill_nodes", [])
        stmt = self.stmts[-1].name
        for it, loop_id in reversed(list(zip(iters, loop_ids, strict=True))):
            leaf = Band((LoopDim(loop_id, it, ((stmt, Lin.var(it)),)),), leaf)
        self._fill_nodes.append(leaf)

    def _dtype_of(self, node: ast.AST) -> DType:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return DType(node.value)
            except ValueError:
                pass
        if isinstance(node, ast.Name) and node.id in ("float", "int"):
            return DType.FLOAT64 if node.id == "float" else DType.INT64
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr == "dtype" and node.value.id in self.arrays:
                return self.arrays[node.value.id].dtype
            if self._module_alias(node.value.id) == "np":
                try:
                    return DType(node.attr)
                except ValueError:
                    pass
        raise NotAffine(node, f"dtype `{ast.unparse(node)}`",
                        "use np.float64, np.float32, np.int64, np.int32, float, int or A.dtype")

    def _return(self, st: ast.Return, ctx: _Ctx, last: bool) -> list[Node]:
        if not ctx.top or not last:
            raise NotAffine(st, "`return`", "only a final `return` at the top level of the function "
                            "is supported")
        if st.value is None or (isinstance(st.value, ast.Constant) and st.value.value is None):
            return []
        v = st.value
        if isinstance(v, ast.Name) and v.id in self.arrays:
            info = self.arrays[v.id]
            if info.kind is ArrayKind.ARGUMENT:
                raise NotAffine(v, "`return` of an argument array",
                                "arguments are modified in place; return only arrays the function allocates")
            info.kind = ArrayKind.RETURNED
            self.returns = ReturnValue(v.id, True)
            return []
        if isinstance(v, ast.Name) and (v.id in self.local_types or v.id in self.scalar_args):
            self.returns = ReturnValue(v.id, False)
            return []
        value = self._follow_cpython(self.values.convert(v), st)
        name = "_result"
        while name in self.used_names:
            name = "_" + name
        self.local_types[name] = value.type
        self.returns = ReturnValue(name, False)
        return [self._add_stmt(st, ctx, name, (), value, None)]

    # --- assembling the scop ------------------------------------------------------------

    def _finish(self, nodes: list[Node]) -> Scop:
        nodes = list(getattr(self, "_fill_nodes", [])) + nodes
        arrays = {
            n: Array(n, a.dtype, tuple(self._shape_lin(n, d) for d in range(a.rank)), a.kind)
            for n, a in self.arrays.items()
        }
        params = tuple(self.params)
        context = isl_text.make_param_set(
            params, conj(*(Cmp(">=", Lin.var(p), Lin.constant(0)) for p in self.param_sources))
        )
        scalars = {n: Scalar(n, t, ScalarKind.ARGUMENT) for n, t in self.scalar_args.items()}
        for n, t in self.local_types.items():
            scalars[n] = Scalar(n, self.prior_types.get(n, t), ScalarKind.LOCAL)
        statements_out = tuple(self._statement_model(p, params) for p in self.stmts)
        if not nodes:
            schedule: Node = Sequence(())
        else:
            schedule = nodes[0] if len(nodes) == 1 else Sequence(tuple(nodes))
        return Scop(
            name=self.src.tree.name, filename=self.src.filename, params=params, context=context,
            arrays=arrays, scalars=scalars, statements=statements_out, loops=dict(self.loops),
            schedule=schedule, returns=self.returns, arg_order=self.arg_order,
            param_sources=dict(self.param_sources),
        )

    def _shape_lin(self, array: str, d: int) -> Lin:
        info = self.arrays[array]
        if info.kind is ArrayKind.ARGUMENT:
            key = (array, d)
            if key not in self.dim_params:
                name = f"{array}_shape{d}"
                while name in self.used_names:
                    name += "_"
                self.dim_params[key] = name
                self.param_sources[name] = key
                self.params.append(name)
            return Lin.var(self.dim_params[key])
        known = info.shape[d]
        assert known is not None
        return known

    def _statement_model(self, p: _PendingStmt, params: tuple[str, ...]) -> Statement:
        domain = isl_text.make_set(params, p.name, p.iters, p.cond if p.cond != TRUE else TRUE)
        write_rel = isl_text.make_map(params, p.name, p.iters, p.target, p.indices).intersect_domain(domain)
        write = Access(f"{p.name}.w", p.name, p.target, p.indices, True, write_rel)
        reads: list[Access] = []
        # each element read, and where it is read: a guarded read (in a branch of an
        # affine conditional expression) only where its guard holds
        refs: dict[tuple[str, tuple[Lin, ...]], list[Formula]] = {}
        for n in walk(p.value):
            if isinstance(n, Load):
                refs.setdefault((n.array, n.indices), []).append(n.guard)
        for n in sorted(names_read(p.value)):
            if n in self.local_types:
                refs.setdefault((n, ()), []).append(TRUE)
        for (target, indices), guards in refs.items():
            where = domain
            if TRUE not in guards:
                guard = guards[0] if len(guards) == 1 else Or(tuple(guards))
                where = isl_text.make_set(params, p.name, p.iters, conj(p.cond, guard))
            rel = isl_text.make_map(params, p.name, p.iters, target, indices).intersect_domain(where)
            reads.append(Access(f"{p.name}.r{len(reads)}", p.name, target, indices, False, rel))
        return Statement(
            name=p.name, iterators=p.iters, domain=domain, target=p.target, indices=p.indices,
            value=p.value, update_op=p.update_op, loops=p.loops, location=self.src.location(p.node),
            read_at=p.read_at,
            write=write, reads=tuple(reads),
        )


def _as_load(target: ast.AST) -> ast.AST:
    """The target of ``x op= v`` read as a value (same node, load context)."""
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(target.id, ast.Load()), target)
    return target


def _is_alloc(value: ast.AST, module_alias) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and module_alias(value.func.value.id) == "np"
        and value.func.attr in _ALLOC
    )


def _infer_arg_kinds(fdef: ast.FunctionDef, names: list[str]) -> dict[str, ArrayType | ScalarType]:
    """Argument kinds from use, for reports made before any call: subscripted names are
    float64 arrays of the rank used, names in bounds/subscripts/tests are ints, others floats."""
    ranks = _ranks_from_use(fdef)
    ints = _names_in_integer_positions(fdef)
    out: dict[str, ArrayType | ScalarType] = {}
    for name in names:
        if name in ranks:
            out[name] = ArrayType(DType.FLOAT64, ranks[name])
        elif name in ints:
            out[name] = ScalarType(WEAK_INT)
        else:
            out[name] = ScalarType(WEAK_FLOAT)
    return out


def _ranks_from_use(fdef: ast.FunctionDef) -> dict[str, int]:
    """Rank of each subscripted name (``A[i, j]``, ``A[i][j]``, ``n, m = A.shape``)."""
    ranks: dict[str, int] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Subscript):
            depth, cur = 0, n
            while isinstance(cur, ast.Subscript):
                depth += len(cur.slice.elts) if isinstance(cur.slice, ast.Tuple) else 1
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id not in ranks:
                ranks[cur.id] = depth
        elif (isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute)
              and n.value.attr == "shape" and isinstance(n.value.value, ast.Name)
              and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)):
            ranks.setdefault(n.value.value.id, len(n.targets[0].elts))
    for n in ast.walk(fdef):  # `A.shape` / `len(A)` without subscripts
        if isinstance(n, ast.Attribute) and n.attr == "shape" and isinstance(n.value, ast.Name):
            ranks.setdefault(n.value.id, 1)
    return ranks


def _names_in_integer_positions(fdef: ast.FunctionDef) -> set[str]:
    """Names used in subscripts, ``range()`` arguments and ``if`` tests."""
    roots: list[ast.AST] = []
    for n in ast.walk(fdef):
        if isinstance(n, ast.Subscript):
            roots.append(n.slice)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range":
            roots.append(n)
        elif isinstance(n, ast.If):
            roots.append(n.test)
    return {sub.id for root in roots for sub in ast.walk(root) if isinstance(sub, ast.Name)}


__all__ = ["parse_function"]
