"""A delta-debugging shrinker over the program AST (for the long runner, which does not
go through hypothesis).

Greedy: the first candidate that still fails the same way replaces the program, and the
search starts again from the smaller one.  Candidates drop top-level statements, nested
statements, branches and the return value, and replace expressions by one of their own
subexpressions or by a constant.  A candidate CPython cannot run (a temporary's definition
was dropped...) is skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from progen.nodes import (
    Assign,
    Bin,
    BoolOp,
    Call,
    Cmp,
    Expr,
    For,
    If,
    IfExp,
    Index,
    Neg,
    Not,
    Num,
    Program,
    Stmt,
)


def _bodies(body: tuple[Stmt, ...]) -> Iterator[tuple[Stmt, ...]]:
    """``body`` with one statement removed or simplified, anywhere inside it."""
    for k in range(len(body)):
        yield body[:k] + body[k + 1:]
    for k, s in enumerate(body):
        for new in _statements(s):
            yield body[:k] + new + body[k + 1:]


def _statements(s: Stmt) -> Iterator[tuple[Stmt, ...]]:
    """Replacements for one statement (each a tuple of statements)."""
    if isinstance(s, For):
        for b in _bodies(s.body):
            yield (replace(s, body=b),)
        if s.step not in (1, -1):
            yield (replace(s, step=1 if s.step > 0 else -1),)
    elif isinstance(s, If):
        yield s.body
        if s.orelse:
            yield s.orelse
            yield (replace(s, orelse=()),)
        for b in _bodies(s.body):
            yield (replace(s, body=b),)
        for b in _bodies(s.orelse):
            yield (replace(s, orelse=b),)
    elif isinstance(s, Assign):
        if s.op:
            yield (replace(s, op=""),)
        for e in _exprs(s.value):
            yield (replace(s, value=e),)


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Bin):
        return (e.left, e.right)
    if isinstance(e, (Neg, Not)):
        return (e.operand,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, IfExp):
        return (e.then, e.other)
    if isinstance(e, BoolOp):
        return e.values
    if isinstance(e, Cmp):
        return ()
    return ()


def _exprs(e: Expr) -> Iterator[Expr]:
    """Simpler expressions in place of ``e``: its subexpressions, a constant, and ``e`` with
    one subexpression simplified."""
    if isinstance(e, Num):
        return
    yield from _children(e)
    if not isinstance(e, Index):
        yield Num(1.0)
        yield Num(1)
    if isinstance(e, Bin):
        for x in _exprs(e.left):
            yield replace(e, left=x)
        for x in _exprs(e.right):
            yield replace(e, right=x)
    elif isinstance(e, Call):
        for k, a in enumerate(e.args):
            for x in _exprs(a):
                yield replace(e, args=e.args[:k] + (x,) + e.args[k + 1:])
    elif isinstance(e, IfExp):
        for x in _exprs(e.then):
            yield replace(e, then=x)
        for x in _exprs(e.other):
            yield replace(e, other=x)
    elif isinstance(e, Neg):
        for x in _exprs(e.operand):
            yield replace(e, operand=x)


def candidates(p: Program) -> Iterator[Program]:
    if p.ret is not None:
        yield replace(p, ret=None)
    for b in _bodies(p.body):
        yield replace(p, body=b)
    if p.ret is not None:
        for e in _exprs(p.ret):
            yield replace(p, ret=e)
    used = repr(p.body) + repr(p.ret)
    for k, a in enumerate(p.allocs):
        if f"'{a.name}'" not in used:
            yield replace(p, allocs=p.allocs[:k] + p.allocs[k + 1:])


def shrink(p: Program, fails: Callable[[Program], bool], budget_s: float = 120.0,
           max_tries: int = 400) -> Program:
    """The smallest program found that still ``fails``."""
    deadline = time.monotonic() + budget_s
    tries = 0
    improved = True
    while improved and tries < max_tries and time.monotonic() < deadline:
        improved = False
        for c in candidates(p):
            if tries >= max_tries or time.monotonic() >= deadline:
                break
            tries += 1
            if fails(c):
                p, improved = c, True
                break
    return p
