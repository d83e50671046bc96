"""Parallel loops whose threads each work on their own heap copy of some arrays.

- A private array (:func:`polyopt.analysis.parallel` proves it legal): each copy
  starts as the array; ``lastprivate`` names the copy that ran the sequentially
  last iteration, and that one is copied back.  A scratch array (dead after each
  iteration: a row buffer) is neither copied in nor back.
- An array reduction: each copy starts at the operator's identity (``min``/``max``
  start from the array itself, which they may see twice); after the loop the team
  adds the copies into the array, each thread a block of elements.

One block of ``omp_get_max_threads()`` copies is allocated per array, and the loop
body sees the copy under the array's name.  Without memory for the copies, or off
the team, the loop runs on one thread in the arrays themselves::

    {
      double *polyopt_pool_A = ... malloc(... * omp_get_max_threads()) : 0;
      #pragma omp parallel if(polyopt_pool_A)
      {
        double *const polyopt_own_A = ...;
        #pragma omp for schedule(static)
        for (...) {
          { double *restrict A = polyopt_own_A;
            ...   // the loop body, on this thread's A
          }
        }
        ...   // the team combines reduction copies
      }
      ...   // copy back, free
    }
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Protocol

from polyopt.backend_c.ast_expr import LoopHeader
from polyopt.backend_c.cexpr import lin
from polyopt.backend_c.code import Code, fresh
from polyopt.backend_c.dialect import Dialect
from polyopt.backend_c.pragma import Pragmas

from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import Scop


def array_reductions(scop: Scop, mark: LoopMark) -> dict[str, str]:
    """Array reduced into -> operator."""
    return {v: op for op, v in mark.reductions if v in scop.arrays}


def without_array_copies(scop: Scop, mark: LoopMark) -> LoopMark:
    """``mark`` without its private arrays and array reductions."""
    reduced = array_reductions(scop, mark)
    return replace(mark, private_arrays=(),
                   reductions=tuple((op, v) for op, v in mark.reductions if v not in reduced))


@dataclass(frozen=True)
class _Copy:
    """The C names of one array's per-thread copies."""

    array: str
    ctype: str
    op: str | None  # the reduction's operator; None for a private array
    n: str  # element count
    pool: str  # every thread's copy, or 0
    own: str  # this thread's copy
    last: str  # the copy that ran the last iteration (private arrays)


@dataclass(frozen=True)
class CopiedLoop:
    """A loop opened by :meth:`PrivateCopies.open`: print it at ``depth`` with
    ``mark``, ``prologue`` first in its body and ``epilogue`` last, then close it."""

    depth: int
    mark: LoopMark
    prologue: tuple[str, ...]
    epilogue: tuple[str, ...]
    copies: tuple[_Copy, ...]
    kept: tuple[_Copy, ...]  # the private copies copied back
    element: str  # the element counter of the copy loops
    outer: int  # the depth of the block around it all


class CopyWriter(Protocol):
    """Writes the code around a loop that runs on per-thread array copies."""

    def can_copy(self, mark: LoopMark) -> bool:
        """Whether the loop's copies are of a kind this writer makes."""
        ...

    def open(self, depth: int, mark: LoopMark, loop: LoopHeader) -> CopiedLoop:
        """Allocate the copies, open the parallel region, print the pragma of ``loop``."""
        ...

    def close(self, loop: CopiedLoop) -> None:
        """Finish the copies (combine, copy back, free) and close the region."""
        ...


