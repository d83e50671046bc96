"""Index-set splitting of a statement into its full register tiles and the rest.

Before ``split_full_tiles(S, {"i": 4, "j": 8})``::

    for i in range(n):              for i in range(n):
        for j in range(m):              for j in range(m):
            S(i, j)                         S.full(i, j)   # (i, j) in a complete 4x8 tile
                                            S.rest(i, j)   # the ragged edges

Both parts run the same body; together they execute exactly the original
instances.  The full part can then be unrolled without guards.  The split is
computed by isl for any domain shape: a tile is full when every point of its
box lies in the domain.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polyopt.model import isl_text, names
from polyopt.model.aff import Cmp, Lin, floordiv
from polyopt.model.isl_budget import coalesce
from polyopt.model.schedule_tree import Leaf, LoopDim, Node, Sequence
from polyopt.model.scop import Access, Scop, Statement


def full_tile_domain(scop: Scop, st: Statement, sizes: dict[str, int]) -> tuple[isl.Set, isl.Set]:
    """(full, rest) parts of ``st``'s domain for register tiles of ``sizes``."""
    exprs = tuple(floordiv(Lin.var(v), sizes[v]) if v in sizes else Lin.var(v)
                  for v in st.iterators)
    to_tile = isl_text.make_map(scop.params, st.name, st.iterators, "T", exprs)
    d = st.domain
    image = d.apply(to_tile)
    box = image.apply(to_tile.reverse())
    bad_tiles = box.subtract(d).apply(to_tile)
    rest = d.intersect(bad_tiles.apply(to_tile.reverse()))
    return coalesce(d.subtract(rest)), coalesce(rest)


def diagonal_domain(scop: Scop, st: Statement, sizes: dict[str, int],
                    rest: isl.Set) -> tuple[isl.Set, isl.Set]:
    """(diagonal, ragged) parts of ``rest``, the points of ``st`` outside full tiles.

    Where an untiled iterator's range depends on a tiled one (trmm's ``k`` in
    ``range(i + 1, m)``), a tile of the tiled iterators alone can be full while its
    points are not: for ``sizes = {"i": 4, "j": 8}`` the full part of rows ``i0 ..
    i0 + 3`` is ``k >= i0 + 4``, the range common to the four rows.  The diagonal is
    the rest of such tiles (``i < k < i0 + 4``, a small triangle); the ragged part
    is the rest of the tiles that are not full even without ``k``."""
    tiled = tuple(v for v in st.iterators if v in sizes)
    onto = isl_text.make_map(scop.params, st.name, st.iterators, "P",
                             tuple(Lin.var(v) for v in tiled))
    to_tile = isl_text.make_map(scop.params, "P", tiled, "T",
                                tuple(floordiv(Lin.var(v), sizes[v]) for v in tiled))
    plane = st.domain.apply(onto)
    tiles = plane.apply(to_tile)
    box = tiles.apply(to_tile.reverse())
    full_tiles = tiles.subtract(box.subtract(plane).apply(to_tile))
    inside = full_tiles.apply(to_tile.reverse()).apply(onto.reverse())
    diagonal = rest.intersect(inside)
    # rest minus the diagonal, without its cuts along the untiled iterators (the full
    # tiles lie inside full tiles of the plane): 2 pieces instead of 4 for a solve, whose
    # every dependence and loop verdict costs isl by the piece
    return coalesce(diagonal), coalesce(st.domain.subtract(inside))


def split_full_tiles(scop: Scop, tree: Node, stmt: str, sizes: dict[str, int]) -> tuple[Scop, Node] | None:
    """The scop and tree with ``stmt`` split into ``<stmt>f`` (full tiles) and ``<stmt>r``;
    None when no tile is full.  The new scop's source order is the returned tree."""
    st = scop.statement(stmt)
    full, rest = full_tile_domain(scop, st, sizes)
    if full.is_empty():
        return None
    parts = [(f"{stmt}f", full)] + ([(f"{stmt}r", rest)] if not rest.is_empty() else [])
    return split_statement(scop, tree, stmt, parts)


