"""The statements of a ``#pragma scop`` region, walked in order: ``for`` loops,
affine ``if`` statements, assignments (``=``, compound, ``++``/``--``) and scalar declarations,
handed to the shared :class:`~polyopt.frontends.scop_builder.ScopBuilder`.

``x += v`` is recorded as ``x = x + v`` with update operator ``+`` and ``a = b = e``
as ``b = e; a = b``.  Each refused statement becomes a problem and the walk goes on,
so every problem of the region is reported at once.
"""

from __future__ import annotations

from collections.abc import Iterator

from polyopt.frontends.c_affine import describe
from polyopt.frontends.c_loops import loop_bound, loop_init, loop_step
from polyopt.frontends.c_names import loop_counters
from polyopt.frontends.c_scope import RegionScope
from polyopt.frontends.c_types import CType
from polyopt.frontends.c_values import INT, arith, cast
from polyopt.frontends.refusal import NotAffine, if_condition, reads_data
from polyopt.frontends.scop_builder import Place, ScopBuilder, loop_band, loop_bounds
from pycparser import c_ast

from polyopt.model.aff import Lin, Not
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import Problem
from polyopt.model.expr import Expr, Literal
from polyopt.model.schedule_tree import Node

_COMPOUND_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%"}
_UNSUPPORTED = {
    c_ast.While: "`while` loop", c_ast.DoWhile: "`do` loop", c_ast.Switch: "`switch`",
    c_ast.Goto: "`goto`", c_ast.Label: "label", c_ast.Break: "`break`",
    c_ast.Continue: "`continue`", c_ast.Return: "`return`", c_ast.Pragma: "pragma",
    c_ast.FuncCall: "function call statement",
}


