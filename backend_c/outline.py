"""Loop bodies moved into static functions, for gcc's sake::

    #pragma omp parallel for schedule(static)        static void kernel_body0(
    for (c0 = 0; c0 < n; c0 += 1) {           ->        double *restrict A, ..., int64_t c0)
      ... body ...                                  { ... body ... }
    }                                               ...
                                                    for (c0 = 0; c0 < n; c0 += 1) {
                                                      kernel_body0(A, ..., c0);
                                                    }

- A ``parallel for`` body that holds a loop: gcc compiles it as a function that
  reaches the arrays through a struct, without ``restrict``; an accumulator like
  ``tmp[i]`` then goes through memory on every inner iteration.  The outlined body's
  array parameters are ``restrict``, as the kernel's are.  A body without a loop
  stays: a call per iteration would stop gcc vectorizing a one-dimensional
  ``parallel for simd`` loop.
- A register-tiled micro-kernel: gcc 12 vectorizes its reduction loop across rows,
  which is much slower; only a function attribute stops that without also
  disabling the ``omp simd`` loops elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import islpy as isl
from polyopt.backend_c.cexpr import ERROR_FLAG, ctype
from polyopt.backend_c.code import Code
from polyopt.backend_c.isl_ast import NodeKind, block_children, node_kind
from polyopt.backend_c.peeled import PeeledMark
from polyopt.backend_c.pragma import Pragmas
from polyopt.backend_c.signature import ERROR_PARAM, CArg
from polyopt.backend_c.statements import StatementWriter, Usage

from polyopt.model.expr import names_read
from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import ScalarKind, Scop, Statement

# a micro-kernel is vectorized by gcc's SLP, not its loop vectorizer; forwprop is off
# because it left the additions of one row of trmm's unpacked-B tile with their operands
# swapped (``PHI + product`` against ``product + PHI``), and the SLP build then scalarized
# that row (docs/design/linear-algebra.md)
NO_LOOP_VECTORIZE = (
    "#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)\n"
    "__attribute__((noipa, optimize(\"no-tree-loop-vectorize\", \"no-tree-forwprop\")))\n"
    "#else\n__attribute__((noinline))\n#endif\n")

# An outlined function is opaque to its callers (gcc's noipa, which implies noinline): gcc
# 12.2's late pure-const analysis took a body whose stores ivopts had rewritten through
# an IV of another base for one without side effects (its modref summary: no stores),
# and deleted every call to it, at -O1 and above (hostile session 43a, finding 05:
# `T[i, j] = A[i, n - 2*j - 1] + A[i, 6 - j]` wrote nothing)
OPAQUE = ("#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)\n"
          "__attribute__((noipa))\n#else\n__attribute__((noinline))\n#endif\n")


class LoopOutliner(Protocol):
    """What the walker asks of an outliner (:class:`Outliner` for a kernel's function,
    :class:`~polyopt.backend_c.region_outline.RegionOutliner` for a C region)."""

    helpers: list[str]  # the functions made, to print before the code that calls them
    counters: list[str]  # the loop counters in scope, outermost first (the walker's)

    def outlines_body(self, mark: LoopMark, body: isl.AstNode) -> bool: ...

    def parallel_body(self, body: isl.AstNode, depth: int, mark: LoopMark,
                      print_node: Callable[[isl.AstNode, int], None]) -> None: ...

    def micro_kernel(self, stmt: Statement, lines: list[str], usage: Usage,
                     depth: int) -> None: ...


class Outliner:
    """Moves loop bodies into helpers (``helpers``: printed before the function).

    ``args`` are the function's own parameters, which every helper takes too;
    ``counters`` the loop counters in scope, outermost first."""

    def __init__(self, code: Code, scop: Scop, statements: StatementWriter, pragmas: Pragmas,
                 counters: list[str], args: tuple[CArg, ...], function: str,
                 index_type: str) -> None:
        self.code = code
        self.scop = scop
        self.statements = statements
        self.pragmas = pragmas
        self.counters = counters
        self.args = args
        self.function = function
        self.index_type = index_type
        self.helpers: list[str] = []

    def outlines_body(self, mark: LoopMark, body: isl.AstNode) -> bool:
        """Whether a loop's body is outlined: a parallel body that holds a loop, with no
        reduction and no copied-in or copied-out scalars."""
        return (self.pragmas.openmp and mark.parallel and not mark.reductions
                and not mark.firstprivate
                and not (isinstance(mark, PeeledMark) and mark.lastprivate)
                and holds_loop(body))

    def parallel_body(self, body: isl.AstNode, depth: int, mark: LoopMark,
                      print_node: Callable[[isl.AstNode, int], None]) -> None:
        """Print ``body`` (a parallel loop's) as a call of a new helper."""
        n_helpers = len(self.helpers)
        team, self.pragmas.team = self.pragmas.team, None  # not in scope in the helper
        try:
            with self.code.capture() as lines, self.statements.tracking() as usage:
                print_node(body, 1)
        finally:
            self.pragmas.team = team
        if usage.written - set(mark.private):
            # A shared scalar assigned in some iterations (a sum that only one tile of a
            # wavefront updates): passed by value, its updates would be lost.  The loop
            # body stays in the function, where OpenMP shares it.
            del self.helpers[n_helpers:]
            print_node(body, depth)
            return
        used = [n for n, s in self.scop.scalars.items()
                if s.kind is ScalarKind.LOCAL and n in usage.mentioned]
        private = [n for n in used if n in mark.private]
        shared = [n for n in used if n not in mark.private]  # read only in the body
        decls = "".join(f"  {ctype(self.scop.scalars[n].type)} {n};\n" for n in private)
        name = f"{self.function}_body{len(self.helpers)}"
        params, args = self._signature(shared, usage)
        self.helpers.append(f"{OPAQUE}static void {name}({', '.join(params)})"
                            f"\n{{\n{decls}" + "\n".join(lines) + "\n}\n")
        self.code.emit(depth, f"{name}({', '.join(args)});")

    def micro_kernel(self, stmt: Statement, lines: list[str], usage: Usage, depth: int) -> None:
        """Print ``lines`` (a register tile's loop) as a call of a new helper that gcc
        does not loop-vectorize."""
        name = f"{self.function}_micro{len(self.helpers)}"
        reads = sorted(names_read(stmt.value) & set(self.scop.scalars))
        params, args = self._signature(reads, usage)
        self.helpers.append(NO_LOOP_VECTORIZE + f"static void {name}({', '.join(params)})\n{{\n"
                            + "\n".join(lines) + "\n}\n")
        self.code.emit(depth, f"{name}({', '.join(args)});")

    def _signature(self, scalars: list[str], usage: Usage) -> tuple[list[str], list[str]]:
        """A helper's parameters and the call's arguments: the function's, ``scalars``
        by value, the loop counters in scope, and the error flag if the body sets it."""
        passed = {a.name for a in self.args}
        extra = [n for n in scalars if n not in passed]
        params = [a.declaration() for a in self.args]
        params += [f"{ctype(self.scop.scalars[n].type)} {n}" for n in extra]
        params += [f"{self.index_type} {c}" for c in self.counters]
        args = [a.name for a in self.args] + extra + list(self.counters)
        if usage.raises:
            params.append(ERROR_PARAM)
            args.append(ERROR_FLAG)
        return params, args


def holds_loop(node: isl.AstNode) -> bool:
    """Whether the isl AST ``node`` contains a ``for`` loop."""
    kind = node_kind(node)
    if kind is NodeKind.FOR:
        return True
    if kind is NodeKind.BLOCK:
        return any(holds_loop(child) for child in block_children(node))
    if kind is NodeKind.IF:
        return holds_loop(node.if_get_then_node()) or (
            bool(node.if_has_else_node()) and holds_loop(node.if_get_else_node()))
    if kind is NodeKind.MARK:
        return holds_loop(node.mark_get_node())
    return False
