"""Arithmetic on a choice follows the chosen operand's type, as under CPython.

``a if c else b``, ``max(a, b)`` and ``min(a, b)`` evaluate to one of their operands,
with that operand's own type: ``1.5 + (0.1 if c else x32[i])`` is a float64 addition
where ``0.1`` is chosen and a float32 one where ``x32[i]`` is.  The value converter
gives a choice one static type (:func:`~polyopt.frontends.python_values.choice_type`,
which holds every operand's value exactly): that is all a store, a conversion, a
comparison of the choice itself or a returned value needs.  Where the operation around
a choice would compute in a different type depending on the operand chosen, the choice
is hoisted out of it, up to the closest node whose computation no longer depends on it
(the statement's value, a comparison, a conversion, a ``math.`` function), and each
copy is typed as CPython types it::

    1.5 + (0.1 if c else x32[i])   ->   (1.5 + 0.1) if c else (1.5 + x32[i])

``max(a, b)`` is hoisted as ``b if b > a else a`` (CPython keeps the first of equal
operands), the comparison in the operands' own types.  Each hoisted choice doubles the
arithmetic around it: more than :data:`MAX_HOISTED` in one statement are refused.
Where the operands of every choice have one type (the common case) nothing changes.
"""

from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np
from polyopt.frontends.python_math import MATH_FUNCTIONS, call_type
from polyopt.frontends.python_values import binary, choice_type
from polyopt.frontends.refusal import NotAffine

from polyopt.model.dtypes import (
    BOOL,
    DType,
    ValueType,
    arithmetic_type,
    compare_type,
    comparison_result,
    promote,
    true_divide,
)
from polyopt.model.expr import (
    COMPARISONS,
    Binary,
    Call,
    Cast,
    Expr,
    Literal,
    Load,
    Name,
    Select,
    Unary,
    children,
    walk,
)

#: The most choices one statement may hoist (each doubles the arithmetic around it).
MAX_HOISTED = 3

Kinds = frozenset[ValueType]
_Key = tuple[int, int]  # (id of the choice's source node, which binary choice of it)


def follow_cpython(value: Expr, choices: dict[int, tuple[Expr, ast.AST]], stmt: ast.AST) -> Expr:
    """``value`` with every choice whose operand types would change the arithmetic
    around it hoisted out of that arithmetic; ``value`` itself when there is none.

    ``choices`` are the choice nodes of ``value`` (id -> (node, source)); a NotAffine at
    the offending choice when more than :data:`MAX_HOISTED` would be hoisted."""
    if not any(_mixed(n) for n in walk(value) if isinstance(n, Select) or id(n) in choices):
        return value
    return _Hoister(choices, stmt).rewrite(value)


def _mixed(e: Expr) -> bool:
    """A choice whose operands have different static types."""
    ops = (e.then, e.otherwise) if isinstance(e, Select) else children(e)
    return len({o.type for o in ops}) > 1


def _choice_of(types: list[ValueType]) -> ValueType:
    return types[0] if all(t == types[0] for t in types) else choice_type(types)


def _f32_exact(e: Expr) -> bool:
    """A weak constant that float32 holds exactly: comparing a float32 with it gives the
    same answer in float32 (NumPy) and float64."""
    negated = isinstance(e, Unary) and e.op == "-"
    c = e.operand if negated else e  # type: ignore[union-attr]
    if not (isinstance(c, Literal) and c.type.weak):
        return False
    v = c.value
    if isinstance(v, float):
        return float(np.float32(v)) == v
    return abs(v) <= 2**24


