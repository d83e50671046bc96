"""Translation validation of isl's AST: it runs each statement instance of the domain once.

isl's code generator is trusted with every loop polyopt prints, and it can be wrong.
With no bound on ``n``, isl 0.27 (islpy 2026.2.2) prints, for the domain of ::

    for i in range(n // 2, -1, -2):
        if i <= 1:
            B[i] += 1

(``0 <= i <= 1``, ``2i <= n``, ``i`` of the parity of ``n // 2``) only the piece
``i = 1``: the calls with ``n = 0, 1, 4, 5`` did nothing.  So the AST is checked.  The
counter values of each loop (its initial value, condition and step) and of each ``if``
give, at each statement node, the set of instances it runs, in exact isl arithmetic on
the AST's own expressions.  Then, per statement:

* the instances run are within its domain (and the build's context), for every value
  of the parameters;
* at sample values of the parameters (:data:`SAMPLES`), every instance of the domain
  is run, and (at the first two) by one node only.  The parametric form of this direction costs isl seconds
  on a tiled nest (lu: 3.7 s for one statement), the sampled one milliseconds.

An expression the check cannot translate leaves the AST unchecked (None), not refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import islpy as isl
from polyopt.backend_c.isl_ast import (
    AND,
    OR,
    NodeKind,
    block_children,
    expr_kind,
    node_kind,
    op_args,
    op_type,
    user_call,
)

from polyopt.model import names

_E = isl.ast_expr_type
_O = isl.ast_expr_op_type


class _Untranslatable(Exception):
    """An AST expression outside what the check translates."""


def mismatch(ast: isl.AstNode, domains: Mapping[str, isl.Set], context: isl.Set,
             counters: list[str]) -> str | None:
    """Why ``ast`` (built over ``context`` with loop counters named ``counters``) does not
    run each instance of ``domains`` exactly once, or None when it does or when the AST
    holds an expression the check does not translate."""
    # only the counters of the AST's loops: isl's work grows with the dimensions
    used = _loop_counters(ast)
    universe = names.counter_set(context, [c for c in counters if c in used])
    runs: dict[str, list[isl.Set]] = {}
    try:
        _walk(ast, universe.intersect_params(context), universe, runs)
    except _Untranslatable:
        return None
    for stmt, domain in domains.items():
        parts = runs.get(stmt, [])
        want = domain.intersect_params(context)
        got = want.empty(want.get_space()) if not parts else _union(parts)
        if not got.is_subset(want):
            return f"statement {stmt}: the loops run {got.subtract(want)} beyond its domain"
        for n, values in enumerate(_samples(names.param_names(want))):
            missing = names.fix_params(want, values).subtract(names.fix_params(got, values))
            if not missing.is_empty():
                return f"statement {stmt}: the loops skip {missing}"
            if n < DISJOINT_SAMPLES and len(parts) > 1:
                twice = _twice([names.fix_params(p, values) for p in parts])
                if twice is not None:
                    return f"statement {stmt}: the loops run {twice} twice"
    extra = sorted(set(runs) - set(domains))
    return f"the loops run statements {extra} of no domain" if extra else None


#: the parameter values where every parameter is the same: the residues of small
#: strides, sizes below and past a tile, and an empty range
SAMPLES = (33, 130, 7, -1, 0, 1, 2, 3, 4, 5)
#: the samples (the first ones) where the nodes of a statement are checked disjoint too:
#: each costs a comparison per pair of nodes, and isl was seen to drop instances
DISJOINT_SAMPLES = 2


def _samples(params: list[str]) -> list[dict[str, int]]:
    """Parameter values to compare at: each of :data:`SAMPLES` for every parameter, and
    two with the parameters apart (a rectangle's sides, one side past a tile)."""
    return [dict.fromkeys(params, v) for v in SAMPLES] + [
        {p: 5 + 7 * k for k, p in enumerate(params)},
        {p: 37 - 9 * k for k, p in enumerate(params)}]


def _twice(parts: list[isl.Set]) -> isl.Set | None:
    """The points of two of ``parts``, or None when they are disjoint."""
    for k, a in enumerate(parts):
        for b in parts[k + 1:]:
            both = a.intersect(b)
            if not both.is_empty():
                return both
    return None


def _union(parts: list[isl.Set]) -> isl.Set:
    out = parts[0]
    for p in parts[1:]:
        out = out.union(p)
    return out


def _loop_counters(node: isl.AstNode) -> set[str]:
    kind = node_kind(node)
    if kind is NodeKind.BLOCK:
        return set().union(*(_loop_counters(c) for c in block_children(node)))
    if kind is NodeKind.MARK:
        return _loop_counters(node.mark_get_node())
    if kind is NodeKind.IF:
        out = _loop_counters(node.if_get_then_node())
        return out | _loop_counters(node.if_get_else_node()) if node.if_has_else_node() else out
    if kind is NodeKind.FOR:
        return {str(node.for_get_iterator().get_id().get_name())} | _loop_counters(
            node.for_get_body())
    return set()


def _walk(node: isl.AstNode, where: isl.Set, universe: isl.Set,
          runs: dict[str, list[isl.Set]]) -> None:
    kind = node_kind(node)
    if kind is NodeKind.BLOCK:
        for child in block_children(node):
            _walk(child, where, universe, runs)
    elif kind is NodeKind.MARK:
        _walk(node.mark_get_node(), where, universe, runs)
    elif kind is NodeKind.IF:
        cond = _condition(node.if_get_cond(), universe)
        _walk(node.if_get_then_node(), where.intersect(cond), universe, runs)
        if node.if_has_else_node():
            _walk(node.if_get_else_node(), where.subtract(cond), universe, runs)
    elif kind is NodeKind.FOR:
        _walk(node.for_get_body(), where.intersect(_loop(node, universe)), universe, runs)
    else:
        stmt, args = user_call(node)
        values = [_value(a, universe) for a in args]
        runs.setdefault(stmt, []).append(names.instances_of(where, values, stmt))


def _loop(node: isl.AstNode, universe: isl.Set) -> isl.Set:
    """The counter values a ``for`` node runs, as a set of ``universe``."""
    counter, init = node.for_get_iterator(), node.for_get_init()
    if node.for_is_degenerate():
        return _value(counter, universe).eq_set(_value(init, universe))
    step = node.for_get_inc()
    if expr_kind(step) is not _E.int or step.get_val().to_python() <= 0:
        raise _Untranslatable("a loop's step")
    inc = step.get_val().to_python()
    runs = _at_most(init, counter, False, universe).intersect(
        _condition(node.for_get_cond(), universe))
    if inc != 1:
        offset = _value(counter, universe).sub(_value(init, universe))
        runs = runs.intersect(offset.mod_val(isl.Val(inc)).eq_set(_zero(universe)))
    return runs


def _zero(universe: isl.Set) -> isl.PwAff:
    return isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(universe.get_space()))


