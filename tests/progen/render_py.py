"""A :class:`~progen.nodes.Program` as Python source.

``shadow=True`` renders the same function for :mod:`progen.shadow`'s error-bound run:
math calls, conversions and allocations go through the ``_S`` module, whose float values
carry a bound on the rounding error that reassociation could introduce.
"""

from __future__ import annotations

import re

from progen.nodes import (
    LIBM,
    MATH1,
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
    Num,
    Program,
    Stmt,
)
from progen.slices import Sub, slice_statement

FUNCTION = "kernel"


def expr(e: Expr, shadow: bool = False, sub: Sub | None = None) -> str:
    """``e`` as Python; ``sub`` renders subscripts (slices: :mod:`progen.slices`)."""
    r = lambda x: expr(x, shadow, sub)  # noqa: E731
    if isinstance(e, Num):
        text = repr(e.value) if e.value >= 0 else f"({e.value!r})"
        # a float constant carries no error, but what it is summed into does: a sum of
        # constants alone is reordered by a parallel reduction too (finding 015)
        return f"_S.float({text})" if shadow and isinstance(e.value, float) else text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Index):
        return f"{e.array}[{', '.join((sub or r)(i) for i in e.idx)}]"
    if isinstance(e, Bin):
        return f"({r(e.left)} {e.op} {r(e.right)})"
    if isinstance(e, Neg):
        return f"(-{r(e.operand)})"
    if isinstance(e, Call):
        args = ", ".join(r(a) for a in e.args)
        if shadow and (e.module or e.fn in ("int", "float")):
            return f"_S.{e.fn}({args})"
        prefix = f"{e.module}." if e.module else ""
        return f"{prefix}{e.fn}({args})"
    if isinstance(e, Cmp):
        return f"({r(e.left)} {e.op} {r(e.right)})"
    if isinstance(e, BoolOp):
        return "(" + f" {e.op} ".join(r(v) for v in e.values) + ")"
    if isinstance(e, Not):
        return f"(not {r(e.operand)})"
    if isinstance(e, IfExp):
        return f"({r(e.then)} if {r(e.cond)} else {r(e.other)})"
    raise TypeError(e)


def _top(e: Expr, shadow: bool, sub: Sub | None = None) -> str:
    """An expression at statement level, without its outer parentheses."""
    text = expr(e, shadow, sub)
    if isinstance(e, (Bin, Cmp, BoolOp, IfExp)) and text.startswith("(") and text.endswith(")"):
        return text[1:-1]
    return text


def _range(s: For, shadow: bool) -> str:
    start, stop = _top(s.start, shadow), _top(s.stop, shadow)
    if s.step != 1:
        return f"range({start}, {stop}, {s.step})"
    if isinstance(s.start, Num) and s.start.value == 0:
        return f"range({stop})"
    return f"range({start}, {stop})"


def stmts(body: tuple[Stmt, ...], indent: int, shadow: bool = False,
          p: Program | None = None, rounded: frozenset[str] = frozenset()) -> list[str]:
    """The statements; with the program ``p``, loops marked ``sliced`` as NumPy slice
    statements where they still mean the same (the shadow run keeps the loops).
    ``rounded``: the shadow run's locals whose assignments round to float32
    (``_S.round32``)."""
    pad = "    " * indent
    out: list[str] = []
    for s in body:
        sliced = slice_statement(s, p, lambda e, sub: _top(e, False, sub)) \
            if isinstance(s, For) and p is not None and not shadow else None
        if sliced is not None:
            out.append(f"{pad}{sliced}")
        elif isinstance(s, Assign):
            target = expr(s.target, shadow)
            if isinstance(s.target, Name) and s.target.id in rounded:
                value = Bin(s.op, s.target, s.value) if s.op else s.value
                out.append(f"{pad}{target} = _S.round32({_top(value, shadow)})")
            else:
                out.append(f"{pad}{target} {s.op}= {_top(s.value, shadow)}")
        elif isinstance(s, For):
            loop = _range(s, shadow)
            if s.parallel and not shadow:  # the shadow run is sequential Python
                loop = "p" + loop
            out.append(f"{pad}for {s.var} in {loop}:")
            out += stmts(s.body, indent + 1, shadow, p, rounded) or [f"{pad}    pass"]
        elif isinstance(s, If):
            out += _if(s, indent, shadow, "if", p, rounded)
        else:
            raise TypeError(s)
    return out


def _if(s: If, indent: int, shadow: bool, word: str, p: Program | None,
        rounded: frozenset[str] = frozenset()) -> list[str]:
    pad = "    " * indent
    out = [f"{pad}{word} {_top(s.cond, shadow)}:"]
    out += stmts(s.body, indent + 1, shadow, p, rounded) or [f"{pad}    pass"]
    if len(s.orelse) == 1 and isinstance(s.orelse[0], If):
        out += _if(s.orelse[0], indent, shadow, "elif", p, rounded)
    elif s.orelse:
        out.append(f"{pad}else:")
        out += stmts(s.orelse, indent + 1, shadow, p, rounded)
    return out


def function(p: Program, shadow: bool = False, name: str = FUNCTION,
             rounded: frozenset[str] = frozenset()) -> str:
    lines = [f"def {name}({', '.join(p.params)}):"]
    for d in p.size_defs:
        src = f"len({d.array})" if d.via_len else f"{d.array}.shape[{d.dim}]"
        lines.append(f"    {d.name} = {src}")
    for a in p.allocs:
        shape = f"({a.dims[0]},)" if len(a.dims) == 1 else f"({', '.join(a.dims)})"
        if shadow:
            lines.append(f"    {a.name} = _S.alloc({shape}, {a.dtype!r}, {a.fill!r})")
        elif a.dtype == "float64" and a.fill != "ones":
            lines.append(f"    {a.name} = np.{a.fill}({shape})")
        else:
            lines.append(f"    {a.name} = np.{a.fill}({shape}, np.{a.dtype})")
    lines += stmts(p.body, 1, shadow, p, rounded)
    if p.ret is not None:
        lines.append(f"    return {_top(p.ret, shadow)}")
    return "\n".join(lines) + "\n"


def module(p: Program) -> str:
    """A runnable module defining the kernel (what polyopt's frontends read)."""
    text = function(p)
    uses = "from polyopt import prange\n" if " in prange(" in text else ""
    helpers = ""
    if p.helpers:  # `math.sin(x)` as `_math_sin(x)`, a helper polyopt inlines
        text = _HELPED.sub(r"_\1_\2(", text)
        used = sorted(set(_HELPER_CALL.findall(text)))
        helpers = "".join(_helper(m, f) for m, f in used)
    return f"import math\n\nimport numpy as np\n{uses}\n\n{helpers}" + text


def _helper(module: str, fn: str) -> str:
    params = ", ".join("xy"[:LIBM[fn].arity]) if fn in LIBM else "x"
    return f"def _{module}_{fn}({params}):\n    return {module}.{fn}({params})\n\n\n"


#: the math functions the generator calls (progen.generate.MATH1 and LIBM)
_FUNCTIONS = "|".join(sorted({*MATH1, *LIBM}, key=len, reverse=True))
_HELPED = re.compile(rf"\b(math|np)\.({_FUNCTIONS})\(")
_HELPER_CALL = re.compile(rf"\b_(math|np)_({_FUNCTIONS})\(")
