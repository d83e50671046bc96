"""A schedule tree seen as time: which dependences a loop carries, and distances.

A :class:`Timeline` memoizes the isl maps it needs; :func:`timeline` shares one per
(scop, tree) between the analyses that ask about the same tree (the scheduler checks
a candidate's legality, then asks whether its loops run in parallel).
"""

from __future__ import annotations

from functools import cached_property, partial

import islpy as isl

from polyopt.analysis.identity_memo import IdentityMemo
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.schedule_tree import Node, Position, flat_vectors, loop_positions
from polyopt.model.scop import Scop

# Timelines kept for reuse: enough for the candidates one scheduling phase compares
_timelines: IdentityMemo[Timeline] = IdentityMemo(128)
# a statement's map to its padded time vector, per (scop, statement, vector): a
# candidate tree changes some statements' vectors and keeps the others'
_statement_maps: IdentityMemo[isl.Map] = IdentityMemo(2048)
# Timeline.respects per (relation, source's and sink's maps): a legality check of a
# candidate repeats the answers about the statements it leaves in place
_respected: IdentityMemo[bool] = IdentityMemo(4096)


def timeline(scop: Scop, tree: Node) -> Timeline:
    """The timeline of ``tree`` over ``scop``, shared with every caller that asks about
    the same two objects (both frozen, so it never goes stale)."""
    return _timelines.get((scop, tree), lambda: Timeline(scop, tree))


class Timeline:
    """The statement instances of ``scop`` in the order ``tree`` runs them."""

    def __init__(self, scop: Scop, tree: Node) -> None:
        self.scop = scop
        self.tree = tree
        self._same_prefixes: dict[tuple[str, bool], isl.UnionMap] = {}

    @cached_property
    def vectors(self) -> dict[str, list[Lin]]:
        return flat_vectors(self.tree)

    @cached_property
    def positions(self) -> dict[str, Position]:
        return loop_positions(self.tree)

    @cached_property
    def width(self) -> int:
        return max((len(v) for v in self.vectors.values()), default=0)

    def _stmt_map(self, stmt: str, exprs: tuple[Lin, ...]) -> isl.Map:
        s = self.scop.statement(stmt)
        return isl_text.make_map(self.scop.params, stmt, s.iterators, "", exprs).intersect_domain(s.domain)

    @cached_property
    def schedule(self) -> isl.UnionMap:
        """Statement instances to padded time vectors."""
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for m in self._padded.values():
            out = out.union(isl.UnionMap.from_map(m))
        return out

    @cached_property
    def _padded(self) -> dict[str, isl.Map]:
        """Each statement's map to its time vector, padded with zeros to ``width``."""
        out = {}
        for stmt, vec in self.vectors.items():
            padded = tuple(vec) + (Lin.constant(0),) * (self.width - len(vec))
            out[stmt] = _statement_maps.get(
                (self.scop,), partial(self._stmt_map, stmt, padded), (stmt, padded))
        return out

    @cached_property
    def _lex_lt(self) -> isl.Map:
        dims = ", ".join(f"t{k}" for k in range(self.width))
        space = isl.Set.read_from_str(
            isl.DEFAULT_CONTEXT,
            f"{isl_text.params_prefix(self.scop.params)}{{ [{dims}] }}").get_space()
        return isl.Map.lex_lt(space)

    def respects(self, relation: isl.Map) -> bool:
        """Whether every pair of ``relation`` (source instance -> sink instance) runs
        source strictly first in this schedule."""
        src = names.in_tuple_name(relation)
        dst = names.out_tuple_name(relation)
        at_src, at_dst = self._padded[src], self._padded[dst]
        return _respected.get((relation, at_src, at_dst), lambda: relation.apply_domain(
            at_src).apply_range(at_dst).is_subset(self._lex_lt))

    @cached_property
    def before(self) -> isl.UnionMap:
        """Instance pairs (a, b) where a runs strictly before b."""
        return self.schedule.lex_lt_union_map(self.schedule)

    def _prefix(self, stmts: tuple[str, ...], length: int) -> isl.UnionMap:
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for stmt in stmts:
            out = out.union(isl.UnionMap.from_map(self._stmt_map(stmt, tuple(self.vectors[stmt][:length]))))
        return out

    def prefix(self, loop_id: str, inclusive: bool) -> isl.UnionMap:
        """Instances inside the loop to their time vector above it (and at it when
        ``inclusive``): which execution of the loop, and which iteration, they belong to."""
        pos = self.positions[loop_id]
        return self._prefix(pos.statements, pos.depth + (1 if inclusive else 0))

    def same_prefix(self, loop_id: str, inclusive: bool) -> isl.UnionMap:
        """Pairs of instances inside the loop that agree on every schedule dimension
        above it (and on the loop itself when ``inclusive``)."""
        key = (loop_id, inclusive)
        found = self._same_prefixes.get(key)
        if found is None:
            p = self.prefix(loop_id, inclusive)
            found = self._same_prefixes[key] = p.apply_range(p.reverse())
        return found

    def carries(self, relation: isl.UnionMap | isl.Map, loop_id: str) -> isl.UnionMap:
        """The part of a dependence relation that ``loop_id`` carries."""
        rel = relation if isinstance(relation, isl.UnionMap) else isl.UnionMap.from_map(relation)
        outer = rel.intersect(self.same_prefix(loop_id, False))
        if outer.is_empty():
            return outer
        return outer.subtract(self.same_prefix(loop_id, True))

    def loop_exprs(self, loop_id: str, stmt: str) -> Lin:
        return self.vectors[stmt][self.positions[loop_id].depth]

    def distance(self, relation: isl.Map, loop_ids: list[str]) -> isl.Set:
        """Set of (sink - source) schedule-value vectors over the given common loops."""
        src = names.in_tuple_name(relation)
        dst = names.out_tuple_name(relation)
        ms = self._stmt_map(src, tuple(self.loop_exprs(lp, src) for lp in loop_ids))
        mt = self._stmt_map(dst, tuple(self.loop_exprs(lp, dst) for lp in loop_ids))
        return relation.apply_domain(ms).apply_range(mt).deltas()
