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
from dataclasses import dataclass, field
from functools import cached_property

import islpy as isl

from polyopt import isl_text, names
from polyopt.model import Access, Scop
from polyopt.reductions import Reduction, reductions
from polyopt.schedule_tree import loops, statements
from polyopt.timeline import Timeline


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


@dataclass(frozen=True, eq=False)
class Dependences:
    """The dependences of a scop in its own order.

    The memory-based ones are computed at once; the value-based ones (isl dataflow,
    the costly part: ~0.4 s of 3mm's compile for each of the analyses register tiling
    makes) when first asked for, since the scheduler's legality checks need only the
    memory-based ones.
    """

    scop: Scop
    memory: tuple[Dependence, ...]  # memory-based RAW, WAR, WAW
    reductions: dict[str, Reduction]
    _dataflow: Callable[[], tuple[list[Dependence], list[Access]]]

    @cached_property
    def _value_based(self) -> tuple[tuple[Dependence, ...], tuple[Access, ...]]:
        flow, uninit = self._dataflow()
        return tuple(flow), tuple(uninit)

    @property
    def flow(self) -> tuple[Dependence, ...]:
        """Value-based flow dependences."""
        return self._value_based[0]

    @property
    def uninitialized_reads(self) -> tuple[Access, ...]:
        """Local-scalar reads that may see no write."""
        return self._value_based[1]

    @property
    def all(self) -> tuple[Dependence, ...]:
        return self.flow + self.memory

    @cached_property
    def memory_by_pair(self) -> dict[tuple[str, str], tuple[isl.Map, tuple[Dependence, ...]]]:
        """Memory dependences grouped by (source, sink) statement, with their union."""
        groups: dict[tuple[str, str], list[Dependence]] = {}
        for d in self.memory:
            groups.setdefault((d.source.statement, d.sink.statement), []).append(d)
        out = {}
        for key, group in groups.items():
            union = group[0].relation
            for d in group[1:]:
                union = union.union(d.relation)
            out[key] = (union.coalesce(), tuple(group))
        return out

    def reductions_on(self, target: str) -> list[str]:
        """Statements that reduce into ``target``."""
        return [s for s, r in self.reductions.items() if r.target == target]

    @cached_property
    def memory_union(self) -> isl.UnionMap:
        out = isl.UnionMap.empty(self.scop.context.get_space())
        for d in self.memory:
            out = out.union(isl.UnionMap.from_map(d.relation))
        return out


_CACHE: weakref.WeakKeyDictionary[Scop, Dependences] = weakref.WeakKeyDictionary()


def analyze(scop: Scop) -> Dependences:
    """All dependences of ``scop`` in its original order (memoized)."""
    hit = _CACHE.get(scop)
    if hit is None:
        hit = _analyze(scop)
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


def _analyze(scop: Scop) -> Dependences:
    tl = Timeline(scop, scop.schedule)
    reds = reductions(scop)
    by_target = _accesses_by_target(scop)
    build = _Builder(scop, tl, reds)
    memory: list[Dependence] = []
    for accs in by_target.values():
        if not any(a.is_write for a in accs):
            continue
        for src in accs:
            for dst in accs:
                if not (src.is_write or dst.is_write):
                    continue
                rel = src.relation.apply_range(dst.relation.reverse())
                dep = isl.UnionMap.from_map(rel).intersect(tl.before)
                if dep.is_empty():
                    continue
                kind = DepKind.OUTPUT if src.is_write and dst.is_write else (
                    DepKind.FLOW if src.is_write else DepKind.ANTI)
                for m in names.maps_of(dep):
                    memory.append(build.dependence(kind, False, src, dst, m.coalesce()))
    return Dependences(scop, tuple(memory), reds,
                       lambda: _dataflow(scop, tl, by_target, build))


def _dataflow(scop, tl, by_target, build):
    flow: list[Dependence] = []
    uninit: list[Access] = []
    writes_of = {t: [a for a in accs if a.is_write] for t, accs in by_target.items()}
    for s in scop.statements:
        for r in s.reads:
            writes = writes_of.get(r.target, [])
            if not writes:
                continue
            sources = isl.UnionMap.empty(scop.context.get_space())
            for w in writes:
                sources = sources.union(isl.UnionMap.from_map(w.relation))
            info = isl.UnionAccessInfo.from_sink(isl.UnionMap.from_map(r.relation))
            info = info.set_must_source(sources).set_schedule_map(tl.schedule)
            result = info.compute_flow()
            deps = result.get_must_dependence()
            for m in names.maps_of(deps):
                src_stmt = names.in_tuple_name(m)
                w = scop.statement(src_stmt).write
                flow.append(build.dependence(DepKind.FLOW, True, w, r, m.coalesce()))
            if r.target in scop.local_scalars:
                if not result.get_must_no_source().is_empty():
                    uninit.append(r)
    return flow, uninit


class _Builder:
    def __init__(self, scop: Scop, tl: Timeline, reds: dict[str, Reduction]) -> None:
        self.scop, self.tl, self.reds = scop, tl, reds
        self.enclosing = _enclosing_loops(scop)

    def dependence(self, kind: DepKind, value_based: bool, src: Access, dst: Access,
                   rel: isl.Map) -> Dependence:
        common = _common_loops(self.enclosing, src.statement, dst.statement)
        red = self.reds.get(src.statement)
        is_red = (
            red is not None and src.statement == dst.statement and src.target == red.target
            and _is_reduction_access(self.scop, src) and _is_reduction_access(self.scop, dst)
        )
        return Dependence(kind, value_based, src, dst, rel, common, is_red, self.tl)


def _is_reduction_access(scop: Scop, a: Access) -> bool:
    s = scop.statement(a.statement)
    return a.target == s.target and a.indices == s.indices


def _distance(tl: Timeline, rel: isl.Map, common: list[str]) -> tuple[tuple, tuple]:
    if not common:
        return (), ()
    deltas = tl.distance(rel, common)
    n = len(common)
    dist: list[int | None] = []
    dirs: list[str] = []
    for k in range(n):
        value = names.single_value(deltas, k)
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
