"""Loop interchange: swap two loops of one perfectly nested chain.

Before::                         After ``interchange("i", "k")``::

    for i in range(n):               for k in range(n):
        for k in range(n):               for i in range(n):
            S(i, k)                          S(i, k)

Legal when no dependence would run sink first, e.g. refused for a
Gauss-Seidel ``(t, i)`` pair whose dependence has direction ``(<, >)``.
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import require_legal
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Scop
from polyopt.transforms.tree import (
    below_chain,
    build_chain,
    chain,
    find,
    refuse_unrolled,
    replace_at,
)


def permute(scop: Scop, deps: Dependences | None, tree: Node, outer: str, order: list[str],
            what: str = "") -> Node:
    """Reorder the first ``len(order)`` loops of the chain at ``outer`` to ``order`` (ids).

    ``deps=None`` skips the legality check (callers that check themselves).
    """
    dims = chain(tree, outer)
    head = dims[: len(order)]
    top = []
    for x in order:
        match = [d for d in head if d.answers_to(x)]
        if not match:
            raise PolyoptError(
                f"loop {x} is not perfectly nested below {outer} (a statement sits between "
                "them; distribute the loop first)"
            )
        top.append(match[0])
    if len({d.loop_id for d in top}) != len(top):
        raise PolyoptError("a loop appears twice in the requested order")
    new = build_chain([*top, *dims[len(order):]], below_chain(tree, outer))
    result = replace_at(tree, find(tree, outer), new)
    if deps is not None:
        require_legal(scop, deps, result, what or f"reordering loops to ({', '.join(order)})")
    return result


def interchange(scop: Scop, deps: Dependences, tree: Node, a: str, b: str,
                names: tuple[str, str] | None = None) -> Node:
    """Swap loops ``a`` and ``b`` (ids), which must be perfectly nested."""
    shown = names or (a, b)
    refuse_unrolled(scop, tree, [a, b], "interchange")
    for outer, inner in ((a, b), (b, a)):
        dims = chain(tree, outer)
        pos = next((k for k, d in enumerate(dims) if d.answers_to(inner)), None)
        if pos is None:
            continue
        order = [d.loop_id for d in dims[: pos + 1]]
        order[0], order[pos] = order[pos], order[0]
        return permute(scop, deps, tree, dims[0].loop_id, order,
                       f"interchanging loops {shown[0]} and {shown[1]}")
    raise PolyoptError(
        f"loops {shown[0]} and {shown[1]} are not perfectly nested in one another; interchange "
        "needs a chain of loops with no statement between them (distribute first)"
    )
