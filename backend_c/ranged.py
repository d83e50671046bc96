"""A row-block loop printed as equal ranges of rows, cut at run time for the team.

A loop marked ``ranged`` (polyopt/scheduler/row_ranges.py) runs blocks of ``k``
register-tile rows ``floor(i / MR)``; its body may run any range of those rows.  isl
builds the body once, over two more parameters ``lo`` and ``hi`` (the range, in
tiles), and the loop around it is printed here::

    if (<some row runs>) {
      const int64_t first = <least tile>, count = <greatest tile> - first + 1;
      const int64_t blocks = polyopt_row_blocks(count, k, team);   // a multiple of the team
      #pragma omp parallel for schedule(dynamic, 1) if(team)
      for (int64_t b = 0; b < blocks; b += 1) {
        const int64_t lo = polyopt_row_start(first, count, blocks, b);
        const int64_t hi = polyopt_row_start(first, count, blocks, b + 1);
        <body over tiles lo <= floor(i / MR) < hi>
      }
    }

The blocks differ by at most one tile, so two threads share 2mm's 100 tiles 50/50,
where blocks of 16 tiles gave one 52 and the other 48.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyopt.model import names
from polyopt.model.aff import And, Cmp, Lin
from polyopt.model.isl_budget import coalesce
from polyopt.model.isl_text import make_map, make_param_aff, make_param_set, make_set
from polyopt.model.schedule_tree import Band, LoopMark, Node, statements


@dataclass(frozen=True)
class RangeNames:
    """The C names of the printed loop's values (fresh in the function)."""

    lo: str
    hi: str
    first: str
    count: str
    blocks: str
    block: str


@dataclass(frozen=True)
class RangedNest:
    """A nest whose outermost loop is printed in ranges (see the module docstring)."""

    body: isl.AstNode  # the nest without its row-block loop, over the parameters lo and hi
    mark: LoopMark  # the row-block loop's
    runs: isl.AstExpr | None  # where some row runs; None: wherever the nest runs at all
    first: isl.AstExpr  # the least tile row
    last: isl.AstExpr  # the greatest
    per: int  # tile rows per block at most (the row block's own size)
    names: RangeNames


@dataclass(frozen=True)
class RangedInput:
    """What isl builds the body from: the nest without its row-block loop, and the
    statements' domains and the context over the parameters and ``lo``, ``hi``."""

    inner: Node
    params: tuple[str, ...]
    domains: dict[str, isl.Set]
    context: isl.Set


Range = tuple[isl.PwAff, isl.PwAff]  # the least and greatest tile row, of the parameters


def tile_rows(nest: Band, params: tuple[str, ...], iterators: dict[str, tuple[str, ...]],
              domains: dict[str, isl.Set], rows: dict[str, Lin]) -> tuple[isl.Set, Range]:
    """The tile rows (``rows``: each statement's ``floor(i / MR)``) that some statement of
    ``nest`` runs, as a set of one dimension, and their least and greatest."""
    out: isl.Set | None = None
    for stmt in statements(nest):
        to_row = make_map(params, stmt, iterators[stmt], "R", (rows[stmt],))
        image = domains[stmt].apply(to_row)
        out = image if out is None else out.union(image)
    assert out is not None  # a band runs some statement
    out = coalesce(out)
    return out, names.dim_range(out, 0)


def ranged_input(nest: Band, params: tuple[str, ...], iterators: dict[str, tuple[str, ...]],
                 domains: dict[str, isl.Set], context: isl.Set, rows: dict[str, Lin],
                 bounds: Range, range_names: RangeNames) -> RangedInput:
    """The body's input (``rows`` and ``bounds``: :func:`tile_rows`').  The context says
    that the range lies within the rows that run, so that isl bounds the body by ``lo``
    and ``hi`` alone where they are tighter."""
    lo, hi = Lin.var(range_names.lo), Lin.var(range_names.hi)
    both = (*params, range_names.lo, range_names.hi)
    out = dict(domains)
    for stmt, row in rows.items():
        within = make_set(both, stmt, iterators[stmt], And((Cmp("<=", lo, row), Cmp("<", row, hi))))
        out[stmt] = domains[stmt].align_params(within.get_space()).intersect(within)
    ctx = make_param_set(both, Cmp("<", lo, hi))
    least, greatest = (pa.align_params(ctx.get_space()) for pa in bounds)
    inside = make_param_aff(both, lo).ge_set(least).intersect(
        make_param_aff(both, hi - Lin.constant(1)).le_set(greatest))
    ctx = ctx.intersect(inside)
    inner = nest.child if len(nest.dims) == 1 else replace(nest, dims=nest.dims[1:])
    return RangedInput(inner, both, out, context.align_params(ctx.get_space()).intersect(ctx))


def range_exprs(rows: isl.Set, bounds: Range, context: isl.Set
                ) -> tuple[isl.AstExpr | None, isl.AstExpr, isl.AstExpr]:
    """Where some row runs (None: wherever the context holds) and the least and greatest
    row there, as isl expressions."""
    runs = rows.params()
    where = isl.AstBuild.from_context(context.intersect(runs))
    guard = runs.gist(context)
    cond = None if guard.plain_is_universe() else \
        isl.AstBuild.from_context(context).expr_from_set(guard)
    return cond, where.expr_from_pw_aff(bounds[0]), where.expr_from_pw_aff(bounds[1])