class _Hoister:
    def __init__(self, choices: dict[int, tuple[Expr, ast.AST]], stmt: ast.AST) -> None:
        self.stmt = stmt
        # choice node id -> (which binary choice of which source it is, the source)
        self.source: dict[int, tuple[_Key, ast.AST]] = {}
        for eid, (e, node) in choices.items():
            self.source[eid] = ((id(node), len(e.args) - 2 if isinstance(e, Call) else 0), node)
        self.kinds: dict[int, Kinds] = {}  # node id -> the types CPython may give its value
        self.done: dict[int, Expr] = {}  # node id -> the node rewritten
        self.keep: list[Expr] = []  # the nodes whose ids are keys above
        self.hoisted: dict[_Key, ast.AST] = {}
        self.where = stmt  # the source of the choice hoisted last: where a retyping fails

    # --- the walk ---------------------------------------------------------------------------

    def rewrite(self, e: Expr) -> Expr:
        out = self.done.get(id(e))
        if out is not None:
            return out
        out = self._rewrite(e)
        if out is not e and id(e) in self.source and id(out) not in self.source:
            self.source[id(out)] = self.source[id(e)]
        self.done[id(e)] = self.done[id(out)] = out
        self.keep += (e, out)
        return out

    def _is_choice(self, e: Expr) -> bool:
        return isinstance(e, Select) or (isinstance(e, Call) and id(e) in self.source)

    def _rewrite(self, e: Expr) -> Expr:
        if isinstance(e, (Literal, Name, Load)):
            return self._with(e, frozenset({e.type}))
        kids = [self.rewrite(c) for c in children(e)]
        node = self._rebuild(e, kids)
        if self._is_choice(e):  # a choice of choices is one choice: nothing to hoist here
            ops = kids[1:] if isinstance(e, Select) else kids
            return self._with(node, frozenset().union(*(self.kinds[id(o)] for o in ops)))
        if isinstance(e, Cast) or (isinstance(e, Unary) and e.op == "not") or (
                isinstance(e, Binary) and e.op in ("and", "or")):
            return self._with(node, frozenset({node.type}))
        if isinstance(e, Call) and e.fn in MATH_FUNCTIONS and e.type.weak:
            # math.f converts its arguments to Python floats: float64 whatever they were
            return self._with(node, frozenset({node.type}))
        if all(len(self.kinds[id(k)]) == 1 for k in kids):
            return self._with(node, frozenset({node.type}))
        static, results = self._computations(node, kids)
        if {c for c, _ in results} != {static}:
            return self._hoist(node)
        return self._with(node, frozenset(r for _, r in results))

    def _with(self, e: Expr, kinds: Kinds) -> Expr:
        self.kinds[id(e)] = kinds
        self.keep.append(e)
        return e

    def _computations(self, node: Expr, kids: list[Expr]) -> tuple[DType, list[tuple[DType, ValueType]]]:
        """The type ``node`` computes in as typed, and (computation, result) for every
        combination of the types its operands may have under CPython."""
        combos: list[list[ValueType]] = [[]]
        for k in kids:
            combos = [c + [t] for c in combos for t in sorted(self.kinds[id(k)], key=str)]
        relaxed = (isinstance(node, Binary) and node.op in COMPARISONS
                   and any(_f32_exact(k) for k in kids))

        def computation(types: list[ValueType]) -> tuple[DType, ValueType]:
            if isinstance(node, Unary):
                return types[0].dtype, types[0]
            if isinstance(node, Binary) and node.op in COMPARISONS:
                dtype = compare_type(types[0], types[1]).dtype
                if relaxed and dtype is DType.FLOAT32:
                    dtype = DType.FLOAT64
                return dtype, comparison_result(types[0], types[1])
            if isinstance(node, Binary):
                t = true_divide(*types) if node.op == "/" else (
                    arithmetic_type(node.op, *types) or promote(*types))
                return t.dtype, t
            assert isinstance(node, Call)
            t = _call_type(node, types)
            return t.dtype, t

        return computation([k.type for k in kids])[0], [computation(c) for c in combos]

    # --- hoisting -----------------------------------------------------------------------------

    def _hoist(self, e: Expr) -> Expr:
        """``e``, whose computation depends on the operand a choice below it picks, as a
        choice between copies of it, one per operand."""
        choice = self._find_choice(e)
        key, where = self.source.get(id(choice), ((id(choice), 0), self.stmt))
        if key not in self.hoisted:
            self.hoisted[key] = where
            self.where = where
            if len(self.hoisted) > MAX_HOISTED:
                raise NotAffine(where, f"`{ast.unparse(where)}`", _too_many())
        cond, first, second = self._split(choice)
        a = self.rewrite(self._substitute(e, choice, first))
        b = self.rewrite(self._substitute(e, choice, second))
        out = Select(cond, a, b, _choice_of([a.type, b.type]))
        self.source[id(out)] = (key, where)
        return self._with(out, self.kinds[id(a)] | self.kinds[id(b)])

    def _find_choice(self, e: Expr) -> Expr:
        """The outermost choice below ``e`` that CPython may give different types."""
        for c in children(e):
            if len(self.kinds[id(c)]) > 1:
                return c if self._is_choice(c) else self._find_choice(c)
        raise AssertionError("no choice to hoist")  # pragma: no cover

    def _split(self, choice: Expr) -> tuple[Expr, Expr, Expr]:
        """(condition, operand if it holds, operand otherwise) of a choice: ``max(a, b,
        c)`` is ``c if c > max(a, b) else max(a, b)``, compared as CPython compares."""
        if isinstance(choice, Select):
            return choice.cond, choice.then, choice.otherwise
        assert isinstance(choice, Call)
        *rest_args, last = choice.args
        rest: Expr = rest_args[0]
        if len(rest_args) > 1:
            rest = Call(choice.fn, tuple(rest_args), choice_type([a.type for a in rest_args]))
            (sid, unit), where = self.source[id(choice)]
            self.source[id(rest)] = ((sid, unit - 1), where)
            self.keep.append(rest)
            rest = self.rewrite(rest)
        cond = self.rewrite(Binary(">" if choice.fn == "max" else "<", last, rest, BOOL))
        return cond, last, rest

    def _substitute(self, e: Expr, target: Expr, by: Expr) -> Expr:
        """``e`` with ``target`` (the node itself) replaced by ``by``, retyped."""
        if e is target:
            return by
        kids = children(e)
        new = [self._substitute(c, target, by) for c in kids]
        return self._rebuild(e, new)

    def _rebuild(self, e: Expr, kids: list[Expr]) -> Expr:
        """``e`` over new operands, typed by the converter's rules (``e`` itself when
        they are its own)."""
        old = children(e)
        if all(a is b for a, b in zip(kids, old, strict=True)):
            return e
        same_types = all(a.type == b.type for a, b in zip(kids, old, strict=True))
        out: Expr
        if isinstance(e, Cast):
            out = replace(e, operand=kids[0])
        elif isinstance(e, Unary):
            out = replace(e, operand=kids[0], type=BOOL if e.op == "not" else kids[0].type)
        elif isinstance(e, Binary):
            if e.op in COMPARISONS or e.op in ("and", "or"):
                out = replace(e, lhs=kids[0], rhs=kids[1])
            else:
                out = binary(e.op, kids[0], kids[1], self.where)
        elif isinstance(e, Select):
            t = e.type if same_types else _choice_of([kids[1].type, kids[2].type])
            out = Select(kids[0], kids[1], kids[2], t)
        elif isinstance(e, Call) and e.fn in ("maximum", "minimum") and not same_types:
            # np.maximum of a float (python_values): a ufunc, NumPy's promotion; over an
            # operand chosen as an int, an int maximum, which no NaN can reach
            t = ValueType(promote(kids[0].type, kids[1].type).dtype)
            fn = e.fn if t.dtype.is_float else {"maximum": "max", "minimum": "min"}[e.fn]
            out = Call(fn, tuple(kids), t)
        else:
            assert isinstance(e, Call)
            out = Call(e.fn, tuple(kids), e.type if same_types else _call_type(e, [k.type for k in kids]))
        if id(e) in self.source:
            self.source[id(out)] = self.source[id(e)]
        self.keep.append(out)
        return out


def _call_type(e: Call, types: list[ValueType]) -> ValueType:
    """The converter's type of the call ``e`` on operands of ``types``."""
    if e.fn in ("min", "max", "maximum", "minimum"):
        return choice_type(types)
    if e.fn == "abs":
        return types[0]
    return call_type("math" if e.type.weak else "np", e.fn, types)  # math.f: a Python float


def _too_many() -> str:
    return (f"is choice number {MAX_HOISTED + 1} in this statement whose operands have different "
            "types and whose value is used in arithmetic: CPython computes that arithmetic in "
            "the chosen operand's type, which polyopt follows by copying the arithmetic for "
            f"each operand, for at most {MAX_HOISTED} choices ({2 ** MAX_HOISTED} copies); give "
            "a choice's operands one type (`float(x[i]) if c else 0.5`), convert the choice "
            "(`float(max(x[i], 0.5))`), or compute part of the expression in another statement")
