"""Quasi-affine expressions and Presburger formulas, independent of isl.

Frontends build these from source (loop bounds, subscripts, ``if`` conditions);
:mod:`polyopt.model.isl_text` prints them for isl and the C backend prints them as C.

``min``/``max`` are kept as nodes and eliminated only when a comparison is
printed (:func:`pieces` splits an expression into guarded linear pieces), so
``i < min(n, j + 2)`` becomes ``i < n and i < j + 2`` exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product

Atom = "str | FloorDiv"


@dataclass(frozen=True)
class FloorDiv:
    """``floor(num / den)`` with a positive constant ``den`` and a linear ``num``."""

    num: Lin
    den: int


@dataclass(frozen=True)
class Lin:
    """``sum(coeff * atom) + const`` where an atom is a name or a :class:`FloorDiv`."""

    terms: tuple[tuple[str | FloorDiv, int], ...] = ()
    const: int = 0

    @staticmethod
    def var(name: str) -> Lin:
        return Lin(((name, 1),), 0)

    @staticmethod
    def constant(value: int) -> Lin:
        return Lin((), value)

    def is_constant(self) -> bool:
        return not self.terms

    def names(self) -> set[str]:
        out: set[str] = set()
        for atom, _ in self.terms:
            if isinstance(atom, str):
                out.add(atom)
            else:
                out |= atom.num.names()
        return out

    def as_name(self) -> str | None:
        """The name when this is exactly one name (coefficient 1, no constant)."""
        if self.const == 0 and len(self.terms) == 1:
            atom, c = self.terms[0]
            if isinstance(atom, str) and c == 1:
                return atom
        return None

    def coeff(self, name: str) -> int:
        return sum(c for a, c in self.terms if a == name)

    def __add__(self, other: Lin) -> Lin:
        acc: dict[str | FloorDiv, int] = dict(self.terms)
        for atom, c in other.terms:
            acc[atom] = acc.get(atom, 0) + c
        return Lin(tuple((a, c) for a, c in acc.items() if c != 0), self.const + other.const)

    def scale(self, k: int) -> Lin:
        if k == 0:
            return Lin()
        return Lin(tuple((a, c * k) for a, c in self.terms), self.const * k)

    def __neg__(self) -> Lin:
        return self.scale(-1)

    def __sub__(self, other: Lin) -> Lin:
        return self + (-other)

    def substitute(self, env: dict[str, Lin]) -> Lin:
        out = Lin.constant(self.const)
        for atom, c in self.terms:
            if isinstance(atom, str):
                out = out + (env[atom] if atom in env else Lin.var(atom)).scale(c)
            else:
                out = out + floordiv(atom.num.substitute(env), atom.den).scale(c)
        return out


def python_text(e: Lin) -> str:
    """``e`` as Python source, for messages and reports: ``i - k + 1``, ``(i + 1) // 2``."""
    parts: list[tuple[int, str]] = []
    for atom, c in e.terms:
        if isinstance(atom, str):
            text = atom
        else:
            num = python_text(atom.num)
            simple = len(atom.num.terms) == 1 and atom.num.terms[0][1] == 1 and not atom.num.const
            text = f"{num if simple else f'({num})'} // {atom.den}"
            if c != 1:  # -(i // 2) is not -i // 2
                text = f"({text})"
        parts.append((c, text if abs(c) == 1 else f"{abs(c)} * {text}"))
    if e.const or not parts:
        parts.append((e.const, str(abs(e.const))))
    out = ("-" if parts[0][0] < 0 else "") + parts[0][1]
    for c, text in parts[1:]:
        out += f" {'-' if c < 0 else '+'} {text}"
    return out


