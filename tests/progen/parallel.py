"""``prange`` in generated programs: a loop is written ``prange`` only where running it
in parallel is legal by construction, so that a generated program stays valid (an
illegal ``prange`` is refused, tested in tests/test_numba_style.py).

A sufficient condition, checked on the loop's body: it assigns no scalar (no
accumulator, no temporary), and every array it writes is accessed, by each of its
reads and writes in the body, with the loop variable alone in one same dimension::

    for i in prange(n):          # legal: B is touched only at B[i, ...]
        for j in range(m):
            B[i, j] += A[j, i]   # A is only read
"""

from __future__ import annotations

from dataclasses import replace

from progen.draw import Draw
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
    Name,
    Neg,
    Not,
    Program,
    Stmt,
)


def with_prange(p: Program, d: Draw, percent: int = 35) -> Program:
    """``p`` with some of the loops that may run in parallel written ``prange``."""
    return replace(p, body=tuple(_stmt(s, d, percent) for s in p.body))


def _stmt(s: Stmt, d: Draw, percent: int) -> Stmt:
    if isinstance(s, For):
        body = tuple(_stmt(x, d, percent) for x in s.body)
        parallel = s.parallel or (may_run_in_parallel(s) and d.chance(percent))
        return replace(s, body=body, parallel=parallel)
    if isinstance(s, If):
        return replace(s, body=tuple(_stmt(x, d, percent) for x in s.body),
                       orelse=tuple(_stmt(x, d, percent) for x in s.orelse))
    return s


def may_run_in_parallel(loop: For) -> bool:
    """Whether ``loop``'s iterations touch disjoint elements (the condition above)."""
    writes: set[str] = set()
    accesses: list[Index] = []
    for s in _statements(loop.body):
        if isinstance(s, Assign):
            if isinstance(s.target, Name):
                return False
            writes.add(s.target.array)
            accesses.append(s.target)
            accesses += _indexes(s.value)
        elif isinstance(s, If):
            accesses += _indexes(s.cond)
    for array in writes:
        of_array = [a for a in accesses if a.array == array]
        rank = len(of_array[0].idx)
        if not any(all(a.idx[k] == Name(loop.var) for a in of_array) for k in range(rank)):
            return False
    return True


def _statements(body: tuple[Stmt, ...]) -> list[Stmt]:
    out: list[Stmt] = []
    for s in body:
        out.append(s)
        if isinstance(s, For):
            out += _statements(s.body)
        elif isinstance(s, If):
            out += _statements(s.body) + _statements(s.orelse)
    return out


def _indexes(e: Expr) -> list[Index]:
    """Every array element ``e`` reads."""
    if isinstance(e, Index):
        return [e, *(x for i in e.idx for x in _indexes(i))]
    if isinstance(e, Bin | Cmp):
        return _indexes(e.left) + _indexes(e.right)
    if isinstance(e, Neg | Not):
        return _indexes(e.operand)
    if isinstance(e, Call):
        return [x for a in e.args for x in _indexes(a)]
    if isinstance(e, BoolOp):
        return [x for v in e.values for x in _indexes(v)]
    if isinstance(e, IfExp):
        return _indexes(e.cond) + _indexes(e.then) + _indexes(e.other)
    return []
