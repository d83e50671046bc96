"""Loop nests of a schedule tree as the automatic scheduler's phases see them.

A *chain* is a maximal run of perfectly nested loops: in ::

    for i:                      # chain i, j
        for j:
            S0
    for k:                      # chain k
        S1
        for l:                  # chain l
            S2

the chains start at ``i``, ``k`` and ``l``.  The phases reorder, tile and fuse
chains, and ask which loops run around a statement and which of its iterators a
loop advances.
"""

from __future__ import annotations

from polyopt.model.schedule_tree import Band, Leaf, LoopDim, Node, Sequence, loops
from polyopt.transforms.tree import at, find


def chains(tree: Node) -> list[str]:
    """The outermost loop of every maximal perfectly nested chain."""
    out: list[str] = []

    def walk(node: Node, parent_is_band: bool) -> None:
        if isinstance(node, Band):
            if not parent_is_band:
                out.append(node.dims[0].loop_id)
            walk(node.child, True)
        elif isinstance(node, Sequence):
            for c in node.children:
                walk(c, False)

    walk(tree, False)
    return out


def loops_around(tree: Node, stmt: str) -> list[LoopDim]:
    """The loops around ``stmt`` in ``tree``, outermost first."""
    return _loops_around(tree, stmt, []) or []


def _loops_around(node: Node, stmt: str, above: list[LoopDim]) -> list[LoopDim] | None:
    if isinstance(node, Leaf):
        return above if node.stmt == stmt else None
    if isinstance(node, Band):
        return _loops_around(node.child, stmt, [*above, *node.dims])
    for c in node.children:
        hit = _loops_around(c, stmt, above)
        if hit is not None:
            return hit
    return None


def iterator_of(dim: LoopDim, stmt: str) -> str | None:
    """The statement iterator a loop advances, when its schedule is ``±v``."""
    e = dim.expr(stmt)
    return e.as_name() or (-e).as_name()


def band_at(tree: Node, loop_id: str) -> Band:
    """The band of loop ``loop_id``."""
    node = at(tree, find(tree, loop_id))
    assert isinstance(node, Band)
    return node


def depth(node: Node) -> int:
    """How many loops deep the deepest statement of ``node`` is nested."""
    return max((len([n for n in path if isinstance(n, Band)]) for _, path in loops(node)),
               default=0)
