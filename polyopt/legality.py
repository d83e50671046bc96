"""Legality of a schedule: every dependence must still run source first.

A schedule tree θ is legal for the dependences D when, for every dependence
``s -> t`` in D, θ(s) is lexicographically before θ(t).  :func:`violations`
returns the dependences a tree breaks (as data), so errors can name them in
source terms: statement, line, array, distance, loop.
"""

from __future__ import annotations

import islpy as isl

from polyopt.deps import Dependence, Dependences
from polyopt.errors import IllegalTransformationError
from polyopt.model import Scop
from polyopt.report import describe
from polyopt.schedule_tree import Node
from polyopt.timeline import Timeline


def violations(scop: Scop, deps: Dependences, tree: Node) -> list[Dependence]:
    """The memory-based dependences that ``tree`` would run sink first (or at once)."""
    tl = Timeline(scop, tree)
    before = tl.before
    broken: list[Dependence] = []
    for d in deps.memory:
        if not isl.UnionMap.from_map(d.relation).is_subset(before):
            broken.append(d)
    return broken


def require_legal(scop: Scop, deps: Dependences, tree: Node, what: str) -> None:
    """Raise :class:`IllegalTransformationError` naming the first broken dependence."""
    broken = violations(scop, deps, tree)
    if broken:
        raise illegal(scop, what, broken)


def illegal(scop: Scop, what: str, broken: list[Dependence]) -> IllegalTransformationError:
    lines = [f"{what} is illegal: it would reverse the {describe(scop, broken[0])}"]
    if len(broken) > 1:
        lines.append(f"({len(broken) - 1} more dependence(s) would be broken)")
    return IllegalTransformationError("\n".join(lines), tuple(broken))
