"""Assignments to several targets, as the single assignments CPython performs.

CPython evaluates the right-hand side once, then assigns the targets left to right.
The single assignments evaluate a value in place where no earlier target is a name
it reads, and save it in a fresh local first otherwise (``x + y`` reads ``x``, which
is assigned before ``y``)::

    a = b = 0.0            # a = 0.0
                           # b = 0.0
    x, y = y, x + y        # _saved = x + y
                           # x = y
                           # y = _saved
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from polyopt.frontends.refusal import NotAffine


def chained(st: ast.Assign, fresh: Callable[[str], str]) -> list[ast.Assign]:
    """``t1 = t2 = ... = v`` as one assignment per target."""
    targets = list(st.targets)
    for t in targets:
        _check_target(t)
    value, saved = _value(st.value, targets[:-1], st, fresh, 0)
    return [*saved, *(_assign(t, value, st) for t in targets)]


def unpacked(st: ast.Assign, target: ast.Tuple, fresh: Callable[[str], str]) -> list[ast.Assign]:
    """``t1, t2 = v1, v2`` as one assignment per target."""
    value = st.value
    if not isinstance(value, ast.Tuple) or len(value.elts) != len(target.elts):
        raise NotAffine(target, "tuple assignment", "the right-hand side must be a tuple of as "
                        "many values (`a, b = b, a + b`), or `n, m = A.shape`")
    for t in target.elts:
        _check_target(t)
    saved: list[ast.Assign] = []
    values: list[ast.expr] = []
    for k, v in enumerate(value.elts):
        v, more = _value(v, target.elts[:k], st, fresh, k)
        saved += more
        values.append(v)
    return [*saved, *(_assign(t, v, st) for t, v in zip(target.elts, values, strict=True))]


def _value(value: ast.expr, before: list[ast.expr], st: ast.Assign,
           fresh: Callable[[str], str], k: int) -> tuple[ast.expr, list[ast.Assign]]:
    """``value`` itself when no target in ``before`` is a name it reads; else a fresh
    local holding it, and the assignment that saves it."""
    written = {_base(t) for t in before}
    if not any(isinstance(n, ast.Name) and n.id in written for n in ast.walk(value)):
        return value, []
    name = fresh(f"_saved{st.lineno}_{st.col_offset}_{k}")
    store = ast.copy_location(ast.Name(name, ast.Store()), value)
    return ast.copy_location(ast.Name(name, ast.Load()), value), [_assign(store, value, st)]


def _assign(target: ast.expr, value: ast.expr, st: ast.Assign) -> ast.Assign:
    return ast.copy_location(ast.Assign([target], value), st)


def _check_target(t: ast.expr) -> None:
    if not isinstance(t, (ast.Name, ast.Subscript)):
        raise NotAffine(t, f"assignment to `{ast.unparse(t)}`", "each target must be a name or "
                        "an array element (no nested tuples or starred names)")


def _base(t: ast.expr) -> str:
    """The name a target assigns: the variable, or the array of an element."""
    while isinstance(t, ast.Subscript):
        t = t.value
    return t.id if isinstance(t, ast.Name) else ""
