"""Printing :mod:`polyopt.model.aff` expressions and formulas in isl's text syntax.

isl objects are built from text here and only here, so that every name that
reaches isl passes through one place.  islpy objects are immutable, so the
builders are memoized: the scheduler asks for the same maps many times.
"""

from __future__ import annotations

import functools

import islpy as isl

from polyopt.model.aff import (
    Aff,
    And,
    Cases,
    Cmp,
    Const,
    Divisible,
    FloorDiv,
    Formula,
    Lin,
    MinMax,
    Not,
    Or,
    cases,
    expand_cmp,
)
from polyopt.model.isl_budget import coalesce

CTX = isl.DEFAULT_CONTEXT

_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def lin(e: Lin) -> str:
    parts: list[str] = []
    for atom, c in e.terms:
        text = atom if isinstance(atom, str) else floor_text(atom)
        parts.append(f"{c}*{text}" if c != 1 else text)
    if e.const or not parts:
        parts.append(str(e.const))
    return "(" + " + ".join(parts) + ")"


def floor_text(f: FloorDiv) -> str:
    return f"floor({lin(f.num)}/{f.den})"


def formula(f: Formula) -> str:
    """isl text of a formula; min/max comparisons are expanded exactly."""
    if isinstance(f, Const):
        return "1 = 1" if f.value else "1 = 0"
    if isinstance(f, Cmp):
        if isinstance(f.lhs, MinMax) or isinstance(f.rhs, MinMax):
            return formula(expand_cmp(f))
        assert isinstance(f.lhs, Lin) and isinstance(f.rhs, Lin)
        if f.op == "!=":
            return f"({lin(f.lhs)} < {lin(f.rhs)} or {lin(f.lhs)} > {lin(f.rhs)})"
        op = "=" if f.op == "==" else f.op
        return f"{lin(f.lhs)} {op} {lin(f.rhs)}"
    if isinstance(f, And):
        return "(" + " and ".join(formula(x) for x in f.args) + ")"
    if isinstance(f, Or):
        return "(" + " or ".join(formula(x) for x in f.args) + ")"
    if isinstance(f, Not):
        return formula(negate(f.arg))
    if isinstance(f, Divisible):
        return f"(exists (e0 : {lin(f.expr)} = {f.modulus}*e0))"
    raise TypeError(f)


def negate(f: Formula) -> Formula:
    """The negation of ``f``, pushed down to comparisons."""
    if isinstance(f, Const):
        return Const(not f.value)
    if isinstance(f, Cmp):
        return Cmp(_NEGATE[f.op], f.lhs, f.rhs)
    if isinstance(f, Cases):  # the same partition, each body negated
        return cases([(g, negate(b)) for g, b in f.parts])
    if isinstance(f, And):
        return Or(tuple(negate(x) for x in f.args))
    if isinstance(f, Or):
        return And(tuple(negate(x) for x in f.args))
    if isinstance(f, Not):
        return f.arg
    if isinstance(f, Divisible):
        # not divisible: the remainder is one of 1 .. m-1
        return Or(
            tuple(Divisible(f.expr - Lin.constant(r), f.modulus) for r in range(1, f.modulus))
        )
    raise TypeError(f)


def params_prefix(params: tuple[str, ...]) -> str:
    return "[" + ", ".join(params) + "] -> " if params else ""


@functools.lru_cache(maxsize=8192)
def make_set(params: tuple[str, ...], tuple_name: str, dims: tuple[str, ...], f: Formula) -> isl.Set:
    text = f"{params_prefix(params)}{{ {tuple_name}[{', '.join(dims)}] : {formula(f)} }}"
    # Coalesced: min/max bounds and guards read as one disjunct per case (`max(0, i - 1)
    # <= k < min(m, i + 2)` as 4), which multiply in every relation built from them; the
    # dependence analysis of a few such loops ran for minutes, and isl's dataflow failed
    # outright on some ("affine expression involves some of the domain dimensions").
    return coalesce(isl.Set.read_from_str(CTX, text))


@functools.lru_cache(maxsize=1024)
def make_param_set(params: tuple[str, ...], f: Formula) -> isl.Set:
    return isl.Set.read_from_str(CTX, f"{params_prefix(params)}{{ : {formula(f)} }}")


def make_param_aff(params: tuple[str, ...], e: Lin) -> isl.PwAff:
    """``e``, over the parameters alone, as an isl function of them."""
    return isl.PwAff.read_from_str(CTX, f"{params_prefix(params)}{{ [{lin(e)}] }}")


@functools.lru_cache(maxsize=8192)
def make_map(
    params: tuple[str, ...],
    in_name: str,
    in_dims: tuple[str, ...],
    out_name: str,
    out_exprs: tuple[Aff, ...],
) -> isl.Map:
    outs = ", ".join(lin(e) if isinstance(e, Lin) else _minmax(e) for e in out_exprs)
    text = f"{params_prefix(params)}{{ {in_name}[{', '.join(in_dims)}] -> {out_name}[{outs}] }}"
    return isl.Map.read_from_str(CTX, text)


def _minmax(e: MinMax) -> str:
    name = "min" if e.is_min else "max"
    inner = ", ".join(lin(a) if isinstance(a, Lin) else _minmax(a) for a in e.args)
    return f"{name}({inner})"
