"""Schedule trees: the execution order of a scop, as polyopt transforms it.

A tree is made of :class:`Band` nodes (loops: one :class:`LoopDim` per loop,
each an affine function of every statement's iterators below it), ordered
:class:`Sequence` nodes, and :class:`Leaf` statements.  It is our own immutable
structure rather than isl's schedule tree so that transformations are plain
functions on dataclasses; :func:`to_isl` converts it for code generation and
:class:`polyopt.analysis.timeline.Timeline` flattens it for legality checks.

Example: the source ::

    for i in range(n):
        s = 0.0                 # S0
        for j in range(m):
            s += A[i, j]        # S1
        x[i] = s                # S2

is ``Band(i: {S0: i, S1: i, S2: i}, Sequence(Leaf S0, Band(j: {S1: j}, Leaf S1), Leaf S2))``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import islpy as isl

from polyopt.model import isl_text, names
from polyopt.model.aff import FloorDiv, Lin, floordiv


@dataclass(frozen=True)
class LoopMark:
    """What code generation does with one loop."""

    parallel: bool = False  # `omp parallel for`
    simd: bool = False  # `omp simd`
    reductions: tuple[tuple[str, str], ...] = ()  # (operator, variable): `reduction(op:var)`
    private: tuple[str, ...] = ()  # scalars private to each iteration
    firstprivate: tuple[str, ...] = ()
    unroll: bool = False  # fully unrolled (unroll-and-jam point loops)
    scalar_replace: bool = False  # keep the loop's invariant accumulator in a register (LICM)
    accumulators: tuple[str, ...] = ()  # the statements whose elements those are
    round_robin: bool = False  # dealt one iteration at a time: each iteration is a whole tile
    private_arrays: tuple[str, ...] = ()  # arrays each thread of a parallel loop copies
    scratch_arrays: tuple[str, ...] = ()  # those of them dead after each iteration: no copy in or back
    separate: bool = False  # split into ranges that each run one fixed set of statements
    atomic: bool = False  # one loop over all pieces of its statements' domains (tile loops)
    # a parallel loop over row blocks ``floor(i / (k * ranged))`` whose rows run in any
    # ranges of ``ranged`` rows as well (no dependence between different ones): the
    # printer may cut it into equal ranges per thread instead (backend_c/ranged.py)
    ranged: int = 0


def prints_in_ranges(mark: LoopMark) -> bool:
    """Whether a loop with ``mark`` may be printed in ranges: ``ranged`` and parallel,
    with nothing per thread to set up or combine (no reduction, no copied values)."""
    return bool(mark.ranged and mark.parallel and not mark.reductions
                and not mark.firstprivate and not mark.private_arrays)


@dataclass(frozen=True)
class LoopDim:
    """One loop: a per-statement affine schedule function and how to emit it."""

    loop_id: str  # "L0" for a source loop; transformations derive ids ("L0.tile")
    name: str  # the name users use, usually the source iterator
    exprs: tuple[tuple[str, Lin], ...]  # (statement, expression in its iterators)
    mark: LoopMark = LoopMark()
    aliases: tuple[str, ...] = ()  # ids of loops merged into this one (by fusion)
    label: str = ""  # how users name a loop that transformations created ("i.tile")

    def answers_to(self, loop_id: str) -> bool:
        return loop_id == self.loop_id or loop_id in self.aliases

    def expr(self, stmt: str) -> Lin:
        for s, e in self.exprs:
            if s == stmt:
                return e
        raise KeyError(stmt)

    def with_mark(self, mark: LoopMark) -> LoopDim:
        return replace(self, mark=mark)


@dataclass(frozen=True)
class Band:
    """Loops nested directly in one another, outermost first, around ``child``."""

    dims: tuple[LoopDim, ...]
    child: Node
    permutable: bool = False


@dataclass(frozen=True)
class Sequence:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Leaf:
    stmt: str


Node = Band | Sequence | Leaf


def row_exprs(d: LoopDim, unit: int) -> dict[str, Lin] | None:
    """Each statement's row of ``unit`` rows, ``floor(e / unit)``, where ``d`` runs
    blocks ``floor(e / (k * unit))`` of them (k > 1), else None."""
    out: dict[str, Lin] = {}
    for stmt, e in d.exprs:
        if e.const or len(e.terms) != 1:
            return None
        atom, coeff = e.terms[0]
        if coeff != 1 or not isinstance(atom, FloorDiv) or atom.den % unit or atom.den == unit:
            return None
        out[stmt] = floordiv(atom.num, unit)
    return out


def statements(node: Node) -> list[str]:
    """Statements below ``node`` in execution order of the tree."""
    if isinstance(node, Leaf):
        return [node.stmt]
    if isinstance(node, Band):
        return statements(node.child)
    out: list[str] = []
    for c in node.children:
        out += statements(c)
    return out


def loops(node: Node) -> Iterator[tuple[LoopDim, tuple[Node, ...]]]:
    """Every loop with the path of nodes above it (root first), outermost loops first."""
    yield from _loops(node, ())


def _loops(node: Node, path: tuple[Node, ...]) -> Iterator[tuple[LoopDim, tuple[Node, ...]]]:
    if isinstance(node, Band):
        for d in node.dims:
            yield d, (*path, node)
        yield from _loops(node.child, (*path, node))
    elif isinstance(node, Sequence):
        for c in node.children:
            yield from _loops(c, (*path, node))


# --- flattening -------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """Where a loop sits in the flattened schedule: dims before it and its own index."""

    depth: int  # index of the loop's own dimension in the flat vector
    statements: tuple[str, ...]


def flat_vectors(node: Node) -> dict[str, list[Lin]]:
    """Each statement's schedule vector: sequence positions and loop values, unpadded."""
    out: dict[str, list[Lin]] = {}
    _flat(node, {}, out)
    return out