def split_diagonal_tiles(scop: Scop, tree: Node, stmt: str, sizes: dict[str, int],
                         rows: str) -> tuple[Scop, Node] | None:
    """The scop and tree with ``stmt`` split into ``<stmt>f`` (full tiles), ``<stmt>d``
    (their diagonal, see :func:`diagonal_domain`) and ``<stmt>r`` (the ragged rest);
    None when no tile is full or there is no diagonal.  ``rows``: the iterator whose
    tiles are rows (one of ``sizes``).  Where the first tile of rows holds no full or
    diagonal point (``k in range(i)``: row 0 runs no instance), its instances are
    ``<stmt>b``, apart from the rest: they run before the tiles, which read them, while
    the last rows run after, and read the tiles.  (The first tile bounds them for every
    size; the rows before the first full tile, in general, depend on the sizes in ways
    that cost the dependence analysis seconds.)"""
    st = scop.statement(stmt)
    full, rest = full_tile_domain(scop, st, sizes)
    if full.is_empty():
        return None
    diagonal, ragged = diagonal_domain(scop, st, sizes, rest)
    if diagonal.is_empty():
        return None
    first = isl_text.make_set(scop.params, st.name, st.iterators,
                              Cmp("<", Lin.var(rows), Lin.constant(sizes[rows])))
    before = isl.Set.empty(ragged.get_space())
    if full.union(diagonal).intersect(first).is_empty():
        # the first tile of rows is not full (a solve's row 0 runs no instance): its
        # rows come before the tiles, which read them, the last rows after
        before = coalesce(st.domain.intersect(first))
        ragged = coalesce(ragged.subtract(first))
    parts = [(f"{stmt}b", before)] if not before.is_empty() else []
    parts += [(f"{stmt}f", full), (f"{stmt}d", diagonal)]
    parts += [(f"{stmt}r", ragged)] if not ragged.is_empty() else []
    return split_statement(scop, tree, stmt, parts)


def split_statement(scop: Scop, tree: Node, stmt: str,
                    parts: list[tuple[str, isl.Set]]) -> tuple[Scop, Node]:
    """``stmt`` split into statements named and limited to ``parts`` (disjoint, covering
    its domain), run in that order at its leaf."""
    new_stmts: list[Statement] = []
    for s in scop.statements:
        if s.name != stmt:
            new_stmts.append(s)
            continue
        for name, dom in parts:
            new_stmts.append(restricted(s, name, names.rename_set(dom, name)))
    new_tree = split_tree(tree, stmt, [p[0] for p in parts])
    return replace(scop, statements=tuple(new_stmts), schedule=new_tree), new_tree


def restricted(s: Statement, name: str, domain: isl.Set) -> Statement:
    """``s`` renamed ``name`` and limited to ``domain`` (a subset of its own)."""
    def acc(a: Access) -> Access:
        rel = names.rename_map_domain(a.relation, name).intersect_domain(domain)
        return replace(a, statement=name, tag=a.tag.replace(s.name, name, 1), relation=rel)

    return replace(s, name=name, domain=domain, write=acc(s.write),
                   reads=tuple(acc(r) for r in s.reads))


def split_tree(node: Node, stmt: str, parts: list[str]) -> Node:
    """``node`` with ``stmt`` replaced by ``parts`` run in sequence at its leaf."""
    if isinstance(node, Leaf):
        if node.stmt != stmt:
            return node
        leaves: list[Node] = [Leaf(p) for p in parts]
        return leaves[0] if len(leaves) == 1 else Sequence(tuple(leaves))
    if isinstance(node, Sequence):
        return Sequence(tuple(split_tree(c, stmt, parts) for c in node.children))
    dims = tuple(_split_dim(d, stmt, parts) for d in node.dims)
    return replace(node, dims=dims, child=split_tree(node.child, stmt, parts))


def _split_dim(d: LoopDim, stmt: str, parts: list[str]) -> LoopDim:
    exprs: list[tuple[str, Lin]] = []
    for s, e in d.exprs:
        exprs += [(p, e) for p in parts] if s == stmt else [(s, e)]
    return replace(d, exprs=tuple(exprs))

