"""The ``#pragma omp`` line of a marked loop::

    LoopMark(parallel=True, simd=True, reductions=(("+", "s"),))
    ->  #pragma omp parallel for simd schedule(static) if(polyopt_team) reduction(+:s)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from polyopt.backend_c.dialect import Dialect
from polyopt.backend_c.peeled import PeeledMark

from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import Scop


class Pragmas:
    """Writes the OpenMP pragmas of one C function.

    ``team`` is the flag of ``parallel for ... if(flag)`` (small calls run on one
    thread); ``team_used`` says whether some printed text reads it.  ``named`` hears of
    every scalar a clause names: an outlined body must declare it even when no statement
    of the body is printed (one that never runs still has its private scalar).
    """

    def __init__(self, scop: Scop, openmp: bool, dialect: Dialect,
                 named: Callable[[Iterable[str]], None]) -> None:
        self.scop = scop
        self.openmp = openmp
        self.dialect = dialect
        self.named = named
        self.team: str | None = None
        self.team_used = False

    def team_condition(self) -> str:
        """The C condition under which a parallel region may use several threads."""
        if self.team is None:
            return "1"
        self.team_used = True
        return self.team

    def loop(self, mark: LoopMark, rename: dict[str, str] | None = None,
             team_clause: bool = True) -> str | None:
        """The pragma of a loop (``parallel for`` or ``simd``), or None for none.
        ``rename``: reduced variables held in register accumulators instead;
        ``team_clause``: a ``parallel for`` asks the team flag (``if(...)``), unless
        the code around it already did."""
        rename = rename or {}
        if not self.openmp or not (mark.parallel or mark.simd):
            return None
        if not mark.parallel and any(
                var in self.scop.arrays and var not in rename for _, var in mark.reductions):
            # A simd loop reduces into an array only through its register accumulator
            # (LICM).  Without it, a `reduction(op:A[0:n])` on a simd loop would combine
            # every lane's copy into the whole shared array: a race inside a parallel
            # loop.  Leave the loop to the compiler instead.
            return None
        if not self.dialect.may_reduce(mark, rename):
            return None
        if not mark.parallel:
            return self._line(["simd"], mark, rename)
        head = ["parallel for", *(["simd"] if mark.simd else []), _schedule(mark)]
        if self.team is not None and team_clause:
            head.append(f"if({self.team_condition()})")
        return self._line(head, mark, rename)

    def worksharing(self, mark: LoopMark, lastprivate: tuple[str, ...]) -> str:
        """The pragma of a parallel loop inside a ``parallel`` region already (``omp
        for``, no simd), with ``lastprivate`` variables."""
        head = ["for", _schedule(mark)]
        if lastprivate:
            # firstprivate too: a loop of no iteration has no last one, and gcc then copies
            # out some thread's private value, uninitialized unless it starts as the
            # original's (a wild pointer to copy back from: hostile finding 03)
            names = ", ".join(lastprivate)
            head.append(f"firstprivate({names}) lastprivate({names})")
        return self._line(head, mark, {})

    def _line(self, head: list[str], mark: LoopMark, rename: dict[str, str]) -> str:
        parts = ["#pragma omp", *head]
        self.named((*mark.private, *mark.firstprivate))
        if mark.private:
            parts.append(f"private({', '.join(mark.private)})")
        if mark.firstprivate and mark.parallel:
            parts.append(f"firstprivate({', '.join(mark.firstprivate)})")
        if isinstance(mark, PeeledMark) and mark.lastprivate:
            parts.append(f"lastprivate({', '.join(mark.lastprivate)})")
        for op, var in mark.reductions:
            parts.append(f"reduction({op}:{rename.get(var) or self.dialect.reduction_target(var)})")
        return " ".join(parts)


def _schedule(mark: LoopMark) -> str:
    """Tiles are dealt one at a time, to whichever thread is free: a triangular domain's
    tiles differ in size.  Where a reduction or a private array's copy-back depends on
    which thread ran which iteration, the split is fixed (round-robin) instead, so that
    every call rounds the same way."""
    if mark.round_robin and not mark.reductions and not mark.private_arrays:
        return "schedule(dynamic, 1)"
    return "schedule(static, 1)" if mark.round_robin else "schedule(static)"