def floordiv(num: Lin, den: int) -> Lin:
    """``floor(num / den)`` for a positive constant ``den``, simplified when exact."""
    if den <= 0:
        raise ValueError("floordiv needs a positive constant divisor")
    if den == 1:
        return num
    if all(c % den == 0 for _, c in num.terms):  # floor((den * x + c) / den) = x + c // den
        return Lin(tuple((a, c // den) for a, c in num.terms), num.const // den)
    if num.is_constant():
        return Lin.constant(num.const // den)
    g = math.gcd(den, *(c for _, c in num.terms))
    if g > 1:  # floor((g*x + g*a + r) / (g*q)) = floor((x + a) / q) for 0 <= r < g
        inner = Lin(tuple((a, c // g) for a, c in num.terms), num.const // g)
        return floordiv(inner, den // g)
    return Lin(((FloorDiv(num, den), 1),), 0)


def block_size(outer: Lin, inner: Lin) -> int | None:
    """``S`` when ``outer`` is ``floor(inner / S)`` (1 when it is ``inner`` itself): a
    loop over ``outer`` runs over blocks of ``S`` consecutive values of ``inner``."""
    if outer == inner:
        return 1
    if outer.const or len(outer.terms) != 1:
        return None
    term, coeff = outer.terms[0]
    if coeff != 1 or not isinstance(term, FloorDiv) or term.num != inner:
        return None
    return term.den


@dataclass(frozen=True)
class MinMax:
    """``min(args)`` or ``max(args)`` of affine expressions."""

    is_min: bool
    args: tuple[Aff, ...]


Aff = Lin | MinMax


def add(a: Aff, b: Aff) -> Aff:
    if isinstance(a, MinMax):
        return MinMax(a.is_min, tuple(add(x, b) for x in a.args))
    if isinstance(b, MinMax):
        return MinMax(b.is_min, tuple(add(a, x) for x in b.args))
    return a + b


def scale(a: Aff, k: int) -> Aff:
    if isinstance(a, MinMax):
        return MinMax(a.is_min == (k >= 0), tuple(scale(x, k) for x in a.args))
    return a.scale(k)


def fdiv(a: Aff, den: int) -> Aff:
    if isinstance(a, MinMax):
        return MinMax(a.is_min, tuple(fdiv(x, den) for x in a.args))
    return floordiv(a, den)


def pieces(a: Aff) -> Iterator[tuple[tuple[Formula, ...], Lin]]:
    """Split ``a`` into (guard, linear value) pairs that together cover every case."""
    if isinstance(a, Lin):
        yield (), a
        return
    for k, arg in enumerate(a.args):
        for guard, lin in pieces(arg):
            conds = list(guard)
            for m, other in enumerate(a.args):
                if m == k:
                    continue
                # min picks the first smallest: arg <= earlier ones strictly, later ones weakly.
                op = ("<" if m < k else "<=") if a.is_min else (">" if m < k else ">=")
                conds.append(Cmp(op, lin, other))
            yield tuple(conds), lin


def aff_names(a: Aff) -> set[str]:
    if isinstance(a, Lin):
        return a.names()
    out: set[str] = set()
    for x in a.args:
        out |= aff_names(x)
    return out


# --- formulas ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cmp:
    """``lhs op rhs`` with op one of ``< <= > >= == !=``."""

    op: str
    lhs: Aff
    rhs: Aff


@dataclass(frozen=True)
class And:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Formula, ...]


@dataclass(frozen=True)
class Cases(Or):
    """A disjunction whose cases partition the space: ``parts`` are (guards, body) pairs,
    every point satisfies the guards of exactly one, and ``args`` are their conjunctions.
    Its negation is the same cases, each body negated; the generic one, a conjunction of
    ``not guards or not body``, grows as 2**cases when isl expands it into disjuncts (a C
    test of three truncating divisions: 8 cases of four constraints, minutes of isl)."""

    parts: tuple[tuple[tuple[Formula, ...], Formula], ...] = ()


def cases(parts: Sequence[tuple[Sequence[Formula], Formula]]) -> Formula:
    """The formula that holds ``body`` where ``guards`` hold, for ``parts`` whose guards
    partition the space (see :class:`Cases`)."""
    kept = tuple((tuple(g), b) for g, b in parts)
    if len(kept) == 1:
        return conj(*kept[0][0], kept[0][1])
    return Cases(tuple(conj(*g, b) for g, b in kept), kept)


@dataclass(frozen=True)
class Not:
    arg: Formula


@dataclass(frozen=True)
class Const:
    value: bool


@dataclass(frozen=True)
class Divisible:
    """``expr`` is a multiple of ``modulus`` (from strided loops and ``%`` tests)."""

    expr: Lin
    modulus: int


Formula = Cmp | And | Or | Not | Const | Divisible

TRUE = Const(True)


def conj(*fs: Formula) -> Formula:
    parts = tuple(f for f in fs if f != TRUE)
    if not parts:
        return TRUE
    return parts[0] if len(parts) == 1 else And(parts)


def formula_names(f: Formula) -> set[str]:
    if isinstance(f, Cmp):
        return aff_names(f.lhs) | aff_names(f.rhs)
    if isinstance(f, (And, Or)):
        out: set[str] = set()
        for x in f.args:
            out |= formula_names(x)
        return out
    if isinstance(f, Not):
        return formula_names(f.arg)
    if isinstance(f, Divisible):
        return f.expr.names()
    return set()


def expand_cmp(c: Cmp) -> Formula:
    """Rewrite a comparison of min/max expressions as a formula over linear ones."""
    return cases([((*ga, *gb), Cmp(c.op, la, lb))
                  for (ga, la), (gb, lb) in product(pieces(c.lhs), pieces(c.rhs))])
