"""Index-set splitting at a pivot: split a loop where every dependence it carries touches
one hyperplane, so that the pieces on either side carry none.

floyd-warshall's ``i`` loop carries dependences only through row ``k`` (the pivot row
is written at ``i == k`` and read by every other row).  Split at ``i == k``, the rows
before and after the pivot are independent::

    for k in range(n):                      for k in range(n):
        for i in range(n):                      for i in range(0, k):         # parallel
            for j in range(n):                      for j in range(n): S0l(k, i, j)
                S0(k, i, j)                     for i in range(k, k + 1):
                                                    for j in range(n): S0e(k, i, j)
                                                for i in range(k + 1, n):     # parallel
                                                    for j in range(n): S0g(k, i, j)

The statement becomes one statement per piece (``v < h``, ``v == h``, ``v > h``, empty
pieces dropped), each a copy with a restricted domain, and the loop one copy per piece in
that order.  Since the loop runs ``v`` upwards and ``h`` does not change while it runs,
the instances run in exactly the original order: the split is always legal, and the
dependences of the new program decide what its pieces may do.  The hyperplane must be
invariant in the loop (a function of the loops around it and of the parameters).
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.model import isl_text, names
from polyopt.model.aff import Cmp, Lin
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, LoopMark, Node, Sequence
from polyopt.model.scop import Scop, Statement, loop_label
from polyopt.transforms.split import restricted, split_tree
from polyopt.transforms.tree import (
    at,
    enclosing,
    find,
    fresh,
    normalize,
    replace_at,
    taken_ids,
    taken_labels,
)

PIECES = (("l", "<"), ("e", "=="), ("g", ">"))


def outer_iterators(tree: Node, loop_id: str, stmt: str) -> list[str]:
    """The iterators of ``stmt`` that the loops around ``loop_id`` advance (``+v``)."""
    return [v for d in enclosing(tree, loop_id) if stmt in dict(d.exprs)
            for v in [d.expr(stmt).as_name()] if v is not None]


def split_at_pivot(scop: Scop, tree: Node, loop_id: str, pivot: Lin
                   ) -> tuple[Scop, Node, list[str]]:
    """Split the loop ``loop_id`` (over a single statement) at ``v == pivot``.

    Returns the new scop, whose source order is ``tree`` with the statement's pieces run
    in its place, the split tree, and the ids of the loop's copies (one per piece).
    """
    path = find(tree, loop_id)
    sub = at(tree, path)
    assert isinstance(sub, Band)
    chain: list[LoopDim] = []
    node: Node = sub
    while isinstance(node, Band):
        chain.extend(node.dims)
        node = node.child
    if not isinstance(node, Leaf):
        raise PolyoptError(f"loop {loop_id} runs more than one statement: no pivot split")
    st = scop.statement(node.stmt)
    v = sub.dims[0].expr(st.name).as_name()
    if v is None:
        raise PolyoptError(f"loop {loop_id} does not advance one iterator of {st.name} upwards")
    allowed = set(outer_iterators(tree, loop_id, st.name)) | set(scop.params)
    if not pivot.names() <= allowed:
        raise PolyoptError(f"the pivot {pivot} of loop {loop_id} changes while the loop runs: "
                           "it may use only the loops around it and the parameters")
    pieces: list[tuple[str, Statement]] = []
    for suffix, op in PIECES:
        cond = Cmp(op, Lin.var(v), pivot)
        dom = st.domain.intersect(isl_text.make_set(scop.params, st.name, st.iterators, cond))
        if not dom.is_empty():
            name = f"{st.name}{suffix}"
            pieces.append((name, restricted(st, name, names.rename_set(dom, name))))
    if len(pieces) < 2:
        raise PolyoptError(f"loop {loop_id}: every iteration is on one side of {pivot}")
    piece_names = [n for n, _ in pieces]
    stmts = tuple(p for s in scop.statements
                  for p in ([x for _, x in pieces] if s.name == st.name else [s]))
    order = split_tree(tree, st.name, piece_names)  # every loop now runs the pieces
    new_scop = replace(scop, statements=stmts, schedule=normalize(order))
    ids, labels = taken_ids(tree), taken_labels(scop, tree)
    copies: list[Node] = []
    copy_ids: list[str] = []
    for k, name in enumerate(piece_names):
        dims: list[LoopDim] = []
        for d in chain:
            e = d.expr(st.name)
            if k == 0:
                loop, aliases, label = d.loop_id, d.aliases, d.label
            else:
                loop, aliases = fresh(f"{d.loop_id}.{name}", ids), ()
                label = fresh(f"{loop_label(scop, d)}#{name}", labels)
            dims.append(replace(d, loop_id=loop, exprs=((name, e),), mark=LoopMark(),
                                aliases=aliases, label=label))
        copy_ids.append(dims[0].loop_id)
        built: Node = Leaf(name)
        for d in reversed(dims):
            built = Band((d,), built)
        copies.append(built)
    return new_scop, normalize(replace_at(order, path, Sequence(tuple(copies)))), copy_ids
