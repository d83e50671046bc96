"""The statements of a Python function body, walked in order: ``for ... in range``
loops, affine ``if`` statements, assignments and a final ``return``, handed to the shared
:class:`~polyopt.frontends.scop_builder.ScopBuilder`.

``x += v`` is recorded as ``x = x + v`` with update operator ``+``; an ``if`` adds its
test (or its negation, in ``else``) to the place of the statements under it.  Each
refused statement becomes a problem and the walk goes on, so every problem of the
function is reported at once.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from polyopt.frontends.python_array_views import parts
from polyopt.frontends.python_arrays import ArrayLowering
from polyopt.frontends.python_bindings import Bindings, allocation_kind
from polyopt.frontends.python_choices import follow_cpython
from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_held import HeldReads
from polyopt.frontends.python_helpers import Helper, at_helper, inline_statements
from polyopt.frontends.python_multiassign import chained, unpacked
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_swap import DoubleBuffers, as_run, in_swapped_copy
from polyopt.frontends.python_symbols import WIDE_LOCAL
from polyopt.frontends.python_values import binary
from polyopt.frontends.refusal import READ_BEFORE_ASSIGNED, NotAffine, if_condition, reads_data
from polyopt.frontends.scop_builder import Place, ScopBuilder, loop_band, loop_bounds

from polyopt.model.aff import TRUE, Cmp, Lin, Not
from polyopt.model.dtypes import WEAK_INT, DType, ValueType, join
from polyopt.model.errors import Problem
from polyopt.model.expr import Call, Cast, Expr, Literal, Select
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import ArrayKind, ReturnValue

_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_UNSUPPORTED_STMT = {
    ast.While: "`while` loop", ast.Break: "`break`", ast.Continue: "`continue`",
    ast.With: "`with` block", ast.Try: "`try` block", ast.FunctionDef: "nested function",
    ast.ClassDef: "class definition", ast.Global: "`global`", ast.Nonlocal: "`nonlocal`",
    ast.Delete: "`del`", ast.Raise: "`raise`", ast.Assert: "`assert`", ast.Import: "`import`",
    ast.ImportFrom: "`import`", ast.AsyncFor: "`async for`",
}


class StatementWalker:
    """Converts a body statement by statement; problems go to ``problems``."""

    def __init__(self, scope: FunctionScope, scop: ScopBuilder, problems: list[Problem]) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self.src = scope.symbols.facts.src
        self.scop = scop
        self.bindings = Bindings(scope, scop)
        self.problems = problems
        self.buffers = DoubleBuffers(scope)
        self.arrays = ArrayLowering(scope)  # NumPy array code -> loops (python_arrays)
        self.refused_targets: set[str] = set()  # locals whose assignment was refused

    def block(self, body: list[ast.stmt], place: Place, top: bool = False) -> list[Node]:
        nodes: list[Node] = []
        saved = self.scope.iters
        for k, written in enumerate(body):
            try:
                # after a loop that swaps arrays, the names it swapped (python_swap)
                stmts = self.buffers.after(written) if top else [written]
            except NotAffine as e:
                self._problem(e)
                continue
            for j, st in enumerate(stmts):
                self.scope.enter(place.iters)
                self.scope.values.choices.clear()  # none left by a statement refused half-way
                try:
                    nodes += self._statement(st, place, last=top and k == len(body) - 1
                                             and j == len(stmts) - 1)
                except NotAffine as e:
                    self._problem(e)
                    self.refused_targets |= _assigned_names(st)
        self.scope.enter(saved)
        return nodes

    def _problem(self, e: NotAffine) -> None:
        assert isinstance(e.node, ast.AST)
        if e.reason == READ_BEFORE_ASSIGNED and e.construct.strip("`") in self.refused_targets:
            return  # its assignment was refused, which is the problem to report
        self.problems.append(self.src.problem(e.node, e.construct, e.reason))

    def _statement(self, st: ast.stmt, place: Place, last: bool) -> list[Node]:
        need = self.scope.index_requirements
        need.clear()
        lowered = self.arrays.lower(st, place)
        for value, what, at, subscript, guard in need:
            line = self.src.location(subscript).line
            self.scop.require_nonnegative(place if guard == TRUE else place.where(guard), value,
                                          _index_text(what, at, subscript, line))
        need.clear()
        if lowered is not None:
            return self._lowered(lowered, place, last)
        if isinstance(st, ast.Pass):
            return []
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            return []  # docstring or comment string
        if isinstance(st, ast.For):
            return self._for(st, place)
        if isinstance(st, ast.If):
            return self._if(st, place)
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            return self._assign(st, place)
        if isinstance(st, ast.Return):
            return self._return(st, place, last)
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            helper = self.scope.helper_called(st.value)
            if helper is not None:
                return self._inline(st.value, helper, place)
        if isinstance(st, ast.Expr):
            raise NotAffine(st, f"`{ast.unparse(st)}`", "an expression statement has no effect polyopt "
                            "can compile (only assignments, loops, ifs and calls to helpers)")
        if isinstance(st, ast.While):  # its body is not walked: rewritten, it changes
            raise NotAffine(st, "`while` loop", "is not supported in a polyopt function (write "
                            "a `for` loop over `range` with affine bounds)")
        construct = _UNSUPPORTED_STMT.get(type(st), type(st).__name__)
        raise NotAffine(st, construct, "is not supported in a polyopt function")

    def _inline(self, call: ast.Call, helper: Helper, place: Place) -> list[Node]:
        """A helper called as a statement: its statements, inlined (python_helpers)."""
        sym = self.symbols
        body = inline_statements(helper, call, sym.facts, sym.arrays, self._fresh)
        before = len(self.problems)
        nodes = self.block(body, place)
        self.problems[before:] = [replace(p, reason=p.reason + at_helper(helper))
                                  for p in self.problems[before:]]
        return nodes

    def _lowered(self, body: list[ast.stmt], place: Place, last: bool) -> list[Node]:
        """The loop code an array statement became; a returned array value last."""
        *init, final = body
        before = len(self.problems)
        nodes = self.block(init, place)
        if isinstance(final, ast.Return):
            if len(self.problems) > before:  # the value was refused: its refusal says why,
                return nodes                 # not 'unknown name' for the name made for it
            return nodes + self._return(final, place, last)
        return nodes + self.block([final], place)

    def _for(self, st: ast.For, place: Place) -> list[Node]:
        unrolled = self.buffers.loop(st, place.top)
        if unrolled is not None:
            st = unrolled
        if st.orelse:
            raise NotAffine(st, "`for ... else`", "loop `else` clauses are not supported")
        if not isinstance(st.target, ast.Name):
            raise NotAffine(st.target, "loop target", "must be a single name")
        it = st.iter
        parallel = isinstance(it, ast.Call) and self.symbols.facts.env.is_prange(it.func)
        if not (isinstance(it, ast.Call) and (parallel or isinstance(it.func, ast.Name)
                                               and it.func.id == "range")):
            raise NotAffine(it, f"`for ... in {ast.unparse(it)}`",
                            "only `range(...)` and `prange(...)` loops are supported"
                            + _not_a_prange(it, self.symbols.facts.env))
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise NotAffine(it, f"`{ast.unparse(it.func)}()`", "takes 1 to 3 positional arguments")
        v, sym = st.target.id, self.symbols
        if v in place.iters:
            raise NotAffine(st.target, f"loop variable `{v}`", "shadows an enclosing loop's variable")
        if v in sym.arrays or v in sym.scalar_args or v in sym.params or v in sym.aliases:
            raise NotAffine(st.target, f"loop variable `{v}`", "reuses the name of an argument or size")
        if sym.facts.assign_count.get(v, 0) > sym.facts.loop_count.get(v, 0):
            raise NotAffine(st.target, f"loop variable `{v}`", "is also assigned as a variable")
        args, affine = it.args, self.scope.affine
        start = affine.aff(args[0]) if len(args) > 1 else Lin.constant(0)
        stop = affine.aff(args[1] if len(args) > 1 else args[0])
        step = 1
        if len(args) == 3:
            s = affine.aff(args[2])
            if not (isinstance(s, Lin) and s.is_constant()) or s.const == 0:
                raise NotAffine(args[2], "range step", "must be a nonzero integer constant")
            step = s.const
        var = Lin.var(v)
        bounds = loop_bounds(v, start, step, Cmp("<", var, stop) if step > 0 else Cmp(">", var, stop))
        inner = self.scop.open_loop(place, v, bounds, self.src.location(st), parallel, step,
                                    in_swapped_copy(st))
        return loop_band(inner.loops[-1], v, step, self.block(st.body, inner))

    def _reads_data(self, test: ast.AST) -> bool:
        """Whether ``test`` reads an array element, a local or a scalar argument, or
        calls a method: what only the run knows."""
        called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
        return reads_data(
            ast.walk(test),
            lambda n: isinstance(n, ast.Subscript) or (
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)),
            lambda n: isinstance(n, ast.Name) and id(n) not in called,  # not a helper's
            self.scope.affine.aff)

    def _if(self, st: ast.If, place: Place) -> list[Node]:
        try:
            cond = if_condition(self.scope.affine.formula, st.test, "a if cond else b",
                                self._reads_data, "`and`, `or`, `not`")
        except NotAffine as e:
            self._problem(e)
            self._problems_in(st.body + st.orelse, place)
            return []
        return self.block(st.body, place.where(cond)) + self.block(st.orelse, place.where(Not(cond)))

    def _problems_in(self, body: list[ast.stmt], place: Place) -> None:
        """Walk the statements under a refused construct for their own problems, so that
        all are reported at once (the function has problems: nothing is compiled)."""
        self.block(body, place)

    def _assign(self, st: ast.Assign | ast.AugAssign | ast.AnnAssign, place: Place) -> list[Node]:
        if isinstance(st, ast.AnnAssign) and st.value is None:
            return []
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        value_node = st.value
        assert value_node is not None
        if isinstance(st, ast.Assign) and len(targets) > 1:
            return self._each(chained(st, self._fresh), place)
        target = targets[0]
        if place.top and not isinstance(st, ast.AugAssign) and self.bindings.bind(target, value_node):
            return []
        if isinstance(target, ast.Tuple):
            if not isinstance(st, ast.Assign):
                raise NotAffine(target, "tuple assignment", "unpack with `=` only")
            self._refuse_array_swap(target)
            return self._each(unpacked(st, target, self._fresh), place)
        if isinstance(target, ast.Name):  # before the value: `A = np.zeros(n)` rebinds A
            self._check_scalar_target(target, place)
        elif not isinstance(target, ast.Subscript):  # `x.shape = ...`: the target's problem
            raise NotAffine(target, f"assignment to `{ast.unparse(target)}`",
                            "only array elements and local variables can be assigned")
        kind = allocation_kind(value_node, self.symbols.facts.env)
        if kind is not None:
            raise NotAffine(value_node, f"np.{kind}()", "arrays can only be "
                            "allocated at the top level of the function, once per name")
        value = self.scope.values.convert(value_node)
        update = None
        if isinstance(st, ast.AugAssign):
            update = _AUG.get(type(st.op))
            if update is None:
                raise NotAffine(st, "augmented assignment", "only += -= *= /= //= %= **= &= |= ^= are supported")
            current = self.scope.values.convert(_as_load(target))
            value = binary(update, current, value, st)
        value = self._follow_cpython(value, st)
        name, indices, ttype = self._target(target, value)
        if value.type != ttype:
            # a slice store casts as NumPy casts arrays (a NumPy float wraps into int8)
            value = Cast(value, ttype, unsafe=getattr(st, "slice_store", False)
                         and value.type.dtype.is_float and not value.type.weak)
        return [self._add(st, place, name, indices, value, update)]

    def _each(self, assignments: list[ast.Assign], place: Place) -> list[Node]:
        nodes: list[Node] = []
        for a in assignments:
            nodes += self._assign(a, place)
        return nodes

    def _fresh(self, name: str) -> str:
        return self.symbols.facts.fresh(name)

    def _refuse_array_swap(self, target: ast.Tuple) -> None:
        arrays = [t for t in target.elts if isinstance(t, ast.Name) and t.id in self.symbols.arrays]
        if arrays:
            raise NotAffine(arrays[0], "swapping arrays", "only `A, B = B, A` as the last "
                            "statement of a loop at the function's top level (a double buffer) "
                            "may rebind arrays")
        views = [t for t in target.elts if isinstance(t, ast.Subscript) and self._is_view(t)]
        if views:
            raise NotAffine(views[0], "tuple assignment to an array row or slice", "NumPy "
                            "assigns views: `A[0, :], A[1, :] = A[1, :], A[0, :]` does not swap "
                            "the rows (the second value is a view of the row the first "
                            "assignment overwrote); write one assignment per statement, with "
                            "`.copy()` where a swap is meant")

    def _is_view(self, t: ast.Subscript) -> bool:
        """``t`` is more than one element: a slice, or fewer indices than the array's rank."""
        name, idx = parts(t)
        info = self.symbols.arrays.get(name) if name is not None else None
        return any(isinstance(ix, ast.Slice) for ix in idx) or (
            info is not None and len(idx) < info.rank)

    def _follow_cpython(self, value: Expr, st: ast.stmt) -> Expr:
        """``value`` with arithmetic on a choice computed in the chosen operand's type
        (:mod:`python_choices`); the converter's record of choices is for one statement."""
        try:
            return follow_cpython(value, self.scope.values.choices, st)
        finally:
            self.scope.values.choices.clear()

    def _target(self, target: ast.expr, value: Expr) -> tuple[str, tuple[Lin, ...], ValueType]:
        """What is assigned and the type it holds; a local scalar's type is the join of
        every value assigned to it (and the earlier pass's, once settled)."""
        sym = self.symbols
        if isinstance(target, ast.Subscript):
            name, indices = self.scope.indices(target)
            return name, indices, ValueType(sym.arrays[name].dtype)
        if isinstance(target, ast.Name):
            name = target.id
            _refuse_path_typed_choice(target, value)
            vtype = _assigned_type(value)
            before = sym.local_types.get(name)
            if (before is not None and not before.weak and not vtype.weak
                    and before.dtype != vtype.dtype):
                raise NotAffine(target, f"`{name}` holding a {vtype.dtype.value} here and a "
                                f"{before.dtype.value} before",
                                "CPython computes on each value in its own type, a compiled "
                                "local has one; convert them to one type "
                                f"(`{name} = np.{join(before, vtype).dtype.value}(...)`) or use "
                                "two locals")
            ttype = join(before, vtype) if before is not None else vtype
            sym.local_types[name] = ttype
            sym.assigned.append((target, vtype))
            if value.type.weak and value.type.dtype.is_int and not _small_constant(value):
                sym.python_ints.add(name)
            if sym.held_wide(name):
                return name, (), WIDE_LOCAL
            return name, (), sym.prior_types.get(name, ttype)
        raise NotAffine(target, f"assignment to `{ast.unparse(target)}`",
                        "only array elements and local variables can be assigned")

    def _check_scalar_target(self, target: ast.Name, place: Place) -> None:
        n, sym = target.id, self.symbols
        if n in sym.scalar_args or n in sym.params:
            raise NotAffine(target, f"assignment to argument `{n}`", "arguments cannot be reassigned; "
                            "use a new local name")
        if n in place.iters:
            raise NotAffine(target, f"assignment to loop variable `{n}`", "is not supported")
        if n in sym.arrays:
            raise NotAffine(target, f"assignment to array `{n}`",
                            "arrays cannot be rebound; assign to elements `A[i] = ...`")
        if n in sym.aliases:
            raise NotAffine(target, f"assignment to size `{n}`", "sizes cannot be reassigned")

    def _add(self, st: ast.stmt, place: Place, target: str, indices: tuple[Lin, ...],
             value: Expr, update: str | None) -> Node:
        sym = self.symbols
        store = ValueType(sym.arrays[target].dtype) if target in sym.arrays else None
        value = HeldReads(sym).value(value, st, store, not indices and sym.is_local(target)
                                     and sym.held_wide(target))
        return self.scop.add(place, target, indices, value, update,
                             as_run(st, self.src.statement_location(st)),
                             self.scope.take_scalar_reads())

    def _return(self, st: ast.Return, place: Place, last: bool) -> list[Node]:
        if not place.top or not last:
            raise NotAffine(st, "`return`", "only a final `return` at the top level of the function "
                            "is supported")
        v, sym = st.value, self.symbols
        if v is None or (isinstance(v, ast.Constant) and v.value is None):
            return []
        if isinstance(v, ast.Name) and v.id in sym.arrays:
            info = sym.arrays[v.id]
            if info.kind is ArrayKind.ARGUMENT:
                raise NotAffine(v, "`return` of an argument array",
                                "arguments are modified in place; return only arrays the function allocates")
            info.kind = ArrayKind.RETURNED
            sym.returns = ReturnValue(v.id, True)
            return []
        if isinstance(v, ast.Name) and (v.id in sym.local_types or v.id in sym.scalar_args):
            sym.returns = ReturnValue(v.id, False)
            return []
        if isinstance(v, (ast.Tuple, ast.List)):
            raise NotAffine(v, f"`return {ast.unparse(v)}`", "a function returns one scalar or "
                            "one array it allocates; write the values into an output array "
                            "argument (`out[0], out[1] = s, m`) and return nothing")
        value = self._follow_cpython(self.scope.values.convert(v), st)
        name = sym.facts.fresh("_result")
        sym.local_types[name] = value.type
        sym.returns = ReturnValue(name, False)
        return [self._add(st, place, name, (), value, None)]