class RegionWalker:
    """Converts a region statement by statement; problems go to ``problems``."""

    def __init__(self, scope: RegionScope, scop: ScopBuilder, problems: list[Problem]) -> None:
        self.scope = scope
        self.src = scope.src
        self.scop = scop
        self.problems = problems

    def block(self, items: list[c_ast.Node], place: Place) -> list[Node]:
        nodes: list[Node] = []
        saved = self.scope.iters
        for item in items:
            self.scope.iters = place.iters
            try:
                nodes += self._statement(item, place)
            except NotAffine as e:
                self.problems.append(self.src.problem(e.node, e.construct, e.reason))
        self.scope.iters = saved
        return nodes

    def _statement(self, st: c_ast.Node, place: Place) -> list[Node]:
        if isinstance(st, c_ast.Compound):
            return self.block(list(st.block_items or []), place)
        if isinstance(st, c_ast.EmptyStatement):
            return []
        if isinstance(st, c_ast.For):
            return self._for(st, place)
        if isinstance(st, c_ast.If):
            return self._if(st, place)
        if isinstance(st, c_ast.Assignment):
            return self._assign(st, place)
        if isinstance(st, c_ast.UnaryOp) and st.op in ("++", "--", "p++", "p--"):
            one = Literal(1, INT)
            return self._update(st, st.expr, "+" if "+" in st.op else "-", one, place)
        if isinstance(st, c_ast.Decl):
            return self._decl(st, place)
        if isinstance(st, c_ast.DeclList):
            return [n for d in st.decls for n in self._decl(d, place)]
        construct = _UNSUPPORTED.get(type(st), describe(st))
        reason = ("pragmas inside a scop region are not supported" if isinstance(st, c_ast.Pragma)
                  else "is not supported in a scop region (only for loops, affine ifs and "
                  "assignments)")
        raise NotAffine(st, construct, reason)

    def _decl(self, d: c_ast.Decl, place: Place) -> list[Node]:
        t = self.src.types.of(d.type)
        if t.rank:
            raise NotAffine(d, f"array `{d.name}`", "arrays declared inside a scop region are not "
                            "supported; declare them before `#pragma scop`")
        if t.dtype is None:
            raise NotAffine(d, f"`{d.name}`", t.unsupported)
        if "static" in (d.storage or []) or "extern" in (d.storage or []):
            raise NotAffine(d, f"`{d.name}`", "static and extern declarations are not supported "
                            "inside a scop region")
        self.scope.locals[d.name] = t
        if d.init is None:
            return []
        if isinstance(d.init, c_ast.InitList):
            raise NotAffine(d.init, "initializer list", "is not supported")
        value = self.scope.values.convert(d.init)
        return [self._add(d, place, d.name, (), cast(value, ValueType(t.dtype)), None)]

    def _target(self, lvalue: c_ast.Node) -> tuple[str, tuple[Lin, ...], ValueType]:
        if isinstance(lvalue, c_ast.ID):
            n = lvalue.name
            if n in self.scope.iters or n in self.scope.names.iterators:
                raise NotAffine(lvalue, f"assignment to loop iterator `{n}`",
                                "loop iterators may only change in their `for` header")
            t = self.scope.ctype_of(n)
            if t is not None and t.rank:
                raise NotAffine(lvalue, f"assignment to `{n}`", "assign to its elements")
            vt = self.scope.value_type(lvalue, t)
            self.scope.locals[n] = t if t is not None else CType("int", (), DType.INT32)
            return n, (), vt
        if isinstance(lvalue, (c_ast.ArrayRef, c_ast.UnaryOp)):
            name, indices, t = self.scope.element(lvalue)
            assert t.dtype is not None
            return name, indices, ValueType(t.dtype)
        raise NotAffine(lvalue, f"assignment to {describe(lvalue)}",
                        "only array elements and scalar variables can be assigned")

    def _assign(self, st: c_ast.Assignment, place: Place) -> list[Node]:
        if st.op == "=":
            if isinstance(st.rvalue, c_ast.Assignment):  # `a = b = e`: b = e, then a = b
                first = self._assign(st.rvalue, place)
                target, indices, t = self._target(st.lvalue)
                value = cast(self.scope.values.convert(st.rvalue.lvalue), t)
                return [*first, self._add(st, place, target, indices, value, None)]
            target, indices, t = self._target(st.lvalue)
            value = cast(self.scope.values.convert(st.rvalue), t)
            return [self._add(st, place, target, indices, value, None)]
        op = _COMPOUND_OPS.get(st.op)
        if op is None:
            raise NotAffine(st, f"`{st.op}`", "only = += -= *= /= %= are supported")
        return self._update(st, st.lvalue, op, self.scope.values.convert(st.rvalue), place)

    def _update(self, st: c_ast.Node, lvalue: c_ast.Node, op: str, rhs: Expr,
                place: Place) -> list[Node]:
        target, indices, t = self._target(lvalue)
        current = self.scope.values.convert(lvalue)
        self.scope.values.check_unsigned(st, current, rhs)  # `x /= 2u` divides unsigned in C
        value = cast(arith(op, current, rhs, st), t)
        return [self._add(st, place, target, indices, value, op)]

    def _add(self, st: c_ast.Node, place: Place, target: str, indices: tuple[Lin, ...],
             value: Expr, update: str | None) -> Node:
        return self.scop.add(place, target, indices, value, update, self.src.statement_location(st))

    def _reads_data(self, test: c_ast.Node) -> bool:
        """Whether ``test`` reads memory or calls a function (an array element, ``*p``,
        ``s.f``, ``f(x)``), casts, or names a variable that is no loop counter or size:
        what only the run knows, or what a value of another type may be."""
        memory = (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall, c_ast.Cast)
        return reads_data(
            _nodes(test),
            lambda n: isinstance(n, memory) or (
                isinstance(n, c_ast.UnaryOp) and n.op in ("*", "sizeof")),
            lambda n: isinstance(n, c_ast.ID),
            self.scope.affine.aff)

    def _if(self, st: c_ast.If, place: Place) -> list[Node]:
        cond = if_condition(self.scope.affine.formula, st.cond, "c ? a : b", self._reads_data,
                            "`&&`, `||`, `!`")
        then = self.block([st.iftrue], place.where(cond))
        other = self.block([st.iffalse], place.where(Not(cond))) \
            if st.iffalse is not None else []
        return then + other

    def _for(self, st: c_ast.For, place: Place) -> list[Node]:
        try:
            return self._loop(st, place)
        except NotAffine as e:
            if e.node is not st and not _within(e.node, (st.init, st.cond, st.next)):
                raise  # (the body's own problem, reported already)
            # the header's problem, and then the body's own: all of them at once
            self.problems.append(self.src.problem(e.node, e.construct, e.reason))
            counters = tuple(n for n in loop_counters(st) if n not in place.iters)
            self.block([st.stmt], Place((*place.iters, *counters), place.conds, place.loops))
            return []

    def _loop(self, st: c_ast.For, place: Place) -> list[Node]:
        affine = self.scope.affine
        var, start = loop_init(st, affine, self.src.types, self.scope.ctype_of)
        if var in place.iters:
            raise NotAffine(st, f"loop iterator `{var}`", "is already the iterator of an "
                            "enclosing loop")
        self._check_iterator_type(st, var)
        step = loop_step(st, var, affine)
        self.scope.iters = (*place.iters, var)  # the bound compares the iterator itself
        bound = loop_bound(st, var, step, affine)
        self.scope.iters = place.iters
        inner = self.scop.open_loop(place, var, loop_bounds(var, start, step, bound),
                                    self.src.location(st), step=step)
        return loop_band(inner.loops[-1], var, step, self.block([st.stmt], inner))


    def _check_iterator_type(self, st: c_ast.For, var: str) -> None:
        """NotAffine where the loop's iterator has another type than the loop that named
        the iterator first: the region's iterators, and the counters that run them, have
        one type per name (a ``long i`` from 5000000000 after an ``int i`` loop was run
        by an int counter: hostile session 42b, finding 01)."""
        declared = {d.name: d.type for d in st.init.decls} \
            if isinstance(st.init, c_ast.DeclList) else {}
        here = self.src.types.of(declared[var]) if var in declared else self.scope.ctype_of(var)
        first = self.scope.iterator_type(var)
        if here is not None and first is not None and here.base != first.base:
            raise NotAffine(st, f"loop iterator `{var}`", (
                f"is `{here.base}` here and `{first.base}` in an earlier loop of the region; "
                f"polyopt gives each iterator name one type in a region: rename one of them"))


def _within(node: c_ast.Node, roots: tuple[c_ast.Node | None, ...]) -> bool:
    return any(root is not None and any(n is node for n in _nodes(root)) for root in roots)


def _nodes(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """``node`` and every node below it."""
    yield node
    for _, child in node.children():
        yield from _nodes(child)
