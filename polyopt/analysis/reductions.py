"""Recognizing reductions: associative updates of one location.

A statement is a reduction when it has one of the forms ::

    x = x + e     x += e     x -= e     x = x * e     x *= e
    x = min(x, e) x = max(e, x)         (x a scalar or an array element)
    x = x >= e ? x : e                  (C's max of ints, and its mirrored and min forms)

and ``e`` does not read ``x`` itself (the same scalar, or the same element written
with the same subscripts).  Its self-dependences on ``x`` may then be reordered
(``reduction(op:x)`` in OpenMP).  ``e`` may read other elements of ``x``'s array
(``A[i, j] -= A[i, k] * A[j, k]`` in cholesky): the dependences say whether one of
them can be ``x`` at another instance, and such a dependence is not a reduction's,
so it keeps any loop that carries it in order.

A reduction is *exact* when its updates give the same bits in any order: integer
arithmetic that wraps (NumPy's fixed-width ints), where ``+`` and ``*`` are associative
modulo 2**bits and ``min``/``max`` pick one of their operands.  Float sums round
differently in another order, a float ``max`` with a NaN returns whichever operand came
first, and a Python int accumulator may overflow int64 in one order and not another.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.model.dtypes import DType
from polyopt.model.expr import Binary, Call, Cast, Expr, Load, Name, Select, walk
from polyopt.model.scop import Scop, Statement


@dataclass(frozen=True)
class Reduction:
    statement: str
    op: str  # "+", "*", "min", "max"
    target: str
    is_array: bool
    exact: bool = False  # its updates may run in any order, bit for bit


def _is_target(e: Expr, s: Statement) -> bool:
    """``e`` reads the location ``s`` writes, possibly converted: not narrowed to a
    smaller int (``(uint8)s + B[i]`` with an int64 ``s`` wraps each step to 8 bits, and
    checks that ``s`` fits them: no ``+`` on the int64 does that)."""
    casts: list[Cast] = []
    while isinstance(e, Cast):
        casts.append(e)
        e = e.operand
    if any(_narrows(c.operand.type.dtype, c.type.dtype) for c in casts):
        return False
    if isinstance(e, Load):
        return e.array == s.target and e.indices == s.indices
    if isinstance(e, Name):
        return not s.indices and e.name == s.target
    return False


def _narrows(source: DType, to: DType) -> bool:
    """An int conversion that may not keep every value of ``source``."""
    if not (source.is_int and to.is_int):
        return False
    low, high = source.bounds
    to_low, to_high = to.bounds
    return low < to_low or high > to_high


def _reads_target(e: Expr, s: Statement) -> bool:
    """``e`` reads the reduction's own location as written (not merely its array)."""
    return any(
        (isinstance(n, Load) and n.array == s.target and (not s.indices or n.indices == s.indices))
        or (isinstance(n, Name) and n.name == s.target)
        for n in walk(e)
    )


def recognize(s: Statement) -> Reduction | None:
    """The reduction ``s`` performs, or None."""
    value = s.value
    while isinstance(value, Cast):
        value = value.operand
    other: Expr | None = None
    op: str | None = None
    if isinstance(value, Binary) and value.op in ("+", "*", "-"):
        if _is_target(value.lhs, s):
            other, op = value.rhs, ("+" if value.op == "-" else value.op)
        elif value.op != "-" and _is_target(value.rhs, s):
            other, op = value.lhs, value.op
    elif isinstance(value, Call) and value.fn in ("min", "max") and len(value.args) == 2:
        a, b = value.args
        if _is_target(a, s):
            other, op = b, value.fn
        elif _is_target(b, s):
            other, op = a, value.fn
    elif isinstance(value, Select):
        other, op = _chosen(value, s)
    if other is None or op is None or _reads_target(other, s):
        return None
    if not value.type.dtype.is_float and op in ("min", "max") and value.type != s.value.type:
        return None
    if value.type.dtype.is_bool and op == "+":
        # NumPy's bool + is or: OpenMP's + would count past 1 (* is and, min and max of
        # 0 and 1 stay 0 or 1: those are OpenMP's own)
        return None
    t = s.value.type
    if t.dtype.is_int and value.type.dtype.is_float:
        # `T[j] += w[k] * 0.5` on ints truncates every partial sum: no copy per lane or
        # thread may add up its own and truncate once
        return None
    return Reduction(s.name, op, s.target, bool(s.indices),
                     exact=t.dtype.is_int and not t.weak and value.type == t)


_MAX_WHEN_THEN_IS_LEFT = {">=": "max", ">": "max", "<=": "min", "<": "min"}
_MIRRORED = {">=": "<=", ">": "<", "<=": ">=", "<": ">"}


def _chosen(v: Select, s: Statement) -> tuple[Expr | None, str | None]:
    """``(e, "max")`` for ``x >= e ? x : e`` (PolyBench/C's ``max_score``), and the same
    for the other comparisons, operand orders and ``min``; only on ints, where the choice
    between equal operands is no choice (a float's NaN makes the order matter)."""
    c = v.cond
    if not (v.type.dtype.is_int and isinstance(c, Binary) and c.op in _MIRRORED):
        return None, None
    for left, right, cmp in ((c.lhs, c.rhs, c.op), (c.rhs, c.lhs, _MIRRORED[c.op])):
        # `left cmp right ? left : right`, or the other way round
        if left == v.then and right == v.otherwise:
            op = _MAX_WHEN_THEN_IS_LEFT[cmp]
        elif left == v.otherwise and right == v.then:
            op = "min" if _MAX_WHEN_THEN_IS_LEFT[cmp] == "max" else "max"
        else:
            continue
        if _is_target(left, s):
            return right, op
        if _is_target(right, s):
            return left, op
    return None, None


def reductions(scop: Scop) -> dict[str, Reduction]:
    out: dict[str, Reduction] = {}
    for s in scop.statements:
        r = recognize(s)
        if r is not None:
            out[s.name] = r
    return out