class PrivateCopies:
    """Writes the code around a loop that runs on per-thread array copies."""

    def __init__(self, code: Code, scop: Scop, pragmas: Pragmas, dialect: Dialect,
                 taken: Collection[str]) -> None:
        self.code = code
        self.scop = scop
        self.pragmas = pragmas
        self.dialect = dialect
        self.taken = taken
        self.used = False  # whether some loop was printed this way (prelude.PRIVATE_ARRAYS)

    def can_copy(self, mark: LoopMark) -> bool:
        return True

    def open(self, depth: int, mark: LoopMark, loop: LoopHeader) -> CopiedLoop:
        """Allocate and fill the copies, open the parallel region and print the
        loop's ``omp for`` pragma."""
        self.used = True
        emit = self.code.emit
        team = self.pragmas.team_condition()
        reduced = array_reductions(self.scop, mark)
        emit(depth, "{")
        d = depth + 1
        copies = tuple(
            _Copy(x, self.dialect.element_ctype(x), reduced.get(x),
                  *(fresh(f"polyopt_{k}_{x}", self.taken) for k in ("n", "pool", "own", "last")))
            for x in (*mark.private_arrays, *reduced))
        for c in copies:
            size = " * ".join(f"({lin(e)})" for e in self.scop.arrays[c.array].shape) or "1"
            emit(d, f"const size_t {c.n} = (size_t)({size});")
            emit(d, f"{c.ctype} *{c.pool} = ({team}) && omp_get_max_threads() > 1 ? "
                 f"({c.ctype} *)malloc(sizeof({c.ctype}) * {c.n} * "
                 "(size_t)omp_get_max_threads()) : 0;")
            if self._kept(c, mark):
                emit(d, f"{c.ctype} *{c.last} = 0;")
        emit(d, f"#pragma omp parallel if({' && '.join(c.pool for c in copies)})")
        emit(d, "{")
        e = fresh("polyopt_e", self.taken)
        for c in copies:
            emit(d + 1, f"{c.ctype} *const {c.own} = {c.pool} ? "
                 f"{c.pool} + {c.n} * (size_t)omp_get_thread_num() : {c.array};")
            if c.op in ("+", "*"):
                emit(d + 1, f"if ({c.pool}) for (size_t {e} = 0; {e} < {c.n}; {e} += 1) "
                     f"{c.own}[{e}] = ({c.ctype})({0 if c.op == '+' else 1});")
            elif c.array not in mark.scratch_arrays:
                emit(d + 1, f"if ({c.pool}) memcpy({c.own}, {c.array}, sizeof({c.ctype}) * {c.n});")
        inner = without_array_copies(self.scop, mark)  # outlined as a parallel body if it can be
        kept = tuple(c for c in copies if self._kept(c, mark))
        emit(d + 1, self.pragmas.worksharing(inner, tuple(c.last for c in kept)))
        # inside the body, the copies' names shadow the arrays'
        prologue = (*(f"{c.last} = {c.own};" for c in kept),
                    "{ " + " ".join(f"{c.ctype} *restrict {c.array} = {c.own};" for c in copies))
        return CopiedLoop(d + 1, inner, prologue, ("}",), copies, kept, e, depth)

    def close(self, loop: CopiedLoop) -> None:
        """Combine the reduction copies, copy the private ones back, free them all."""
        emit = self.code.emit
        d, e = loop.outer + 1, loop.element
        for c in loop.copies:
            if c.op is None:
                continue
            k = fresh("polyopt_t", self.taken)
            x, other = f"{c.array}[{e}]", f"{c.pool}[{k} * {c.n} + {e}]"
            combined = {"+": f"{x} + {other}", "*": f"{x} * {other}",
                        "min": f"({other} < {x} ? {other} : {x})",
                        "max": f"({other} > {x} ? {other} : {x})"}[c.op]
            # after the loop's barrier: the team combines the copies, a block of elements each
            emit(d + 1, f"if ({c.pool}) {{")
            emit(d + 2, "#pragma omp for schedule(static)")
            emit(d + 2, f"for (size_t {e} = 0; {e} < {c.n}; {e} += 1)")
            emit(d + 3, f"for (int {k} = 0; {k} < omp_get_num_threads(); {k} += 1) "
                 f"{x} = {combined};")
            emit(d + 1, "}")
        emit(d, "}")
        for c in loop.copies:
            emit(d, f"if ({c.pool}) {{")
            if c in loop.kept:
                emit(d + 1, f"if ({c.last}) memcpy({c.array}, {c.last}, sizeof({c.ctype}) * {c.n});")
            emit(d + 1, f"free({c.pool});")
            emit(d, "}")
        emit(loop.outer, "}")

    @staticmethod
    def _kept(c: _Copy, mark: LoopMark) -> bool:
        """Whether the copy that ran the last iteration is copied back (private arrays)."""
        return c.op is None and c.array not in mark.scratch_arrays
