"""A C region's register-tiled micro-kernels as functions of the file, for gcc's sake.

gcc 12 loop-vectorizes a micro-kernel's ``k`` loop across the rows of its register
tile, which runs it several times slower (backend_c/outline.py); only a function
attribute stops that without also disabling the ``omp simd`` loops around it.  A
region is a block inside the user's function, so its micro-kernels become static
functions inserted just before that function, taking what they use::

    static void kernel_gemm(...)             static void polyopt_kernel_gemm_micro0(int ni,
    {                                            ..., double C[][1100], double (*A_pk)[8][1200],
      ...                                        ..., int c3, int c4)
      for (...) {                  ->        { ...the register tile's loop... }
        { ...register tile... }              static void kernel_gemm(...)
      }                                      { ... polyopt_kernel_gemm_micro0(ni, ..., c3, c4); }

The file's arrays are passed with the extents the file declares (a parameter array
``double C[NI][NJ]`` as ``double C[][NJ]``), the region's panels (heap buffers) as
pointers to their rows, the sizes, scalars and loop counters by value.  A tile this
cannot express (an array local to the function, an extent naming something the helper
cannot see, a region whose function's first line is unknown) stays in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import islpy as isl
from polyopt.backend_c.outline import NO_LOOP_VECTORIZE
from polyopt.backend_c.statements import Usage

from polyopt.model.c_region import CRegion
from polyopt.model.expr import names_read
from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import ArrayKind, Scop, Statement

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class RegionOutliner:
    """Collects a region's micro-kernels as helper functions (``helpers``), for the file
    to insert before the region's function.  ``code_emit(depth, text)`` prints a line of
    the region; ``counters`` are the loop counters in scope, outermost first."""

    def __init__(self, region: CRegion, scop: Scop, code_emit: Callable[[int, str], None],
                 counters: list[str], index_type: str, ctypes: Mapping[str, str],
                 panel_rows: Callable[[str], list[str]], helper_macros: Mapping[str, str],
                 taken: set[str]) -> None:
        self.region = region
        self.scop = scop
        self.emit = code_emit
        self.counters = counters
        self.index_type = index_type
        self.ctypes = ctypes  # C type of each scalar and array element, by name
        self.panel_rows = panel_rows  # a panel's extents after the first, as C
        self.helper_macros = helper_macros
        self.taken = taken
        self.helpers: list[str] = []

    def outlines_body(self, mark: LoopMark, body: isl.AstNode) -> bool:
        return False  # parallel bodies stay: OpenMP outlines them itself, sharing the arrays

    def parallel_body(self, body: isl.AstNode, depth: int, mark: LoopMark,
                      print_node: Callable[[isl.AstNode, int], None]) -> None:
        raise AssertionError("a region outlines micro-kernels only")

    def micro_kernel(self, stmt: Statement, lines: list[str], usage: Usage, depth: int) -> None:
        """``lines`` (a register tile's loop, with its origin locals) as a call of a new
        helper, or in place, in a block, where the helper cannot be written."""
        params = self._params(stmt, usage)
        if params is None:
            self.emit(depth, "{")
            for line in lines:
                self.emit(depth, line)
            self.emit(depth, "}")
            return
        region = self.region  # the file's regions are numbered: two in one function differ
        within = "" if region.index == 1 else f"_region{region.index}"
        name = self._fresh(f"polyopt_{region.function}{within}_micro{len(self.helpers)}")
        text = "\n".join(lines)
        macros = [m for m in self.helper_macros if re.search(rf"\b{m}\b", text)]
        self.helpers.append(
            NO_LOOP_VECTORIZE + f"static void {name}({', '.join(d for d, _ in params)})\n{{\n"
            + "".join(f"  {self.helper_macros[m]}\n" for m in macros) + text + "\n"
            + "".join(f"  #undef {m}\n" for m in macros) + "}\n")
        self.emit(depth, f"{name}({', '.join(a for _, a in params)});")

    def _params(self, stmt: Statement, usage: Usage) -> list[tuple[str, str]] | None:
        """(declaration, argument) of each parameter: sizes and counters first (array
        extents may name them), then scalars, then arrays; None where one cannot be
        declared outside the function."""
        region = self.region
        if usage.raises or not region.function_line:
            return None
        # the parameters standing for extents C does not give exist in the model only
        ints = [(f"{t} {p}", p) for p, t in region.params.items()
                if p not in region.extent_params]
        ints += [(f"{self.index_type} {c}", c) for c in self.counters]
        visible = {a for _, a in ints}
        scalars = sorted((names_read(stmt.value) | usage.mentioned) & set(self.scop.scalars))
        out = ints + [(f"{self.ctypes[n]} {n}", n) for n in scalars if n not in visible]
        for array in dict.fromkeys([stmt.target, *(r.target for r in stmt.reads)]):
            declared = self._array(array, visible)
            if declared is None:
                return None
            if declared:
                out.append((declared, array))
        return out

    def _array(self, name: str, visible: set[str]) -> str | None:
        """An array parameter's declaration; "" for a file-scope array (the helper sees
        it); None when it cannot be declared there."""
        region = self.region
        if name in self.scop.arrays and self.scop.arrays[name].kind is ArrayKind.TEMPORARY \
                and name not in region.arrays:
            rows = "".join(f"[{d}]" for d in self.panel_rows(name))
            return f"{self.ctypes[name]} (*restrict {name}){rows}" if rows else \
                f"{self.ctypes[name]} *restrict {name}"
        c = region.arrays.get(name)
        if c is None or c.scope not in ("param", "file") or not c.dims:
            return None
        if c.scope == "file":
            return ""
        rest = c.dims[1:]
        if any(d is None for d in rest):
            return None  # a pointer to pointers: no single type describes its rows
        names = {n for d in rest if d is not None for n in _IDENTIFIER.findall(d)}
        if names & set(region.function_params) - visible:
            return None  # an extent given by a parameter the region does not pass
        # the first extent never matters to C (double A[][20] is double (*A)[20]), and a
        # pointer parameter (double *p) is declared the same way
        return f"{c.base} {name}[]" + "".join(f"[{d}]" for d in rest)

    def _fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name
