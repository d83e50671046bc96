"""Exact dependence analysis.

* value-based flow dependences (isl dataflow: each read is linked to the write
  whose value it actually reads);
* memory-based read-after-write, write-after-read and write-after-write
  dependences between every pair of accesses to the same location, in the order
  of the original schedule.

Each :class:`Dependence` knows its source and sink access, the loops that carry
it, and its distance/direction over the loops common to both statements.
Results are memoized per scop: ``analyze(scop)`` is cheap the second time.
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, partial

import islpy as isl

from polyopt.analysis.identity_memo import IdentityMemo
from polyopt.analysis.reductions import Reduction, reductions
from polyopt.analysis.timeline import Timeline, timeline
from polyopt.model import isl_text, names
from polyopt.model.isl_budget import coalesce, exhausted
from polyopt.model.schedule_tree import loops, statements
from polyopt.model.scop import Access, Scop


class DepKind(enum.Enum):
    FLOW = "flow"  # read after write (RAW)
    ANTI = "anti"  # write after read (WAR)
    OUTPUT = "output"  # write after write (WAW)

    @property
    def short(self) -> str:
        return {"flow": "RAW", "anti": "WAR", "output": "WAW"}[self.value]


@dataclass(frozen=True, eq=False)
class Dependence:
    """``sink`` must run after ``source`` for every pair in ``relation``."""

    kind: DepKind
    value_based: bool
    source: Access
    sink: Access
    relation: isl.Map  # source statement instance -> sink statement instance
    common_loops: tuple[str, ...]  # loops of the scop's own order around both statements
    reduction: bool  # a self-dependence of a reduction on its accumulator
    timeline: Timeline = field(repr=False)  # the scop's own order, for the lazy facts below

    @cached_property
    def carried_by(self) -> tuple[str, ...]:
        """Loop ids (of the scop's own order) that carry it; () = loop-independent."""
        return tuple(lp for lp in self.common_loops
                     if not self.timeline.carries(self.relation, lp).is_empty())

    def carried_at(self, loop_id: str) -> bool:
        """Whether loop ``loop_id`` (of the scop's own order) carries it: one loop's
        question of :attr:`carried_by`, which asks isl about every common loop."""
        if "carried_by" in self.__dict__:
            return loop_id in self.carried_by
        return loop_id in self.common_loops and \
            not self.timeline.carries(self.relation, loop_id).is_empty()

    @cached_property
    def _vectors(self) -> tuple[tuple[int | None, ...], tuple[str, ...]]:
        return _distance(self.timeline, self.relation, list(self.common_loops))

    @property
    def distance(self) -> tuple[int | None, ...]:
        """Per common loop, the constant distance, or None where it is not constant."""
        return self._vectors[0]

    @property
    def direction(self) -> tuple[str, ...]:
        """Per common loop: "<" ">" "=" "<=" ">=" "*"."""
        return self._vectors[1]

    @property
    def array(self) -> str:
        return self.source.target

    @property
    def is_uniform(self) -> bool:
        return all(d is not None for d in self.distance)

    def seen_in(self, tl: Timeline) -> Dependence:
        """The same instance pairs in another schedule's order: its common loops are the
        loops of ``tl`` around both statements, and :attr:`carried_by`, :attr:`distance`
        and :attr:`direction` those it has there (a fuse that shifts one statement turns
        a dependence between two loops into one the fused loop carries)."""
        src, dst = self.source.statement, self.sink.statement
        around = sorted((p.depth, lid) for lid, p in tl.positions.items()
                        if src in p.statements and dst in p.statements)
        return replace(self, common_loops=tuple(lid for _, lid in around), timeline=tl)


@dataclass(frozen=True, eq=False)
class Dependences:
    """The dependences of a scop in its own order.

    The memory-based ones are computed at once; the value-based ones (isl dataflow,
    the costly part) when first asked for, one read at a time, since the scheduler's
    legality checks need only the memory-based ones and privatization only a scalar's
    flows.
    """

    scop: Scop
    memory: tuple[Dependence, ...]  # memory-based RAW, WAR, WAW
    reductions: dict[str, Reduction]
    _dataflow: Callable[[Access], tuple[list[Dependence], bool]]  # a read's flows; unsourced?

    @cached_property
    def _by_read(self) -> dict[str, tuple[tuple[Dependence, ...], bool]]:
        return {}

    def _read_flow(self, r: Access) -> tuple[tuple[Dependence, ...], bool]:
        hit = self._by_read.get(r.tag)
        if hit is None:
            flow, uninit = self._dataflow(r)
            hit = self._by_read[r.tag] = (tuple(flow), uninit)
        return hit

    def _reads(self, target: str | None = None) -> list[Access]:
        return [r for s in self.scop.statements for r in s.reads
                if target is None or r.target == target]

    @property
    def flow(self) -> tuple[Dependence, ...]:
        """Value-based flow dependences."""
        return tuple(d for r in self._reads() for d in self._read_flow(r)[0])

    def flow_on(self, target: str) -> tuple[Dependence, ...]:
        """Value-based flow dependences on one array or scalar (only its dataflow is run)."""
        return tuple(d for r in self._reads(target) for d in self._read_flow(r)[0])

    @property
    def uninitialized_reads(self) -> tuple[Access, ...]:
        """Local-scalar reads that may see no write."""
        return tuple(r for r in self._reads() if r.target in self.scop.local_scalars
                     and not self.always_written(r))

    def always_written(self, r: Access) -> bool:
        """Every instance of read ``r`` reads a value some statement wrote (none reads
        what was there before the scop).  An instance has a value-based source exactly
        when some write to its element runs before it: the memory-based flows say so,
        without isl's dataflow."""
        hit = self._written.get(r.tag)
        if hit is None:
            covered = isl.Set.empty(r.relation.domain().get_space())
            for d in self.memory:
                if d.kind is DepKind.FLOW and d.sink is r:
                    covered = covered.union(d.relation.range())
            hit = self._written[r.tag] = r.relation.domain().is_subset(coalesce(covered))
        return hit

    @cached_property
    def _written(self) -> dict[str, bool]:
        return {}

    @property
    def all(self) -> tuple[Dependence, ...]:
        return self.flow + self.memory

    @cached_property
    def memory_by_pair(self) -> dict[tuple[str, str], tuple[isl.Map, tuple[Dependence, ...]]]:
        """Memory dependences grouped by (source, sink) statement, with their union."""
        return _by_pair(self.memory)

    def reorderable(self, d: Dependence) -> bool:
        """``d`` orders two updates of one element by exact reductions with one operator
        (``T[i, j] = max(T[i, j], e)`` in two statements, or at two ``k``): they give the
        same bits in either order.  Every other access of the element keeps its own
        dependences on each update, so it still sees all of them or none."""
        ends = (self.reductions.get(d.source.statement), self.reductions.get(d.sink.statement))
        return d.reduction and all(r is not None and r.exact for r in ends)

    @cached_property
    def ordered_by_pair(self) -> dict[tuple[str, str], tuple[isl.Map, tuple[Dependence, ...]]]:
        """:attr:`memory_by_pair` without the :meth:`reorderable` dependences."""
        return _by_pair(tuple(d for d in self.memory if not self.reorderable(d)))

    def reductions_on(self, target: str) -> list[str]:
        """Statements that reduce into ``target``."""
        return [s for s, r in self.reductions.items() if r.target == target]

    @cached_property
    def memory_union(self) -> isl.UnionMap:
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for d in self.memory:
            out = out.union(isl.UnionMap.from_map(d.relation))
        return out


def _by_pair(deps: tuple[Dependence, ...]
             ) -> dict[tuple[str, str], tuple[isl.Map, tuple[Dependence, ...]]]:
    groups: dict[tuple[str, str], list[Dependence]] = {}
    for d in deps:
        groups.setdefault((d.source.statement, d.sink.statement), []).append(d)
    out = {}
    for key, group in groups.items():
        union = group[0].relation
        for d in group[1:]:
            union = union.union(d.relation)
        out[key] = (coalesce(union), tuple(group))
    return out


_CACHE: weakref.WeakKeyDictionary[Scop, Dependences] = weakref.WeakKeyDictionary()


def analyze(scop: Scop, earlier: Dependences | None = None) -> Dependences:
    """All dependences of ``scop`` in its original order (memoized).

    ``earlier``: the dependences of a program with many of the same accesses (the same
    objects) in another order, which ``scop``'s order may keep (:class:`_Earlier`): only
    a shortcut, the result is the same."""
    hit = _CACHE.get(scop)
    if hit is None:
        hit = _analyze(scop, earlier)
        _CACHE[scop] = hit
    return hit


def _enclosing_loops(scop: Scop) -> dict[str, tuple[str, ...]]:
    """Loop ids around each statement in the scop's own order (its schedule tree)."""
    out: dict[str, tuple[str, ...]] = {s.name: () for s in scop.statements}
    for dim, path in loops(scop.schedule):
        band = path[-1]
        for stmt in statements(band):
            out[stmt] = (*out[stmt], dim.loop_id)
    return out


def _common_loops(enclosing: dict[str, tuple[str, ...]], a: str, b: str) -> tuple[str, ...]:
    out: list[str] = []
    for x, y in zip(enclosing[a], enclosing[b], strict=False):
        if x != y:
            break
        out.append(x)
    return tuple(out)


def _accesses_by_target(scop: Scop) -> dict[str, list[Access]]:
    out: dict[str, list[Access]] = {}
    for s in scop.statements:
        for a in s.accesses:
            out.setdefault(a.target, []).append(a)
    return out


def _analyze(scop: Scop, earlier: Dependences | None = None) -> Dependences:
    tl = timeline(scop, scop.schedule)
    reds = reductions(scop)
    by_target = _accesses_by_target(scop)
    build = _Builder(scop, tl, reds)
    kept = _Earlier(earlier, tl) if earlier is not None else None
    memory: list[Dependence] = []
    for accs in by_target.values():
        if not any(a.is_write for a in accs):
            continue
        for src in accs:
            for dst in accs:
                if not (src.is_write or dst.is_write):
                    continue
                known, dep = kept.relation(src, dst) if kept is not None else (False, None)
                if not known:
                    # only this pair's piece of the program's order: the whole of it
                    # costs a lex_lt per pair of statements, most of which share no array
                    before = tl.before(src.statement, dst.statement)
                    dep = _pair_memory.get((src.relation, dst.relation, before),
                                           partial(_memory_dependence, src, dst, before))
                if dep is None:
                    continue
                kind = DepKind.OUTPUT if src.is_write and dst.is_write else (
                    DepKind.FLOW if src.is_write else DepKind.ANTI)
                memory.append(build.dependence(kind, False, src, dst, dep))
    return Dependences(scop, tuple(memory), reds,
                       lambda r: _dataflow(scop, tl, memory, build, r))


# The memory dependence of a pair of accesses, per (their relations, the order between
# their statements): a split or packed scop keeps the other statements' accesses and
# (timeline.before) their order, so its analysis recomputes only the pairs it changed
_pair_memory: IdentityMemo[isl.Map | None] = IdentityMemo(4096)


class _Earlier:
    """The memory dependences of an earlier analysis, where they still hold.

    For two accesses ``x`` and ``y`` that were in the earlier program (the same objects:
    the same instances, the same elements), every pair of their instances that touch
    one element ran in one of the two directions, and is in the earlier ``x -> y`` or
    ``y -> x`` relation.  When the new order runs every pair of both as before, the new
    ``x -> y`` relation is the earlier one.  That is checked per pair of statements, on
    the union of their earlier dependences in each direction (which a legality check of
    the same order has often asked already).  Contraction (pipeline.automatic) keeps
    most accesses and reorders the program as the schedule did: NumPy-style 3mm's
    analysis in its register-tiled order took 0.43 s."""

    def __init__(self, earlier: Dependences, tl: Timeline) -> None:
        self.tl = tl
        self.accesses = {id(a.relation): a.relation for s in earlier.scop.statements
                         for a in s.accesses}
        self.relations = {(id(d.source.relation), id(d.sink.relation)): d.relation
                          for d in earlier.memory}
        self.by_pair = earlier.memory_by_pair
        self.ordered: dict[tuple[str, str], bool] = {}

    def relation(self, src: Access, dst: Access) -> tuple[bool, isl.Map | None]:
        """Whether the ``src -> dst`` relation is known, and it (None: empty)."""
        if self.accesses.get(id(src.relation)) is not src.relation or \
                self.accesses.get(id(dst.relation)) is not dst.relation or \
                not self._kept(src.statement, dst.statement):
            return False, None
        return True, self.relations.get((id(src.relation), id(dst.relation)))

    def _kept(self, a: str, b: str) -> bool:
        key = (a, b) if a <= b else (b, a)
        found = self.ordered.get(key)
        if found is None:
            found = self.ordered[key] = all(
                self.tl.respects(self.by_pair[p][0]) for p in {(a, b), (b, a)}
                if p in self.by_pair)
        return found


def _memory_dependence(src: Access, dst: Access, before: isl.Map) -> isl.Map | None:
    """The instance pairs of ``src`` then ``dst`` on one element (None: there are none)."""
    if before.plain_is_empty():  # dst's statement runs before src's, in another nest
        return None
    dep = src.relation.apply_range(dst.relation.reverse()).intersect(before)
    return None if dep.is_empty() else coalesce(dep)


def _dataflow(scop: Scop, tl: Timeline, memory: list[Dependence], build: _Builder,
              r: Access) -> tuple[list[Dependence], bool]:
    """The writes whose values read ``r`` reads, and whether some instance reads none.

    Only writes with a memory-based flow into ``r`` can be its source, and isl needs the
    schedule of those statements alone: handing it every write of the array and the
    whole program's schedule made its dataflow exponential on guarded nests.
    """
    into = [d for d in memory if d.kind is DepKind.FLOW and d.sink is r]
    if not into:
        return [], not r.relation.is_empty()
    try:
        found, unsourced = _isl_dataflow(scop, tl, r, into)
    except isl.Error as exc:
        if exhausted(exc):
            raise
        # isl's dataflow fails on some strided nests run backwards, an isl bug ("affine
        # expression involves some of the domain dimensions"; tests/test_budget.py has
        # one): the same answer from the memory-based flows, by a lexmax over time
        found, unsourced = _last_writes(scop, tl, r, into)
    flow = []
    for m in names.maps_of(found):
        w = scop.statement(names.in_tuple_name(m)).write
        flow.append(build.dependence(DepKind.FLOW, True, w, r, coalesce(m)))
    return flow, unsourced


def _isl_dataflow(scop: Scop, tl: Timeline, r: Access,
                  into: list[Dependence]) -> tuple[isl.UnionMap, bool]:
    sources = isl.UnionMap.empty(scop.context.get_space())
    involved = isl.UnionSet.from_set(scop.statement(r.statement).domain)
    for w in {d.source.tag: d.source for d in into}.values():
        sources = sources.union(isl.UnionMap.from_map(w.relation))
        involved = involved.union(isl.UnionSet.from_set(scop.statement(w.statement).domain))
    # A schedule tree: with `set_schedule_map`, isl's dataflow fails on more strided nests;
    # and the tree's own (sequences apart) is several times faster than one flat band
    info = isl.UnionAccessInfo.from_sink(isl.UnionMap.from_map(r.relation))
    info = info.set_must_source(sources).set_schedule(tl.tree_schedule.intersect_domain(involved))
    result = info.compute_flow()
    return result.get_must_dependence(), not result.get_must_no_source().is_empty()


def _last_writes(scop: Scop, tl: Timeline, r: Access,
                 into: list[Dependence]) -> tuple[isl.UnionMap, bool]:
    """Each instance of ``r`` reads the last write before it to its element (every write
    is a must-write; the schedule is one-to-one, so a time names one write instance)."""
    when = isl.UnionMap.empty(scop.context.get_space())  # read instance -> write's time
    for d in into:
        when = when.union(isl.UnionMap.from_map(d.relation.reverse()).apply_range(tl.schedule))
    last = when.lexmax()
    found = last.apply_range(tl.schedule.reverse()).reverse()
    unsourced = isl.UnionSet.from_set(r.relation.domain()).subtract(last.domain())
    return found, not unsourced.is_empty()


class _Builder:
    def __init__(self, scop: Scop, tl: Timeline, reds: dict[str, Reduction]) -> None:
        self.scop, self.tl, self.reds = scop, tl, reds
        self.enclosing = _enclosing_loops(scop)

    def dependence(self, kind: DepKind, value_based: bool, src: Access, dst: Access,
                   rel: isl.Map) -> Dependence:
        common = _common_loops(self.enclosing, src.statement, dst.statement)
        # a statement's own updates, or two statements' updates of one variable with one
        # operator (`s += x[i]; s += 1.0`): each thread's copy takes both
        red, other = self.reds.get(src.statement), self.reds.get(dst.statement)
        is_red = (
            red is not None and other is not None and src.target == red.target == other.target
            and red.op == other.op
            and _is_reduction_access(self.scop, src) and _is_reduction_access(self.scop, dst)
        )
        return Dependence(kind, value_based, src, dst, rel, common, is_red, self.tl)


def _is_reduction_access(scop: Scop, a: Access) -> bool:
    s = scop.statement(a.statement)
    return a.target == s.target and a.indices == s.indices


def _distance(tl: Timeline, rel: isl.Map, common: list[str]
              ) -> tuple[tuple[int | None, ...], tuple[str, ...]]:
    """Per common loop, the distance in iterations (the time's distance over the loop's
    step: ``x[i - 2]`` in ``range(2, n, 2)`` reads the previous iteration's value, 1,
    where the iterator moved by 2), and the direction."""
    if not common:
        return (), ()
    deltas = tl.distance(rel, common)
    n = len(common)
    src = names.in_tuple_name(rel)
    dist: list[int | None] = []
    dirs: list[str] = []
    for k in range(n):
        value = names.single_value(deltas, k)
        if value is not None:
            step = tl.step(src, common[k])
            value = value // step if value % step == 0 else None
        dist.append(value)
        dirs.append(_direction(deltas, k, n))
    return tuple(dist), tuple(dirs)


def _direction(deltas: isl.Set, k: int, n: int) -> str:
    dims = ", ".join(f"d{m}" for m in range(n))
    params = tuple(names.param_names(deltas))

    def holds(cond: str) -> bool:
        text = f"{isl_text.params_prefix(params)}{{ [{dims}] : {cond} }}"
        return deltas.is_subset(isl.Set.read_from_str(isl.DEFAULT_CONTEXT, text))

    if holds(f"d{k} = 0"):
        return "="
    if holds(f"d{k} > 0"):
        return "<"
    if holds(f"d{k} < 0"):
        return ">"
    if holds(f"d{k} >= 0"):
        return "<="
    if holds(f"d{k} <= 0"):
        return ">="
    return "*"
