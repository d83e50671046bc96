"""Finding and replacing nodes of a schedule tree by loop id (names, not positions)."""

from __future__ import annotations

from dataclasses import replace

from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, loops
from polyopt.model.scop import Scop, loop_label

Path = tuple[int, ...]  # child indices from the root


class LoopNotFound(PolyoptError, KeyError):
    """No loop of that name in the schedule."""


def find(tree: Node, loop_id: str) -> Path:
    """Path to the (single-loop) band of ``loop_id``."""
    path = _find(tree, loop_id, ())
    if path is None:
        raise LoopNotFound(f"no loop {loop_id!r} in the schedule")
    return path


def _find(node: Node, loop_id: str, path: Path) -> Path | None:
    if isinstance(node, Band):
        if any(d.answers_to(loop_id) for d in node.dims):
            return path
        return _find(node.child, loop_id, (*path, 0))
    if isinstance(node, Sequence):
        for k, c in enumerate(node.children):
            hit = _find(c, loop_id, (*path, k))
            if hit is not None:
                return hit
    return None


def at(tree: Node, path: Path) -> Node:
    node = tree
    for k in path:
        node = node.child if isinstance(node, Band) else node.children[k]  # type: ignore[union-attr]
    return node


def replace_at(tree: Node, path: Path, new: Node) -> Node:
    if not path:
        return new
    k, rest = path[0], path[1:]
    if isinstance(tree, Band):
        return replace(tree, child=replace_at(tree.child, rest, new))
    assert isinstance(tree, Sequence)
    children = list(tree.children)
    children[k] = replace_at(children[k], rest, new)
    return Sequence(tuple(children))


def dim_of(tree: Node, loop_id: str) -> LoopDim:
    band = at(tree, find(tree, loop_id))
    assert isinstance(band, Band)
    return next(d for d in band.dims if d.answers_to(loop_id))


def normalize(node: Node, split_bands: bool = True) -> Node:
    """One loop per band (unless not ``split_bands``: a band that register tiling built
    as a unit stays whole), no one-child sequences, nested sequences flattened."""
    if isinstance(node, Band):
        child = normalize(node.child, split_bands)
        if not split_bands:
            return replace(node, child=child)
        for d in reversed(node.dims):
            child = Band((d,), child)
        return child
    if isinstance(node, Sequence):
        kids: list[Node] = []
        for c in node.children:
            c = normalize(c, split_bands)
            kids += list(c.children) if isinstance(c, Sequence) else [c]
        return kids[0] if len(kids) == 1 else Sequence(tuple(kids))
    return node


def chain(tree: Node, outer: str) -> list[LoopDim]:
    """The loops perfectly nested from ``outer`` down (no sequence in between)."""
    node = at(tree, find(tree, outer))
    out: list[LoopDim] = []
    while isinstance(node, Band):
        out.extend(node.dims)
        node = node.child
    return out


def below_chain(tree: Node, outer: str) -> Node:
    """The node under the chain at ``outer`` (:func:`chain`'s loops, whose bands may
    hold several loops each, as packing's copy loops do)."""
    node = at(tree, find(tree, outer))
    while isinstance(node, Band):
        node = node.child
    return node


def refuse_unrolled(scop: Scop, tree: Node, loop_ids: list[str], what: str) -> None:
    """Misuse: ``what`` names a loop that unroll-and-jam fully unrolls.  Such a loop must
    stay below the loop it was strip-mined from (its trip count is bounded only there),
    so it is not reordered, tiled, skewed or unrolled again."""
    for x in loop_ids:
        d = dim_of(tree, x)
        if d.mark.unroll:
            raise PolyoptError(f"loop {loop_label(scop, d)} is fully unrolled by unroll-and-jam; "
                               f"{what} cannot move or transform it")


def taken_ids(tree: Node) -> set[str]:
    """Every loop id and alias in ``tree`` (what a new loop's id must avoid)."""
    out: set[str] = set()
    for d, _ in loops(tree):
        out |= {d.loop_id, *d.aliases}
    return out


def taken_labels(scop: Scop, tree: Node) -> set[str]:
    """Every name users may give a loop of ``tree`` (labels, ``i@line``), so that a
    new loop's label can avoid them."""
    out: set[str] = set()
    for d, _ in loops(tree):
        out.add(loop_label(scop, d))
        out |= {scop.loop_label(a) for a in (d.loop_id, *d.aliases) if a in scop.loops}
    return out


def fresh(base: str, taken: set[str]) -> str:
    """``base``, or ``base2``, ``base3``... : the first one not in ``taken`` (which it joins)."""
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name)
    return name


def build_chain(dims: list[LoopDim], child: Node) -> Node:
    for d in reversed(dims):
        child = Band((d,), child)
    return child


def sequences(node: Node) -> list[Sequence]:
    """Every sequence node of ``node``, outermost first."""
    out: list[Sequence] = []
    if isinstance(node, Sequence):
        out.append(node)
        for c in node.children:
            out += sequences(c)
    elif isinstance(node, Band):
        out += sequences(node.child)
    return out


def enclosing(tree: Node, loop_id: str) -> list[LoopDim]:
    """The loops around ``loop_id``, outermost first."""
    for dim, path in loops(tree):
        if dim.loop_id == loop_id:
            above = [d for node in path if isinstance(node, Band) for d in node.dims]
            return above[:above.index(dim)]
    raise LoopNotFound(f"no loop {loop_id!r} in the schedule")
