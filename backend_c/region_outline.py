"""A C region's register-tiled micro-kernels and parallel loop bodies as functions of
the file, for gcc's sake.

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

A ``parallel for`` body that holds a loop becomes a helper too, its arrays ``restrict``
(C regions assume that distinct arrays do not overlap, README): OpenMP would outline
it itself, reaching the arrays through a struct without ``restrict``, and gcc then
keeps nothing in registers across iterations (adi's sweeps reload ``p[i][j - 1]``,
just stored, on their chain of divisions).

The file's arrays are passed with the extents the file declares (a parameter array
``double C[NI][NJ]`` as ``double C[][NJ]``), the region's panels (heap buffers) as
pointers to their rows, the sizes, scalars and loop counters by value.  A body this
cannot express (an array local to the function, an extent naming something the helper
cannot see, a region whose function's first line is unknown, a scalar the body assigns
and the loop shares) stays in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import islpy as isl
from polyopt.backend_c.code import Code
from polyopt.backend_c.isl_ast import NodeKind, block_children, node_kind, user_call
from polyopt.backend_c.outline import NO_LOOP_VECTORIZE, OPAQUE, holds_loop
from polyopt.backend_c.peeled import PeeledMark
from polyopt.backend_c.pragma import Pragmas
from polyopt.backend_c.statements import Usage

from polyopt.model.c_region import CRegion
from polyopt.model.expr import names_read
from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import ArrayKind, Scop, Statement


class RegionOutliner:
    """Collects a region's micro-kernels as helper functions (``helpers``), for the file
    to insert before the region's function.  ``code_emit(depth, text)`` prints a line of
    the region; ``counters`` are the loop counters in scope, outermost first."""

    def __init__(self, region: CRegion, scop: Scop, code: Code, pragmas: Pragmas,
                 counters: list[str], index_type: str, ctypes: Mapping[str, str],
                 panel_rows: Callable[[str], list[str]], helper_macros: Mapping[str, str],
                 taken: set[str]) -> None:
        self.region = region
        self.scop = scop
        self.code = code
        self.emit = code.emit
        self.pragmas = pragmas
        self.openmp = pragmas.openmp
        self.counters = counters
        self.index_type = index_type
        self.ctypes = ctypes  # C type of each scalar and array element, by name
        self.panel_rows = panel_rows  # a panel's extents after the first, as C
        self.helper_macros = helper_macros
        self.taken = taken
        self.helpers: list[str] = []
        self.bodies = 0  # parallel bodies and micro-kernels are numbered apart
        self.micro_kernels = 0

    def outlines_body(self, mark: LoopMark, body: isl.AstNode) -> bool:
        """Whether a parallel loop's body becomes a helper: one that holds a loop, with no
        reduction and no copied-in or copied-out scalar, whose parameters can be written."""
        return (self.openmp and mark.parallel and not mark.reductions and not mark.firstprivate
                and not (isinstance(mark, PeeledMark) and mark.lastprivate)
                and holds_loop(body) and self._body_params(body, mark) is not None)

    def parallel_body(self, body: isl.AstNode, depth: int, mark: LoopMark,
                      print_node: Callable[[isl.AstNode, int], None]) -> None:
        """Print ``body`` (a parallel loop's) as a call of a new helper."""
        params = self._body_params(body, mark)
        assert params is not None  # outlines_body
        team, self.pragmas.team = self.pragmas.team, None  # not in scope in the helper
        try:
            with self.code.capture() as lines:
                print_node(body, 1)
        finally:
            self.pragmas.team = team
        self.bodies += 1
        name = self._fresh(f"polyopt_{self._stem()}_body{self.bodies - 1}")
        text = "\n".join(lines)
        private = "".join(f"  {self.ctypes[n]} {n};\n" for n in mark.private
                          if re.search(rf"\b{n}\b", text))
        # after the micro-kernels the body calls, which printing it added
        self.helpers.append(self._function(
            OPAQUE, name, params, private + text))
        self.emit(depth, f"{name}({', '.join(a for _, a in params)});")

    def _body_params(self, body: isl.AstNode,
                     mark: LoopMark) -> list[tuple[str, str]] | None:
        """The helper's parameters for a parallel ``body``: what its statements read and
        write, the arrays ``restrict``; None where some cannot be passed."""
        stmts = [self.scop.statement(n) for n in _statements(body)]
        scalars: set[str] = set()
        arrays: dict[str, None] = {}
        for st in stmts:
            if st.target in self.scop.scalars:
                if st.target not in mark.private:
                    return None  # a shared scalar assigned: passed by value, lost
            elif st.target in self.scop.arrays:
                arrays[st.target] = None
            scalars |= names_read(st.value) & set(self.scop.scalars)
            arrays.update((a.target, None) for a in st.accesses if a.target in self.scop.arrays)
        if any(self.scop.arrays[a].rank == 0 for a in arrays):
            return None  # a scalar that flows in or out of the region: the body shares it
        return self._params(sorted(scalars - set(mark.private)), list(arrays), True)

    def micro_kernel(self, stmt: Statement, lines: list[str], usage: Usage, depth: int) -> None:
        """``lines`` (a register tile's loop, with its origin locals) as a call of a new
        helper, or in place, in a block, where the helper cannot be written."""
        scalars = sorted((names_read(stmt.value) | usage.mentioned) & set(self.scop.scalars))
        arrays = list(dict.fromkeys([stmt.target, *(r.target for r in stmt.reads)]))
        # counters as long: gcc 12 vectorizes the tile's loads of an unpacked operand
        # (trmm's B[c5][32 * c3 + 1], ...) only where 32 * c3 + 1 is 64-bit arithmetic
        params = None if usage.raises else self._params(scalars, arrays, False, "long")
        if params is None:
            self.emit(depth, "{")
            for line in lines:
                self.emit(depth, line)
            self.emit(depth, "}")
            return
        self.micro_kernels += 1
        name = self._fresh(f"polyopt_{self._stem()}_micro{self.micro_kernels - 1}")
        self.helpers.append(self._function(NO_LOOP_VECTORIZE, name, params, "\n".join(lines)))
        self.emit(depth, f"{name}({', '.join(a for _, a in params)});")

    def _stem(self) -> str:
        region = self.region  # the file's regions are numbered: two in one function differ
        return region.function + ("" if region.index == 1 else f"_region{region.index}")

    def _function(self, attributes: str, name: str, params: list[tuple[str, str]],
                  text: str) -> str:
        """A helper's definition, with the region's macros that ``text`` uses."""
        macros = [m for m in self.helper_macros if re.search(rf"\b{m}\b", text)]
        return (attributes + f"static void {name}({', '.join(d for d, _ in params)})\n{{\n"
                + "".join(f"  {self.helper_macros[m]}\n" for m in macros) + text + "\n"
                + "".join(f"  #undef {m}\n" for m in macros) + "}\n")

    def _params(self, scalars: list[str], arrays: list[str], restrict: bool,
                counter_type: str | None = None) -> list[tuple[str, str]] | None:
        """(declaration, argument) of each parameter: sizes and counters first (array
        extents may name them; the counters of ``counter_type``, else the region's),
        then ``scalars``, then ``arrays`` (``restrict`` ones where asked); None where
        one cannot be declared outside the function."""
        region = self.region
        if not region.function_line:
            return None
        # the parameters standing for extents C does not give exist in the model only
        ints = [(f"{t} {p}", p) for p, t in region.params.items()
                if p not in region.extent_params]
        ints += [(f"{counter_type or self.index_type} {c}", c) for c in self.counters]
        visible = {a for _, a in ints}
        out = ints + [(f"{self.ctypes[n]} {n}", n) for n in scalars if n not in visible]
        for array in arrays:
            declared = self._array(array, restrict)
            if declared is None:
                return None
            out += declared
        return out

    def _array(self, name: str, restrict: bool) -> list[tuple[str, str]] | None:
        """An array parameter (declaration, argument), after those of the extents its
        declaration names; None when it cannot be declared outside the function.

        A file-scope array is passed too: inside a loop on per-thread copies its name
        stands for this thread's copy (region_copies.py).  An extent that is not a
        number is passed as the array's own type gives it (``sizeof(A[0]) /
        sizeof(A[0][0])``): a variable-length array keeps the extents it was declared
        with, whatever its size variables hold now.  A number is passed so too: it may
        be a macro's value (``double C[NI][NJ]``), and the file may be compiled with
        another ``-DNJ``; gcc's constant propagation gives the helper the number back."""
        region = self.region
        if name in self.scop.arrays and self.scop.arrays[name].kind is ArrayKind.TEMPORARY \
                and name not in region.arrays:
            rows = "".join(f"[{d}]" for d in self.panel_rows(name))
            return [(f"{self.ctypes[name]} (*restrict {name}){rows}" if rows else
                     f"{self.ctypes[name]} *restrict {name}", name)]
        c = region.arrays.get(name)
        if c is None or c.scope not in ("param", "file") or not c.dims:
            return None
        if any(d is None for d in c.dims[1:]):
            return None  # a pointer to pointers: no single type describes its rows
        out: list[tuple[str, str]] = []
        rows = ""
        for k in range(1, len(c.dims)):
            extent = f"polyopt_extent_{name}_{k}"
            while extent in self.taken:  # a parameter of this helper alone: not taken
                extent += "_"
            out.append((f"long {extent}",
                        f"(long)(sizeof({name}{'[0]' * k}) / sizeof({name}{'[0]' * (k + 1)}))"))
            rows += f"[{extent}]"
        # the first extent never matters to C (double A[][20] is double (*A)[20]), and a
        # pointer parameter (double *p) is declared the same way
        # `const` as declared: passing a `const double *` to a `double *` warns
        const = "const " if c.const else ""
        out.append((f"{const}{c.base} {name}[{'restrict' if restrict else ''}]{rows}", name))
        return out

    def _fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


def _statements(node: isl.AstNode) -> list[str]:
    """The names of the statements the isl AST ``node`` runs."""
    kind = node_kind(node)
    if kind is NodeKind.USER:
        return [user_call(node)[0]]
    if kind is NodeKind.BLOCK:
        return [s for child in block_children(node) for s in _statements(child)]
    if kind is NodeKind.FOR:
        return _statements(node.for_get_body())
    if kind is NodeKind.IF:
        return _statements(node.if_get_then_node()) + (
            _statements(node.if_get_else_node()) if node.if_has_else_node() else [])
    return _statements(node.mark_get_node())  # NodeKind.MARK