def _flat(node: Node, prefix: dict[str, list[Lin]], out: dict[str, list[Lin]]) -> None:
    if isinstance(node, Leaf):
        out[node.stmt] = prefix.get(node.stmt, [])
    elif isinstance(node, Band):
        stmts = statements(node)
        new = {s: [*prefix.get(s, []), *(d.expr(s) for d in node.dims)] for s in stmts}
        _flat(node.child, new, out)
    else:
        for k, c in enumerate(node.children):
            stmts = statements(c)
            new = {s: [*prefix.get(s, []), Lin.constant(k)] for s in stmts}
            _flat(c, new, out)


def loop_positions(node: Node) -> dict[str, Position]:
    """For every loop id, its flat dimension index and the statements it encloses."""
    out: dict[str, Position] = {}
    _positions(node, 0, out)
    return out


def _positions(node: Node, depth: int, out: dict[str, Position]) -> None:
    if isinstance(node, Band):
        stmts = tuple(statements(node))
        for k, d in enumerate(node.dims):
            out[d.loop_id] = Position(depth + k, stmts)
        _positions(node.child, depth + len(node.dims), out)
    elif isinstance(node, Sequence):
        for c in node.children:
            _positions(c, depth + 1, out)


# --- conversion to isl ------------------------------------------------------------------