def _not_a_prange(it: ast.expr, env: Environment) -> str:
    """What a loop's ``prange`` is bound to when it is not polyopt's or Numba's."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "prange":
        binding = env.binding("prange")
        return ("; `prange` is not defined (CPython raises NameError): `from polyopt import "
                "prange`" if binding is None else
                f"; `prange` here is {binding}, not polyopt.prange or Numba's prange")
    return ""


def _index_text(what: str, at: ast.expr, subscript: ast.expr, line: int) -> str:
    """What the error of a subscript outside its dimension names."""
    if what == "bound":
        return (f"line {line}'s slice `{ast.unparse(subscript)}` (its bound `{ast.unparse(at)}` "
                "is below 0: NumPy counts such a bound from the end, polyopt takes it as "
                "written; write `A.shape[d] - k` where that is meant)")
    return (f"line {line}'s subscript `{ast.unparse(subscript)}` (its index `{ast.unparse(at)}` "
            "is outside the dimension it indexes)")


def _small_constant(value: Expr) -> bool:
    """An int constant every narrow int type holds (0 to 127): stored in a narrow local,
    it is the same value CPython's Python int is (``s = 0``, then ``s += i8[i]``).  So is
    a choice whose Python int operands are such constants (``s = min(s, 1)``): the only
    Python int it can give is one of them."""
    if _choice_args(value) is not None:
        return all(not o.type.weak or _small_constant(o) for o in _choice_operands(value))
    return isinstance(value, Literal) and isinstance(value.value, int) and (
        0 <= value.value <= 127)


def _assigned_names(st: ast.stmt) -> set[str]:
    """The names ``st`` assigns (``t = ...``, ``t += ...``, ``a, b = ...``)."""
    targets = st.targets if isinstance(st, ast.Assign) else \
        [st.target] if isinstance(st, (ast.AugAssign, ast.AnnAssign)) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _assigned_type(value: Expr) -> ValueType:
    """The type a local takes from ``value``: a choice between the values of one int type
    narrower than int64 and Python ints (``s = min(C32[i], 1)``) gives that type.  With
    constants 0 to 127 only, it is the type those constants give (:func:`_small_constant`):
    CPython's value is one or the other, and that type holds both exactly.  With other
    Python ints the local holds either (:meth:`Symbols.held_wide`), and each use is
    checked (:mod:`python_held`): its static type a Python int, ``t * 3`` would compute
    in int64 where CPython's chosen uint8 wraps (hostile session 41a, finding 03).  The
    choice's own static type would also make a store of the local into another narrow
    array raise where NumPy wraps the chosen int32 (``B16[0] = s``: fuzz finding 035)."""
    if value.type != WEAK_INT or _choice_args(value) is None:
        return value.type
    strong = {o.type for o in _choice_operands(value) if not o.type.weak}
    if len(strong) == 1:
        t = next(iter(strong))
        if t.dtype.is_int and t.dtype not in (DType.INT64, DType.UINT64):
            return t
    return value.type


def _refuse_path_typed_choice(target: ast.Name, value: Expr) -> None:
    """NotAffine where a local is assigned a choice whose operands' types CPython would
    compute on differently later: two NumPy types with an int or a bool among them
    (``t = max(u8[i], i8[i])``, ``s += max(a64[i], u32[i])``: ``t * 2`` wraps in uint8
    where the uint8 is chosen), or a NumPy bool beside a Python scalar (``min(b[i], 2)``:
    ``t + t`` is a logical or of NumPy bools, an addition of Python ints).  A choice
    between a float32 and a float64 takes the float64, as precise (README)."""
    if _choice_args(value) is None:
        return
    operands = _choice_operands(value)
    types = {o.type for o in operands}
    strong = sorted({t.dtype.value for t in types if not t.weak})
    if len(strong) > 1 and any(not DType(d).is_float for d in strong):
        held, fix = f"a NumPy {strong[0]} or a NumPy {strong[1]}", "the operands to one type"
    elif strong == [DType.BOOL.value] and not all(
            not o.type.weak or isinstance(o, Literal) and o.type.dtype is DType.BOOL
            and not o.value for o in operands):
        # (a Python False computes as NumPy's: False + False is 0, -False an error alike)
        held, fix = "a NumPy bool or a Python scalar", "the bool (`bool(b[i])`, `int(b[i])`)"
    else:
        return
    name = target.id
    raise NotAffine(target, f"`{name}` holding {held}",
                    f"a choice between them gives either, and CPython computes on each in "
                    f"its own type later, a compiled local has one; convert {fix}, or the "
                    f"choice (`int(max(...))`, `float(...)`)")


def _choice_args(value: Expr) -> tuple[Expr, ...] | None:
    """The operands of ``max``, ``min`` or ``a if c else b``; None for anything else."""
    if isinstance(value, Call) and value.fn in ("min", "max"):
        return value.args
    if isinstance(value, Select):
        return (value.then, value.otherwise)
    return None


def _choice_operands(value: Expr) -> list[Expr]:
    """The operands of a choice, and of the choices among them."""
    args = _choice_args(value)
    return [value] if args is None else [leaf for o in args for leaf in _choice_operands(o)]


def _as_load(target: ast.expr) -> ast.expr:
    """The target of ``x op= v`` read as a value (same node, load context)."""
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(target.id, ast.Load()), target)
    return target
