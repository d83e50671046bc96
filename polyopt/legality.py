"""Legality of a schedule: every dependence must still run source first.

A schedule tree θ is legal for the dependences D when, for every dependence
``s -> t`` in D, θ(s) is lexicographically before θ(t).  :func:`violations`
returns the dependences a tree breaks (as data), so errors can name them in
source terms: statement, line, array, distance, loop.
"""

from __future__ import annotations

from polyopt.deps import Dependence, Dependences
from polyopt.errors import IllegalTransformationError
from polyopt.model import Scop
from polyopt.report import describe
from polyopt.schedule_tree import Node
from polyopt.timeline import Timeline


def violations(scop: Scop, deps: Dependences, tree: Node) -> list[Dependence]:
    """The memory-based dependences that ``tree`` would run sink first (or at once).

    Dependences are checked per statement pair, all of a pair's relations at once;
    only a pair that fails is examined dependence by dependence.
    """
    tl = Timeline(scop, tree)
    broken: list[Dependence] = []
    for union, group in deps.memory_by_pair.values():
        if not tl.respects(union):
            broken += [d for d in group if not tl.respects(d.relation)]
    return broken


def is_legal(scop: Scop, deps: Dependences, tree: Node) -> bool:
    """Whether ``tree`` respects every dependence (stops at the first that fails)."""
    tl = Timeline(scop, tree)
    return all(tl.respects(union) for union, _ in deps.memory_by_pair.values())


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
