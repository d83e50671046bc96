"""Row-block loops that the threads may share in equal ranges of register-tile rows.

A register-tiled matmul runs its rows in blocks of ``mc`` (scheduler/blocking.py), and
the threads take whole blocks.  When the rows are not a multiple of ``threads * mc``
one thread gets a block more: 2mm's 800 rows are 100 tiles of 8, in 7 blocks of 16
tiles, so one of two threads runs 52 tiles and the other 48.  A loop marked ``ranged``
is printed with blocks cut at run time instead (backend_c/ranged.py)::

    for (b = 0; b < 7; b++)                    nb = threads * ceil(tiles / (16 * threads))
      rows [128 b, 128 b + 128)       ->       for (b = 0; b < nb; b++)
                                                 rows of tiles [tiles * b / nb, tiles * (b + 1) / nb)

Cutting the rows anywhere between tiles reorders instances of different tiles, so it
is legal only where no dependence of the statements under the loop joins two
different tiles (``floor(i / MR)`` differs); the row blocks themselves being parallel
is not enough.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polyopt.analysis.dependences import Dependences
from polyopt.model.aff import Lin, floordiv
from polyopt.model.isl_text import make_map
from polyopt.model.schedule_tree import (
    Band,
    Node,
    Sequence,
    loops,
    row_exprs,
    statements,
)
from polyopt.model.scop import Scop


def mark_ranged(scop: Scop, deps: Dependences, tree: Node,
                units: dict[str, tuple[str, int]]) -> Node:
    """``tree`` with the outermost loop of each top-level nest marked ``ranged`` where it
    is a row-block loop of register-tiled statements (``units``: statement -> its row
    iterator and the rows of its register tile) that may be cut between any two tiles."""
    tops = tree.children if isinstance(tree, Sequence) else (tree,)
    out = [_marked(scop, deps, top, units) for top in tops]
    return Sequence(tuple(out)) if isinstance(tree, Sequence) else out[0]


def _marked(scop: Scop, deps: Dependences, top: Node,
            units: dict[str, tuple[str, int]]) -> Node:
    if not isinstance(top, Band):
        return top
    under = statements(top)
    tile_rows = {units[s][1] for s in under if s in units}
    if len(tile_rows) != 1:
        return top
    unit = tile_rows.pop()
    d = top.dims[0]
    rows = row_exprs(d, unit)
    if rows is None or not _whole_tiles(top, rows, units) or \
            not _rows_independent(scop, deps, set(under), rows):
        return top
    return replace(top, dims=(d.with_mark(replace(d.mark, ranged=unit)), *top.dims[1:]))


def _whole_tiles(top: Band, rows: dict[str, Lin], units: dict[str, tuple[str, int]]) -> bool:
    """Cutting between rows of tiles leaves every unrolled tile whole: the printer writes
    out a tile's copies unguarded.  The register-tiled statements' blocks are of their
    tile's own row, and no other statement is unrolled."""
    for stmt, (row, unit) in units.items():
        if stmt in rows and rows[stmt] != floordiv(Lin.var(row), unit):
            return False
    return not any(d.mark.unroll and any(s not in units for s, _ in d.exprs)
                   for d, _ in loops(top))


def _rows_independent(scop: Scop, deps: Dependences, under: set[str],
                      rows: dict[str, Lin]) -> bool:
    """No dependence between two of ``under``'s instances joins different rows."""
    params = tuple(scop.params)
    for dep in deps.memory:
        src, snk = dep.source.statement, dep.sink.statement
        if src not in under or snk not in under:
            continue
        to_row = {s: make_map(params, s, scop.statement(s).iterators, "R", (rows[s],))
                  for s in (src, snk)}
        between = dep.relation.apply_domain(to_row[src]).apply_range(to_row[snk])
        same = isl.Map.identity(between.get_space())
        if not between.is_subset(same):
            return False
    return True
