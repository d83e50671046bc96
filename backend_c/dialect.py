"""How a printed piece of C spells arrays, statements and integers.

The isl AST walker (:mod:`polyopt.backend_c.ast_walk`) is shared by whole kernel
functions (:class:`KernelDialect`: flat, row-major arrays, int64 counters) and by
``#pragma scop`` regions printed in their file's own terms
(:class:`polyopt.backend_c.emit_region.RegionDialect`).  A dialect is the part
that differs.
"""

from __future__ import annotations

from typing import Protocol

from polyopt.backend_c.ast_expr import AstText
from polyopt.backend_c.cexpr import BodyPrinter, ctype, flat_index, lin

from polyopt.model.aff import Lin
from polyopt.model.schedule_tree import LoopMark
from polyopt.model.scop import Scop, Statement


class Dialect(Protocol):
    index_type: str  # the C type of loop counters
    privatizes_arrays: bool  # whether array names may be shadowed by per-thread copies
    # the C is the user's to compile, with their warnings (-Wall's unused variables)
    user_compiles: bool
    pointer_rows: frozenset[str]  # arrays whose rows are reached through pointers
    # whether a loop marked ``ranged`` may run in ranges cut at run time (backend_c/ranged.py),
    # which asks the OpenMP runtime for the team's size and calls prelude.ROW_RANGES
    ranges_rows: bool

    @property
    def body(self) -> BodyPrinter:
        """Prints statement bodies."""
        ...

    @property
    def text(self) -> AstText:
        """Prints isl AST expressions."""
        ...

    def element(self, target: str, indices: tuple[Lin, ...]) -> str:
        """C text of one element of array ``target``."""
        ...

    def element_ctype(self, target: str) -> str: ...

    def prefetch(self, target: str, indices: tuple[Lin, ...]) -> str | None:
        """A statement that prefetches one element of ``target`` for writing
        (``prelude.PREFETCH``), or None where its address has no flat form."""
        ...

    def bind(self, var: str, value: str) -> str:
        """The declaration of a statement iterator as the value the AST gives it."""
        ...

    def statement_line(self, stmt: Statement, values: list[str]) -> str | None:
        """The dialect's own one-line form of a statement instance, or None for the
        walker's block that binds the iterators first."""
        ...

    def reduction_target(self, var: str) -> str:
        """How ``reduction(op:...)`` names a reduced variable."""
        ...

    def may_reduce(self, mark: LoopMark, rename: dict[str, str]) -> bool:
        """Whether OpenMP can reduce the loop's variables (``rename``: those held in
        accumulators)."""
        ...

    def row_text(self, array: str, prefix: tuple[Lin, ...], env: dict[str, str]) -> str:
        """A row pointer of one of :attr:`pointer_rows` as C, iterators given ``env``'s
        values."""
        ...


class KernelDialect:
    """A whole kernel function: arrays are flat, row-major pointers."""

    index_type = "int64_t"
    privatizes_arrays = True
    user_compiles = False  # built by polyopt: the statements' bindings stay, for reading
    pointer_rows: frozenset[str] = frozenset()  # flat arrays
    ranges_rows = True

    def __init__(self, scop: Scop) -> None:
        self.scop = scop
        self.body = BodyPrinter({n: a.shape for n, a in scop.arrays.items()})
        self.text = AstText()
        self.prefetch_used = False  # whether some line calls prelude.PREFETCH

    def element(self, target: str, indices: tuple[Lin, ...]) -> str:
        return f"{target}[{flat_index(indices, self.scop.arrays[target].shape)}]"

    def element_ctype(self, target: str) -> str:
        return ctype(self.scop.arrays[target].dtype)

    def prefetch(self, target: str, indices: tuple[Lin, ...]) -> str | None:
        self.prefetch_used = True
        index = flat_index(indices, self.scop.arrays[target].shape)
        return f"polyopt_prefetch({target}, {index}, {self.element_ctype(target)});"

    def bind(self, var: str, value: str) -> str:
        return f"const {self.index_type} {var} = {value};"

    def statement_line(self, stmt: Statement, values: list[str]) -> str | None:
        return None

    def reduction_target(self, var: str) -> str:
        if var in self.scop.arrays:
            size = " * ".join(f"({lin(e)})" for e in self.scop.arrays[var].shape) or "1"
            return f"{var}[0:{size}]"
        return var

    def may_reduce(self, mark: LoopMark, rename: dict[str, str]) -> bool:
        return True

    def row_text(self, array: str, prefix: tuple[Lin, ...], env: dict[str, str]) -> str:
        raise AssertionError("a kernel's arrays are flat")
