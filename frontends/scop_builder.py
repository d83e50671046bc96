"""The scop builder both frontends share: loops, guards and assignments, met in source
order, become the statements (domains, access relations) and the original schedule
tree of a :class:`~polyopt.model.scop.Scop`.

A frontend walks its own syntax (Python ``ast`` or pycparser's ``c_ast``) and speaks to
the builder in neutral terms: a :class:`Place` (enclosing iterators, the conditions that
hold there, enclosing loop ids), loops opened with :meth:`ScopBuilder.open_loop`,
assignments recorded with :meth:`ScopBuilder.add`.  For example::

    for i in range(n):                  for (i = 0; i < n; i++)
        if i > 0:                         if (i > 0)
            B[i] = A[i - 1]                 B[i] = A[i - 1];

both give loop ``L0`` and statement ``S0`` with

    domain   [n] -> { S0[i] : i >= 0 and i < n and i > 0 }
    write    S0[i] -> B[i]          on the domain
    read     S0[i] -> A[i - 1]      on the domain
    schedule Band(L0: S0 -> i) over Leaf(S0)

Reads under a guard.  An ``if`` statement's test is part of the domain: where it fails
the statement does not run, so neither its write nor its reads happen there.  A read in
a branch of a conditional expression (``A[i - 1] if i > 0 else 0.0`` in Python,
``i > 0 ? A[i - 1] : 0`` in C) or in a short-circuit operand carries the affine test
that selects it as
:attr:`Load.guard <polyopt.model.expr.Load.guard>`, and its access relation is the
domain restricted to where that guard holds: both languages evaluate only the chosen
branch, so counting the read elsewhere would invent dependences and out-of-bounds reads
(``A[-1]`` at ``i = 0``) the program does not have.  A read with a data-dependent test
keeps the whole domain, a safe over-approximation.  The same element read under
several guards is read where any of them holds, and anywhere when one read is
unguarded.  This was the Python frontend's rule; the C frontend used to count every
read on the whole domain, and now marks guards too (a C test counts as affine only in
the parameters the region already has, so that a value's test adds none).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from polyopt.model import isl_text
from polyopt.model.aff import TRUE, Aff, Cmp, Divisible, Formula, Lin, Or, conj, pieces
from polyopt.model.errors import SourceLocation
from polyopt.model.expr import Expr, Load, Name, walk
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, Node, statements
from polyopt.model.schedule_tree import Sequence as SequenceNode
from polyopt.model.scop import Access, Loop, Requirement, Statement


@dataclass(frozen=True)
class Place:
    """Where a statement sits: enclosing iterators and loop ids (outermost first) and the
    conditions that hold there (loop bounds and ``if`` tests)."""

    iters: tuple[str, ...] = ()
    conds: tuple[Formula, ...] = ()
    loops: tuple[str, ...] = ()

    @property
    def top(self) -> bool:
        """Outside every loop and ``if``."""
        return not self.iters and not self.conds

    def where(self, cond: Formula) -> Place:
        """This place under one more condition (an ``if`` branch)."""
        return Place(self.iters, (*self.conds, cond), self.loops)


@dataclass(frozen=True)
class _Assignment:
    """One recorded ``target[indices] = value``, before its isl sets are built."""

    name: str
    place: Place
    target: str
    indices: tuple[Lin, ...]
    value: Expr
    update_op: str | None
    location: SourceLocation
    read_at: tuple[tuple[str, SourceLocation], ...]


def loop_bounds(var: str, start: Aff, step: int, stop: Formula) -> Formula:
    """The iterator's range: ``var >= start`` (``<=`` when ``step`` is negative) and
    ``stop``, plus ``var = start (mod |step|)`` for a step other than 1 or -1."""
    v = Lin.var(var)
    bounds = conj(Cmp(">=", v, start) if step > 0 else Cmp("<=", v, start), stop)
    if abs(step) != 1:
        cases = [conj(*g, Divisible(v - lin, abs(step))) for g, lin in pieces(start)]
        bounds = conj(bounds, cases[0] if len(cases) == 1 else Or(tuple(cases)))
    return bounds


def sequence(nodes: Sequence[Node]) -> Node:
    """One schedule node for ``nodes`` in order (the empty sequence for none)."""
    return nodes[0] if len(nodes) == 1 else SequenceNode(tuple(nodes))


def loop_band(loop_id: str, var: str, step: int, body: Sequence[Node]) -> list[Node]:
    """The band of loop ``loop_id`` over ``body`` (nothing for an empty body); a
    decreasing loop is scheduled by ``-var``."""
    if not body:
        return []
    child = sequence(body)
    v = Lin.var(var)
    expr = v if step > 0 else -v
    return [Band((LoopDim(loop_id, var, tuple((s, expr) for s in statements(child))),), child)]


class ScopBuilder:
    """Loops and statements in the order the frontend meets them; ids ``L0, L1...`` and
    ``S0, S1...`` follow that order."""

    def __init__(self) -> None:
        self.loops: dict[str, Loop] = {}
        self._assignments: list[_Assignment] = []
        self._requirements: list[tuple[Place, Lin, str]] = []

    def new_loop(self, outer: tuple[str, ...], var: str, location: SourceLocation,
                 prange: bool = False, step: int = 1, swapped: bool = False) -> str:
        """Register a loop of iterator ``var`` inside the loops ``outer``; its id."""
        loop_id = f"L{len(self.loops)}"
        self.loops[loop_id] = Loop(loop_id, var, location, len(outer), outer[-1] if outer else None,
                                   prange, step, swapped)
        return loop_id

    def open_loop(self, place: Place, var: str, bounds: Formula, location: SourceLocation,
                  prange: bool = False, step: int = 1, swapped: bool = False) -> Place:
        """The place inside a new loop of ``var`` over ``bounds`` at ``place`` (``prange``:
        the user asks for it to run in parallel; ``step``: the iterator's step;
        ``swapped``: it is in the second copy of a double-buffered loop's body)."""
        loop_id = self.new_loop(place.loops, var, location, prange, step, swapped)
        return Place((*place.iters, var), (*place.conds, bounds), (*place.loops, loop_id))

    def add(self, place: Place, target: str, indices: tuple[Lin, ...], value: Expr,
            update_op: str | None, location: SourceLocation,
            read_at: tuple[tuple[str, SourceLocation], ...] = ()) -> Leaf:
        """Record ``target[indices] = value`` at ``place``; its schedule leaf."""
        name = f"S{len(self._assignments)}"
        self._assignments.append(_Assignment(name, place, target, indices, value, update_op,
                                             location, read_at))
        return Leaf(name)

    def require_nonnegative(self, place: Place, bound: Lin, text: str) -> None:
        """Record a value (a slice bound, a subscript's distance to its dimension's ends)
        evaluated at ``place`` that must not be negative there."""
        self._requirements.append((place, bound, text))

    def requirements(self, params: tuple[str, ...]) -> tuple[Requirement, ...]:
        """Each recorded value with the sizes for which it is negative somewhere (once per
        text and sizes: a subscript lowered for each element of its statement)."""
        out: dict[tuple[str, str], Requirement] = {}
        for place, bound, text in self._requirements:
            below = conj(*place.conds, Cmp("<", bound, Lin.constant(0)))
            bad = isl_text.make_set(params, "B", place.iters, below).params()
            if not bad.is_empty():
                out.setdefault((text, str(bad)), Requirement(bad, text))
        return tuple(out.values())

    def statements(self, params: tuple[str, ...], scalars: Collection[str]) -> tuple[Statement, ...]:
        """Every recorded assignment as a Statement; reads of the local ``scalars`` are
        accesses (zero-dimensional), other names are values."""
        return tuple(_statement(a, params, scalars) for a in self._assignments)


def _statement(a: _Assignment, params: tuple[str, ...], scalars: Collection[str]) -> Statement:
    iters = a.place.iters
    cond = conj(*a.place.conds)
    domain = isl_text.make_set(params, a.name, iters, cond)
    write_rel = isl_text.make_map(params, a.name, iters, a.target, a.indices)
    write = Access(f"{a.name}.w", a.name, a.target, a.indices, True, write_rel.intersect_domain(domain))
    reads: list[Access] = []
    for (target, indices), guards in _reads(a.value, scalars).items():
        where = domain
        if TRUE not in guards:  # read only where one of its guards holds
            guard = guards[0] if len(guards) == 1 else Or(tuple(guards))
            where = isl_text.make_set(params, a.name, iters, conj(cond, guard))
        rel = isl_text.make_map(params, a.name, iters, target, indices).intersect_domain(where)
        reads.append(Access(f"{a.name}.r{len(reads)}", a.name, target, indices, False, rel))
    return Statement(
        name=a.name, iterators=iters, domain=domain, target=a.target, indices=a.indices,
        value=a.value, update_op=a.update_op, loops=a.place.loops, location=a.location,
        read_at=a.read_at, write=write, reads=tuple(reads),
    )


def _reads(value: Expr, scalars: Collection[str]) -> dict[tuple[str, tuple[Lin, ...]], list[Formula]]:
    """Each element ``value`` reads, in order of first read, with the guards it is read
    under (TRUE for an unguarded read)."""
    refs: dict[tuple[str, tuple[Lin, ...]], list[Formula]] = {}
    for n in walk(value):
        if isinstance(n, Load):
            refs.setdefault((n.array, n.indices), []).append(n.guard)
    scalar_reads = [n for n in walk(value) if isinstance(n, Name) and n.name in scalars]
    for n in sorted(scalar_reads, key=lambda n: n.name):
        refs.setdefault((n.name, ()), []).append(n.guard)
    return refs