def _const(e: isl.AstExpr) -> int:
    if expr_kind(e) is not _E.int:
        raise _Untranslatable("a division by a non-constant")
    return int(e.get_val().to_python())


_ARITH: dict[object, Callable[[isl.PwAff, isl.PwAff], isl.PwAff]] = {
    _O.add: lambda a, b: a.add(b),
    _O.sub: lambda a, b: a.sub(b),
    _O.mul: lambda a, b: a.mul(b),
    _O.min: lambda a, b: a.min(b),
    _O.max: lambda a, b: a.max(b),
}
#: a comparison as ``(left, right, strict)`` of ``left <= right`` or ``left < right``
_ORDER: dict[object, Callable[[isl.AstExpr, isl.AstExpr], tuple[isl.AstExpr, isl.AstExpr, bool]]] = {
    _O.le: lambda a, b: (a, b, False),
    _O.lt: lambda a, b: (a, b, True),
    _O.ge: lambda a, b: (b, a, False),
    _O.gt: lambda a, b: (b, a, True),
}


def _value(e: isl.AstExpr, universe: isl.Set) -> isl.PwAff:
    """An integer AST expression as a piecewise affine function on ``universe``."""
    kind = expr_kind(e)
    if kind is _E.int:
        return _zero(universe).add_constant_val(e.get_val())
    if kind is _E.id:
        v = names.named_var(universe, str(e.get_id().get_name()))
        if v is None:
            raise _Untranslatable("a name that is no counter and no parameter")
        return v
    op, args = op_type(e), op_args(e)
    if op in _ARITH:
        out = _value(args[0], universe)
        for a in args[1:]:
            out = _ARITH[op](out, _value(a, universe))
        return out
    if op is _O.minus:
        return _value(args[0], universe).neg()
    if op in (_O.div, _O.fdiv_q, _O.pdiv_q):
        d = _const(args[1])
        return _value(args[0], universe).scale_down_val(isl.Val(d)).floor()
    if op in (_O.pdiv_r, _O.zdiv_r):
        # zdiv_r only ever meets a test against 0, where its sign does not matter
        return _value(args[0], universe).mod_val(isl.Val(abs(_const(args[1]))))
    if op in (_O.select, _O.cond):
        cond = _condition(args[0], universe)
        then, other = _value(args[1], universe), _value(args[2], universe)
        return then.intersect_domain(cond).union_add(other.subtract_domain(cond))
    raise _Untranslatable(f"the operator {op}")


def _condition(e: isl.AstExpr, universe: isl.Set) -> isl.Set:
    """A boolean AST expression as the set of ``universe`` where it holds."""
    if expr_kind(e) is not _E.op:
        raise _Untranslatable("a condition that is no comparison")
    op, args = op_type(e), op_args(e)
    if op in _ORDER:
        return _at_most(*_ORDER[op](args[0], args[1]), universe)
    if op is _O.eq:
        return _value(args[0], universe).eq_set(_value(args[1], universe))
    if op in (AND, _O.and_then):
        return _condition(args[0], universe).intersect(_condition(args[1], universe))
    if op in (OR, _O.or_else):
        return _condition(args[0], universe).union(_condition(args[1], universe))
    raise _Untranslatable(f"the condition operator {op}")


def _at_most(left: isl.AstExpr, right: isl.AstExpr, strict: bool, universe: isl.Set) -> isl.Set:
    """Where ``left <= right`` (``<`` when ``strict``), with a ``min`` or ``max`` on either
    side taken apart: ``x <= min(a, b)`` is ``x <= a`` and ``x <= b``.  Compared as
    piecewise functions, each ``min`` or ``max`` doubles the pieces of the set (a tiled
    loop's bounds nest three), and every later step pays for them."""
    for side, expr in ((0, left), (1, right)):
        if expr_kind(expr) is _E.op and op_type(expr) in (_O.min, _O.max):
            # a min on the right, or a max on the left, must hold for every argument
            every = (op_type(expr) is _O.min) == (side == 1)
            parts = [_at_most(a, right, strict, universe) if side == 0
                     else _at_most(left, a, strict, universe) for a in op_args(expr)]
            out = parts[0]
            for p in parts[1:]:
                out = out.intersect(p) if every else out.union(p)
            return out
    a, b = _value(left, universe), _value(right, universe)
    return a.lt_set(b) if strict else a.le_set(b)
