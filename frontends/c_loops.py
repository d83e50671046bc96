"""C ``for`` headers: the iterator, its start, a constant step, and the bound.

A loop runs over ``{ i : i >= start and cond(i) }`` (``i <= start`` for a
decreasing loop, plus ``i = start mod step`` when ``|step| > 1``) only when every
comparison of ``cond`` stops the loop as ``i`` moves in its direction: an upper
bound for an increasing loop, a lower bound for a decreasing one.  Anything
else (``i != n``, a lower bound on an increasing loop...) is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from polyopt.frontends.c_affine import AffineConverter, describe, divisions
from polyopt.frontends.c_types import CType, TypeTable
from polyopt.frontends.refusal import NotAffine
from pycparser import c_ast

from polyopt.model.aff import Aff, Cmp, Formula, Lin, aff_names, conj


def loop_init(st: c_ast.For, affine: AffineConverter, types: TypeTable,
              ctype_of: Callable[[str], CType | None]) -> tuple[str, Aff]:
    """The iterator and its start: ``i = start`` or ``int i = start``."""
    init = st.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init:
        d = init.decls[0]
        t = types.of(d.type)
        if not _signed_int(t):
            raise NotAffine(d, f"loop iterator `{d.name}`", _not_signed(t))
        return d.name, affine.aff(d.init)
    if isinstance(init, c_ast.Assignment) and init.op == "=" and \
            isinstance(init.lvalue, c_ast.ID):
        name = init.lvalue.name
        declared = ctype_of(name)
        if declared is not None and not _signed_int(declared):
            raise NotAffine(init.lvalue, f"loop iterator `{name}`", _not_signed(declared))
        return name, affine.aff(init.rvalue)
    raise NotAffine(init if init is not None else st, "loop initialization",
                    "must assign the iterator (`i = start` or `int i = start`)")

def _not_signed(t: CType) -> str:
    if t.dtype is not None and t.dtype.is_unsigned and not t.rank:  # size_t, unsigned
        return (f"must be an int or long variable, not `{t.base}` (polyopt's bounds are "
                "signed; an unsigned `i - 1` wraps): declare it `long`")
    return "must be an int or long variable"


def _signed_int(t: CType) -> bool:
    """A signed integer variable (an unsigned iterator's ``i - 1`` would wrap)."""
    return t.dtype is not None and t.dtype.is_int and not t.dtype.is_unsigned and not t.rank


def loop_step(st: c_ast.For, var: str, affine: AffineConverter) -> int:
    """The constant step: ``i++``, ``i--``, ``i += c``, ``i -= c``, ``i = i + c``..."""
    nxt = st.next
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and \
            nxt.expr.name == var and nxt.op in ("++", "--", "p++", "p--"):
        return 1 if "+" in nxt.op else -1
    if isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and \
            nxt.lvalue.name == var:
        step_node: c_ast.Node | None = None
        sign = 1
        if nxt.op in ("+=", "-="):
            step_node, sign = nxt.rvalue, (1 if nxt.op == "+=" else -1)
        elif nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) and \
                nxt.rvalue.op in ("+", "-"):
            r = nxt.rvalue
            if isinstance(r.left, c_ast.ID) and r.left.name == var:
                step_node, sign = r.right, (1 if r.op == "+" else -1)
            elif r.op == "+" and isinstance(r.right, c_ast.ID) and r.right.name == var:
                step_node = r.left
        if step_node is not None:
            try:
                s = affine.aff(step_node)
            except NotAffine:
                s = None
            if isinstance(s, Lin) and s.is_constant() and s.const != 0:
                return sign * s.const
            raise NotAffine(step_node, "loop step", "must be a nonzero integer constant")
    raise NotAffine(nxt if nxt is not None else st, "loop increment",
                    f"must be `{var}++`, `{var}--`, `{var} += c` or `{var} -= c` with a "
                    "constant c")

def loop_bound(st: c_ast.For, var: str, step: int, affine: AffineConverter) -> Formula:
    """The condition, checked to bound ``var`` in the loop's direction (so the loop's
    iterations are exactly the points that satisfy it)."""
    if st.cond is None:
        raise NotAffine(st, "loop without a condition", "is not supported")
    parts: list[c_ast.Node] = []
    _conjuncts(st.cond, parts)
    out: list[Formula] = []
    for p in parts:
        for d in divisions(p):  # a split by the dividend's sign is no bound
            raise NotAffine(d, describe(d), "integer division and remainder are not supported "
                            "in loop bounds (C truncates toward zero, which is not affine)")
        f = affine.formula(p)
        if not isinstance(f, Cmp) or f.op not in ("<", "<=", ">", ">="):
            raise NotAffine(p, "loop condition", f"must compare `{var}` with < <= > >= "
                            "(conditions may be joined with &&)")
        if not _bounds_in_direction(f, var, step):
            which = "an upper" if step > 0 else "a lower"
            raise NotAffine(p, "loop condition", f"must be {which} bound on `{var}` for a "
                            f"loop that {'increases' if step > 0 else 'decreases'} it")
        out.append(f)
    return conj(*out)


def _conjuncts(node: c_ast.Node, out: list[c_ast.Node]) -> None:
    if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
        _conjuncts(node.left, out)
        _conjuncts(node.right, out)
    else:
        out.append(node)


def _bounds_in_direction(f: Cmp, var: str, step: int) -> bool:
    """``f`` becomes false as ``var`` moves in the loop's direction (so it is a bound)."""
    lhs_has = var in aff_names(f.lhs)
    rhs_has = var in aff_names(f.rhs)
    if not lhs_has and not rhs_has:
        return False
    # var's coefficient in lhs - rhs: i < n - 1 - i is 2i < n - 1
    sides = [(x, sign) for x, has, sign in ((f.lhs, lhs_has, 1), (f.rhs, rhs_has, -1)) if has]
    if not all(isinstance(x, Lin) for x, _ in sides):
        return False
    c = sum(sign * x.coeff(var) for x, sign in sides if isinstance(x, Lin))
    if c == 0:
        return False
    upper = (f.op in ("<", "<=") and c > 0) or (f.op in (">", ">=") and c < 0)
    return upper if step > 0 else not upper
