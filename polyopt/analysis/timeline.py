"""A schedule tree seen as time: which dependences a loop carries, and distances.

A :class:`Timeline` memoizes the isl maps it needs; :func:`timeline` shares one per
(scop, tree) between the analyses that ask about the same tree (the scheduler checks
a candidate's legality, then asks whether its loops run in parallel).
"""

from __future__ import annotations

from functools import cached_property, partial

import islpy as isl

from polyopt.analysis.identity_memo import IdentityMemo
from polyopt.analysis.time_maps import time_map
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.schedule_tree import Node, Position, flat_vectors, loop_positions, to_isl
from polyopt.model.scop import Scop

# Timelines kept for reuse: enough for the candidates one scheduling phase compares
_timelines: IdentityMemo[Timeline] = IdentityMemo(128)
# a statement's map to its padded time vector, per (scop, statement, vector): a
# candidate tree changes some statements' vectors and keeps the others'
_statement_maps: IdentityMemo[isl.Map] = IdentityMemo(2048)
# Timeline.before per (source's and sink's maps, strictness), shared by the timelines of
# the scops a split or a packing makes, which keep the other statements' maps
_befores: IdentityMemo[isl.Map] = IdentityMemo(2048)
# Timeline.respects per (relation, source's and sink's maps): a legality check of a
# candidate repeats the answers about the statements it leaves in place
_respected: IdentityMemo[bool] = IdentityMemo(4096)
# same_prefix per (scop, the loop's statements and their time vectors down to it): a
# candidate tree keeps most loops' prefixes, and each is an isl composition
_same_prefixes: IdentityMemo[isl.UnionMap] = IdentityMemo(2048)
# a statement pair's piece of same_prefix, per the two statements' prefix maps
_same_pairs: IdentityMemo[isl.Map] = IdentityMemo(4096)
# Timeline.carries per (relation, the two same_prefix maps), shared like them
_carried: IdentityMemo[isl.UnionMap] = IdentityMemo(8192)
# the lexicographic order on time vectors, per scop, width and strictness
_lex_orders: IdentityMemo[isl.Map] = IdentityMemo(256)


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
        self._before: dict[tuple[str, str], isl.Map] = {}
        self._pairs: dict[tuple[str, str], tuple[isl.Map, isl.Map, bool]] = {}

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
        # keyed by the statement, not the scop: a split or packed scop keeps the other
        # statements, and with them these maps and every answer memoized on them
        return _statement_maps.get((self.scop.statement(stmt),),
                                   partial(self._new_stmt_map, stmt, exprs),
                                   (self.scop.params, exprs))

    def _new_stmt_map(self, stmt: str, exprs: tuple[Lin, ...]) -> isl.Map:
        s = self.scop.statement(stmt)
        return time_map(self.scop.params, stmt, s.iterators, exprs).intersect_domain(s.domain)

    @cached_property
    def schedule(self) -> isl.UnionMap:
        """Statement instances to padded time vectors."""
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for m in self._padded.values():
            out = out.union(isl.UnionMap.from_map(m))
        return out

    @cached_property
    def tree_schedule(self) -> isl.Schedule:
        """The tree as an isl schedule tree.  isl's dataflow orders the children of a
        sequence node by their position, where a flat schedule (:attr:`schedule`) makes
        it compare the whole padded time vector of every pair of statements."""
        stmts = self.scop.statements
        return to_isl(self.tree, self.scop.params, {s.name: s.iterators for s in stmts},
                      {s.name: s.domain for s in stmts}, unroll=False)[0]

    @cached_property
    def _padded(self) -> dict[str, isl.Map]:
        """Each statement's map to its time vector, padded with zeros to ``width``."""
        out = {}
        for stmt, vec in self.vectors.items():
            padded = tuple(vec) + (Lin.constant(0),) * (self.width - len(vec))
            out[stmt] = self._stmt_map(stmt, padded)
        return out

    def _lex(self, width: int, strict: bool) -> isl.Map:
        return _lex_orders.get((self.scop,), partial(self._new_lex, width, strict),
                               (width, strict))

    def _new_lex(self, width: int, strict: bool) -> isl.Map:
        dims = ", ".join(f"t{k}" for k in range(width))
        space = isl.Set.read_from_str(
            isl.DEFAULT_CONTEXT,
            f"{isl_text.params_prefix(self.scop.params)}{{ [{dims}] }}").get_space()
        return isl.Map.lex_lt(space) if strict else isl.Map.lex_le(space)

    def _pair(self, src: str, dst: str) -> tuple[isl.Map, isl.Map, bool]:
        """The time vectors that order ``src`` against ``dst``: the padded vectors without
        the positions where both are the same constant, cut at the first position where
        both are constants that differ; and whether the order between what is left must
        be strict (source first).  Equal constants never decide the order, and differing
        ones decide it for every instance pair that ties before them::

            S: (0, i, 0, j)    T: (0, i', 1, k)   ->   S: (i)  T: (i'),  i <= i'

        so statements in different nests compare no loop at all, and the rest compare
        the loops they share instead of the program's whole width.
        """
        found = self._pairs.get((src, dst))
        if found is not None:
            return found
        zero = Lin.constant(0)
        a, b = self.vectors[src], self.vectors[dst]
        kept_a: list[Lin] = []
        kept_b: list[Lin] = []
        strict = True  # all positions tie: the same instant, not source first
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else zero
            y = b[k] if k < len(b) else zero
            if x.is_constant() and y.is_constant():
                if x.const == y.const:
                    continue
                strict = x.const > y.const  # source's constant first: ties suffice
                break
            kept_a.append(x)
            kept_b.append(y)
        found = self._pairs[src, dst] = (self._stmt_map(src, tuple(kept_a)),
                                         self._stmt_map(dst, tuple(kept_b)), strict)
        return found

    def respects(self, relation: isl.Map) -> bool:
        """Whether every pair of ``relation`` (source instance -> sink instance) runs
        source strictly first in this schedule."""
        at_src, at_dst, strict = self._pair(names.in_tuple_name(relation),
                                            names.out_tuple_name(relation))
        width = at_src.dim(isl.dim_type.out)
        if width == 0:  # a sequence orders the two statements, whatever their instances
            return not strict or relation.is_empty()
        order = self._lex(width, strict)
        return _respected.get((relation, at_src, at_dst), lambda: relation.apply_domain(
            at_src).apply_range(at_dst).is_subset(order), strict)

    def before(self, src: str, dst: str) -> isl.Map:
        """Instance pairs (a of ``src``, b of ``dst``) where a runs strictly before b: the
        piece for these two statements of the whole program's order, which isl builds
        pair by pair alike (``lex_lt_union_map``) but for every pair of statements."""
        found = self._before.get((src, dst))
        if found is None:
            at_src, at_dst, strict = self._pair(src, dst)
            found = self._before[src, dst] = _befores.get(
                (at_src, at_dst), lambda: (at_src.lex_lt_map(at_dst) if strict
                                           else at_src.lex_le_map(at_dst)), strict)
        return found

    def _prefix_exprs(self, loop_id: str, inclusive: bool) -> tuple[tuple[str, tuple[Lin, ...]], ...]:
        """The statements inside the loop with their time vectors above it (and at it)."""
        pos = self.positions[loop_id]
        length = pos.depth + (1 if inclusive else 0)
        return tuple((stmt, tuple(self.vectors[stmt][:length])) for stmt in pos.statements)

    def _prefix(self, exprs: tuple[tuple[str, tuple[Lin, ...]], ...]) -> isl.UnionMap:
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for stmt, vec in exprs:
            out = out.union(isl.UnionMap.from_map(self._stmt_map(stmt, vec)))
        return out

    def prefix(self, loop_id: str, inclusive: bool) -> isl.UnionMap:
        """Instances inside the loop to their time vector above it (and at it when
        ``inclusive``): which execution of the loop, and which iteration, they belong to."""
        return self._prefix(self._prefix_exprs(loop_id, inclusive))

    def same_prefix(self, loop_id: str, inclusive: bool) -> isl.UnionMap:
        """Pairs of instances inside the loop that agree on every schedule dimension
        above it (and on the loop itself when ``inclusive``)."""
        key = (loop_id, inclusive)
        found = self._same_prefixes.get(key)
        if found is None:
            exprs = self._prefix_exprs(loop_id, inclusive)

            def compose() -> isl.UnionMap:
                p = self._prefix(exprs)
                return p.apply_range(p.reverse())

            found = self._same_prefixes[key] = _same_prefixes.get((self.scop,), compose, exprs)
        return found

    def carries(self, relation: isl.UnionMap | isl.Map, loop_id: str) -> isl.UnionMap:
        """The part of a dependence relation that ``loop_id`` carries."""
        if isinstance(relation, isl.Map):
            return self._carries_pair(relation, loop_id)
        out_, in_ = self.same_prefix(loop_id, False), self.same_prefix(loop_id, True)

        def compute() -> isl.UnionMap:
            outer = relation.intersect(out_)
            if outer.is_empty():
                return outer
            return outer.subtract(in_)

        return _carried.get((relation, out_, in_), compute)

    def _carries_pair(self, relation: isl.Map, loop_id: str) -> isl.UnionMap:
        """:meth:`carries` of one statement pair's relation, against that pair's piece of
        the loop's equal-prefix relations only (the loop's whole ones pair every two
        statements inside it)."""
        inside = self.positions[loop_id].statements
        if names.in_tuple_name(relation) not in inside or \
                names.out_tuple_name(relation) not in inside:
            # a loop carries only dependences between instances it runs (a reduction of
            # ``s1`` from a statement above the loop into one inside it: fuzz run S)
            return isl.UnionMap.from_map(isl.Map.empty(relation.get_space()))
        out_, in_ = (self._same_pair(relation, loop_id, inclusive) for inclusive in (False, True))

        def compute() -> isl.UnionMap:
            outer = relation.intersect(out_)
            if outer.is_empty():
                return isl.UnionMap.from_map(outer)
            return isl.UnionMap.from_map(outer.subtract(in_))

        return _carried.get((relation, out_, in_), compute)

    def same_iteration(self, relation: isl.Map, loop_id: str) -> isl.Map:
        """The pairs of ``relation`` that run in one iteration of ``loop_id`` (in one
        execution of it); none where either statement is outside the loop."""
        inside = self.positions[loop_id].statements
        if names.in_tuple_name(relation) not in inside or \
                names.out_tuple_name(relation) not in inside:
            return isl.Map.empty(relation.get_space())
        return relation.intersect(self._same_pair(relation, loop_id, True))

    def _same_pair(self, relation: isl.Map, loop_id: str, inclusive: bool) -> isl.Map:
        """Instance pairs of ``relation``'s two statements that agree on every schedule
        dimension above ``loop_id`` (and on it when ``inclusive``)."""
        length = self.positions[loop_id].depth + (1 if inclusive else 0)
        at_src, at_dst = (self._stmt_map(stmt, tuple(self.vectors[stmt][:length]))
                          for stmt in (names.in_tuple_name(relation),
                                       names.out_tuple_name(relation)))
        return _same_pairs.get((at_src, at_dst), lambda: at_src.apply_range(at_dst.reverse()))

    def loop_exprs(self, loop_id: str, stmt: str) -> Lin:
        return self.vectors[stmt][self.positions[loop_id].depth]

    def step(self, stmt: str, loop_id: str) -> int:
        """How far the time of loop ``loop_id`` moves from one of its iterations to the
        next: the loop's step (``range(2, n, 2)``: 2), 1 for a plain loop.  A source loop
        says it; the stride of ``stmt``'s instances would also count a guard's (``if
        i % 3 == 0`` in a step-1 loop: 3), which skips iterations but does not make them
        longer.  A loop a transformation made falls back on that stride."""
        loop = self.scop.loops.get(loop_id)
        if loop is not None:
            return abs(loop.step)
        ms = self._stmt_map(stmt, (self.loop_exprs(loop_id, stmt),))
        stride = ms.range().get_stride(0).to_python()
        return max(abs(int(stride)), 1)

    def distance(self, relation: isl.Map, loop_ids: list[str]) -> isl.Set:
        """Set of (sink - source) schedule-value vectors over the given common loops."""
        src = names.in_tuple_name(relation)
        dst = names.out_tuple_name(relation)
        ms = self._stmt_map(src, tuple(self.loop_exprs(lp, src) for lp in loop_ids))
        mt = self._stmt_map(dst, tuple(self.loop_exprs(lp, dst) for lp in loop_ids))
        return relation.apply_domain(ms).apply_range(mt).deltas()