def to_isl(
    node: Node, params: tuple[str, ...], iterators: dict[str, tuple[str, ...]],
    domains: dict[str, isl.Set], unroll: bool = True,
    built: dict[str, LoopDim] | None = None,
) -> tuple[isl.Schedule, dict[str, LoopDim]]:
    """An isl schedule tree, with a mark node (id ``loop<k>``) above every loop.

    ``unroll``: isl unrolls the loops marked ``unroll``; without it they stay loops,
    for the printer to unroll (backend_c/unroll.py).  Loops marked ``atomic`` (tile
    loops) are one loop over all pieces of a statement's domain: the point loops inside
    still split the pieces, and splitting them at every tile level too costs isl much
    more time for no faster code.

    Returns the schedule and the loops by mark name, for the code generator: those of
    ``built`` (the nests whose schedules were made before, apart) and ``node``'s, named
    after them.
    """
    marks: dict[str, LoopDim] = dict(built or {})
    scheds = []
    for nest in node.children if isinstance(node, Sequence) else (node,):
        sched = _to_isl(nest, params, iterators, domains, marks, unroll)
        scheds.append(_guarded(sched) if isinstance(nest, Band) else sched)
    return _sequence(scheds), marks


def _sequence(scheds: list[isl.Schedule]) -> isl.Schedule:
    out = scheds[0]
    for s in scheds[1:]:
        out = out.sequence(s)
    return out


def _guarded(sched: isl.Schedule) -> isl.Schedule:
    """``sched`` (one loop nest) with a guard above its outermost loop where the loop
    could run with every loop inside it empty.

    isl bounds a loop by the constraints on its own counter: in ::

        for i in range(n):
            for j in range(m):
                S(i, j)

    the ``i`` loop runs ``n`` empty iterations when ``m == 0``.  The guard, the
    parameter values where some statement runs (``n >= 1 and m >= 1``) less what the
    outer loop's bounds already say (``n >= 1``), is printed above the nest::

        if (m >= 1)
          for (c0 = 0; c0 < n; c0 += 1) ...
    """
    top = sched.get_root().child(0)  # the outermost loop's mark
    domain = sched.get_domain()
    outer = isl.UnionMap.from_union_pw_aff(top.child(0).band_get_partial_schedule().get_at(0))
    values = names.sets_of(outer.intersect_domain(domain).range())
    if not values:
        return sched  # no statement of the nest ever runs
    runs = names.params_where_first_dim_runs(values[0])
    # a hull: a weaker guard is as correct (every instance satisfies it), and a union
    # of the statements' pieces would print as a long disjunction; the simple hull (the
    # pieces' own constraints that hold for all) because the polyhedral hull of a union
    # of many pieces with divisions ran isl for minutes, uncounted by its budget
    guard = isl.Set.from_basic_set(domain.params().simple_hull()).remove_divs().gist(runs)
    if guard.plain_is_universe():
        return sched
    return top.insert_guard(isl.Set.from_params(guard)).get_schedule()


def _to_isl(node: Node, params: tuple[str, ...], iterators: dict[str, tuple[str, ...]],
            domains: dict[str, isl.Set], marks: dict[str, LoopDim],
            unroll: bool) -> isl.Schedule:
    if isinstance(node, Leaf):
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domains[node.stmt]))
    if isinstance(node, Sequence):
        return _sequence([_to_isl(c, params, iterators, domains, marks, unroll)
                          for c in node.children])
    sched = _to_isl(node.child, params, iterators, domains, marks, unroll)
    for d in reversed(node.dims):
        pieces = "; ".join(
            f"{stmt}[{', '.join(iterators[stmt])}] -> [{isl_text.lin(e)}]" for stmt, e in d.exprs
        )
        text = f"{isl_text.params_prefix(params)}[{{ {pieces} }}]"
        mupa = isl.MultiUnionPwAff.read_from_str(isl.DEFAULT_CONTEXT, text)
        sched = sched.insert_partial_schedule(mupa)
        band = sched.get_root().child(0)
        if d.mark.unroll and unroll:
            band = band.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
        elif d.mark.separate:
            band = band.band_member_set_ast_loop_type(0, isl.ast_loop_type.separate)
        elif d.mark.atomic:
            band = band.band_member_set_ast_loop_type(0, isl.ast_loop_type.atomic)
        mark_name = f"loop{len(marks)}"
        marks[mark_name] = d
        sched = band.insert_mark(isl.Id(mark_name)).get_schedule()
    return sched
