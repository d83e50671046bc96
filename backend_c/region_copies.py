"""Parallel loops of a C region whose threads each work on their own copy of an array.

The kernel path's copies (:mod:`polyopt.backend_c.private_copies`) lean on a prelude
(``<omp.h>``, ``<string.h>``) that a region, printed into the user's file, cannot add.
A region's copies use compiler builtins only and are allocated by each thread of the
team, so the block needs no OpenMP runtime call and still runs, on one thread, when
the file is compiled without OpenMP.  Only private arrays (:func:`polyopt.analysis.
verdicts._private_array`) are copied here, and only arrays laid out as one block
(:meth:`polyopt.model.c_region.CRegion.copy_rows`); a loop that needs anything else
runs in order.  Types come from the array itself (``__typeof__``, ``sizeof``), so a
variable-length array keeps the extents it was declared with.  For doitgen's ``sum``,
private to each ``(r, q)``::

    if (0 < nr) {  // the loop's first test: nothing is copied for a loop that does not run
      __typeof__(&sum[0] + 0) polyopt_last_sum = 0;
      #pragma omp parallel
      {
        const __SIZE_TYPE__ polyopt_n_sum = (__SIZE_TYPE__)(np) * sizeof(sum[0]);  // bytes
        __typeof__(&sum[0] + 0) const polyopt_own_sum = __builtin_malloc(polyopt_n_sum + ...);
        if (!polyopt_own_sum) __builtin_abort();
        if (polyopt_n_sum) __builtin_memcpy(polyopt_own_sum, sum, polyopt_n_sum);
        #pragma omp for schedule(static) lastprivate(polyopt_last_sum)
        for (int c0 = 0; c0 < nr; c0 += 1) {
          polyopt_last_sum = polyopt_own_sum;
          { __typeof__(&sum[0] + 0) restrict sum = polyopt_own_sum;
            ...   // the loop body, on this thread's sum
          }
        }
        if (polyopt_n_sum && polyopt_own_sum == polyopt_last_sum)
          __builtin_memcpy(sum, polyopt_own_sum, polyopt_n_sum);
        __builtin_free(polyopt_own_sum);
      }
    }

The copy that ran the sequentially last iteration is the array's value after the loop
(``lastprivate`` names it, and the ``omp for``'s barrier publishes it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import islpy as isl
from polyopt.backend_c.ast_expr import LoopHeader, first_test
from polyopt.backend_c.code import Code, fresh
from polyopt.backend_c.pragma import Pragmas
from polyopt.backend_c.private_copies import CopiedLoop, array_reductions

from polyopt.model.c_region import CRegion
from polyopt.model.schedule_tree import LoopMark

#: ``size_t`` without <stddef.h>: a user's file may include no header (gcc and clang)
SIZE_TYPE = "__SIZE_TYPE__"

@dataclass(frozen=True)
class _RegionCopy:
    array: str
    n: str  # size in bytes
    own: str  # this thread's copy
    last: str  # the copy that ran the last iteration

    @property
    def pointer(self) -> str:
        """The type of a pointer to the array's rows (to its elements when 1-D), without
        the qualifiers of a parameter ``double u[const restrict 10]`` (a sum is no
        lvalue)."""
        return f"__typeof__(&{self.array}[0] + 0)"


class RegionCopies:
    """Writes the code around a region's loop that runs on per-thread array copies."""

    def __init__(self, code: Code, region: CRegion, pragmas: Pragmas,
                 count: Callable[[isl.PwAff], str], taken: Collection[str]) -> None:
        self.code = code
        self.region = region
        self.pragmas = pragmas
        self.count = count  # prints a function of the parameters in the region's terms
        self.taken = taken
        self._open: list[tuple[_RegionCopy, ...]] = []  # the copies of the loops opened

    def can_copy(self, mark: LoopMark) -> bool:
        """Whether the loop's copies are of a kind this writer makes."""
        return not array_reductions(self.region.scop, mark) and all(
            self.region.copy_rows(x) is not None for x in mark.private_arrays)

    def open(self, depth: int, mark: LoopMark, loop: LoopHeader) -> CopiedLoop:
        """Declare the copies, open the parallel region, print the loop's ``omp for``."""
        emit = self.code.emit
        copies = tuple(self._copy(x) for x in mark.private_arrays)
        self._open.append(copies)
        emit(depth, f"if ({first_test(loop)}) {{")
        d = depth + 1
        for c in copies:
            emit(d, f"{c.pointer} {c.last} = 0;")
        team = self.pragmas.team_condition()
        emit(d, "#pragma omp parallel" + ("" if team == "1" else f" if({team})"))
        emit(d, "{")
        for c in copies:
            emit(d + 1, f"const {SIZE_TYPE} {c.n} = {self._bytes(c.array)};")
            # one row more: malloc(0) may return NULL
            emit(d + 1, f"{c.pointer} const {c.own} = __builtin_malloc({c.n} + "
                 f"sizeof({c.array}[0]));")
            emit(d + 1, f"if (!{c.own}) __builtin_abort();")
            emit(d + 1, f"if ({c.n}) __builtin_memcpy({c.own}, {c.array}, {c.n});")
        inner = replace(mark, private_arrays=())
        emit(d + 1, self.pragmas.worksharing(inner, tuple(c.last for c in copies)))
        # inside the body, the copies' names shadow the arrays'
        prologue = (*(f"{c.last} = {c.own};" for c in copies),
                    "{ " + " ".join(f"{c.pointer} restrict {c.array} = {c.own};"
                                    for c in copies))
        return CopiedLoop(d + 1, inner, prologue, ("}",), (), (), "", depth)

    def close(self, loop: CopiedLoop) -> None:
        """Copy the last iteration's copies back and free them all."""
        emit = self.code.emit
        d = loop.outer + 1
        for c in self._open.pop():
            emit(d + 1, f"if ({c.n} && {c.own} == {c.last}) "
                 f"__builtin_memcpy({c.array}, {c.own}, {c.n});")
            emit(d + 1, f"__builtin_free({c.own});")
        emit(d, "}")
        emit(loop.outer, "}")

    def _copy(self, x: str) -> _RegionCopy:
        return _RegionCopy(x, *(fresh(f"polyopt_{k}_{x}", self.taken)
                                for k in ("n", "own", "last")))

    def _bytes(self, x: str) -> str:
        rows = self.region.copy_rows(x)
        assert rows is not None  # can_copy
        return f"({SIZE_TYPE})({self.count(rows)}) * sizeof({x}[0])"
