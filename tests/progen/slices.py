"""Loops the Python rendering writes as one NumPy slice statement, so the main program
fuzzer also exercises array code inside and outside nests::

    for k in range(1, n - 1):              A[1:n - 1, j] = B[1 + 1:n - 1 + 1, j] * 2.0
        A[k, j] = (B[k + 1, j] * 2.0)

The generator marks sliceable loops ``For.sliced`` by chance, last (:func:`with_slices`,
so a seed's program is the same but for its slices); the renderer writes the slice only when :func:`slice_statement` still finds it
equal to the loop under NumPy's semantics (the shrinker may have changed it since):

- a step-1 loop (a ``prange`` one too: a slice statement needs no request to run in
  parallel) whose body is one assignment to an element of a float array (NumPy casts
  a float array into an int one without raising where an element assignment raises);
- bounds in sizes only, ``lo < hi``, and every sliced subscript ``k + c`` in range for
  the program's sizes (a negative bound would count from the end);
- ``k`` only as a whole subscript ``k``, ``k + c`` or ``k - c``, at most once per
  subscript list, and in the target's;
- a value of ``+ - * /``, negation, numbers, scalars and array elements (no calls:
  ``math.tanh`` takes no array, and NumPy's own ``np.tanh`` may round differently);
- the target array read only at the target's own element (NumPy reads the whole
  right-hand side before it writes; the loop would see its earlier writes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from progen.draw import Draw
from progen.nodes import (
    Assign,
    Bin,
    Call,
    Expr,
    For,
    If,
    Index,
    Name,
    Neg,
    Num,
    Program,
    Stmt,
    is_float_dtype,
)

#: renders a subscript
Sub = Callable[[Expr], str]
#: the chance (percent) that a sliceable loop is written as a slice statement
CHANCE = 70


def _value(e: Expr, env: dict[str, int]) -> int | None:
    """``e`` for the program's sizes; None when it involves a loop variable."""
    if isinstance(e, Num) and isinstance(e.value, int):
        return e.value
    if isinstance(e, Name):
        return env.get(e.id)
    if isinstance(e, Bin) and e.op in ("+", "-", "*"):
        a, b = _value(e.left, env), _value(e.right, env)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def _shift(e: Expr, var: str) -> int | None:
    """``c`` when ``e`` is ``var``, ``var + c``, ``c + var`` or ``var - c``."""
    if isinstance(e, Name) and e.id == var:
        return 0
    if isinstance(e, Bin) and e.op in ("+", "-"):
        if isinstance(e.left, Name) and e.left.id == var and isinstance(e.right, Num) \
                and isinstance(e.right.value, int):
            return e.right.value if e.op == "+" else -e.right.value
        if e.op == "+" and isinstance(e.right, Name) and e.right.id == var \
                and isinstance(e.left, Num) and isinstance(e.left.value, int):
            return e.left.value
    return None


def _mentions(e: Expr, var: str) -> bool:
    if isinstance(e, Name):
        return e.id == var
    if isinstance(e, Index):
        return any(_mentions(i, var) for i in e.idx)
    if isinstance(e, Bin):
        return _mentions(e.left, var) or _mentions(e.right, var)
    if isinstance(e, Neg):
        return _mentions(e.operand, var)
    if isinstance(e, Call):
        return any(_mentions(a, var) for a in e.args)
    return True  # other nodes never occur in a sliceable value


def _index_ok(e: Index, s: For, p: Program, lo: int, hi: int) -> bool:
    shifts = [(k, _shift(i, s.var)) for k, i in enumerate(e.idx) if _mentions(i, s.var)]
    if len(shifts) > 1 or any(c is None for _, c in shifts):
        return False
    if not shifts:
        return True
    k, c = shifts[0]
    assert c is not None
    extent = p.sizes[p.array_dims(e.array)[k]]
    return 0 <= lo + c and hi + c <= extent


def _value_ok(e: Expr, s: For, p: Program, target: Index, lo: int, hi: int) -> bool:
    if isinstance(e, Num):
        return True
    if isinstance(e, Name):
        return e.id != s.var
    if isinstance(e, Index):
        if e.array == target.array and e.idx != target.idx:
            return False
        return _index_ok(e, s, p, lo, hi)
    if isinstance(e, Bin):
        return e.op in ("+", "-", "*", "/") and _value_ok(e.left, s, p, target, lo, hi) and \
            _value_ok(e.right, s, p, target, lo, hi)
    if isinstance(e, Neg):
        return _value_ok(e.operand, s, p, target, lo, hi)
    return False


def sliceable(s: For, p: Program) -> bool:
    """Whether ``s`` means the same as a NumPy slice statement (the module's rules)."""
    if s.step != 1 or len(s.body) != 1 or not isinstance(s.body[0], Assign):
        return False
    a = s.body[0]
    if not isinstance(a.target, Index) or not is_float_dtype(p.array_dtype(a.target.array)):
        return False
    env = dict(p.sizes)
    env.update({x.name: int(x.value) for x in p.scalars if x.kind == "int"})
    lo, hi = _value(s.start, env), _value(s.stop, env)
    if lo is None or hi is None or lo >= hi or not any(_mentions(i, s.var) for i in a.target.idx):
        return False
    return _index_ok(a.target, s, p, lo, hi) and _value_ok(a.value, s, p, a.target, lo, hi)


def slice_statement(s: For, p: Program, text: Callable[[Expr, Sub | None], str]) -> str | None:
    """``s`` as one slice statement, or None; ``text`` renders an expression, its
    subscripts through the function given (:func:`progen.render_py.expr`)."""
    if not s.sliced or not sliceable(s, p):
        return None
    a = s.body[0]
    assert isinstance(a, Assign) and isinstance(a.target, Index)
    lo, hi = text(s.start, None), text(s.stop, None)

    def sub(i: Expr) -> str:
        c = _shift(i, s.var)
        if c is None:
            return text(i, None)
        tail = "" if c == 0 else f" + {c}" if c > 0 else f" - {-c}"
        return f"{lo}{tail}:{hi}{tail}"

    return f"{text(a.target, sub)} {a.op}= {text(a.value, sub)}"


def with_slices(p: Program, d: Draw) -> Program:
    """``p`` with some of its sliceable loops marked to be written as slices."""

    def walk(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for s in body:
            if isinstance(s, For):
                s = replace(s, body=walk(s.body))
                if sliceable(s, p) and d.chance(CHANCE):
                    s = replace(s, sliced=True)
            elif isinstance(s, If):
                s = replace(s, body=walk(s.body), orelse=walk(s.orelse))
            out.append(s)
        return tuple(out)

    return replace(p, body=walk(p.body))
