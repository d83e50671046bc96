"""What the C frontend hands on besides the :class:`~polyopt.model.scop.Scop`: where a
``#pragma scop`` region sits in its file and how its names are declared there,
so that optimized code can be printed in the file's own terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import islpy as isl

from polyopt.model import names
from polyopt.model.errors import TooComplexError
from polyopt.model.isl_budget import COPY_ROWS_OPS, budget, exhausted
from polyopt.model.scop import Scop

#: the min/max calls a region may use in affine expressions: name -> is it min
MIN_MAX_CALLS = {"min": True, "MIN": True, "max": False, "MAX": False, "imin": True,
                 "imax": False}


@dataclass(frozen=True)
class CArray:
    """An array (or pointer) used in a region, as the file declares it."""

    name: str
    base: str  # element type as C spells it: "double", "char", "long int"
    dims: tuple[str | None, ...]  # extent of each subscript as C text; None through a pointer
    scope: str  # "file", "param", "local" (the function body) or "region"
    const: bool = False  # its elements are declared `const` (then the region only reads it)

    @property
    def is_fixed(self) -> bool:
        """A true array of known size in scope (OpenMP can reduce it by name)."""
        return self.scope in ("file", "local") and all(d is not None for d in self.dims)


@dataclass(frozen=True)
class CScalar:
    """A scalar variable used in a region."""

    name: str
    base: str  # C type
    written: bool  # assigned in the region
    live: bool  # its value flows into or out of the region (then it is never privatized)
    declared_in_region: bool  # declared inside the region (its declaration is hoisted)
    top_level: bool = False  # declared at the region's top level (visible after it)


@dataclass(frozen=True, eq=False)
class CRegion:
    """One ``#pragma scop`` ... ``#pragma endscop`` region of a C file."""

    scop: Scop
    function: str
    index: int  # 1-based, in file order
    start_line: int  # line of `#pragma scop`
    end_line: int  # line of `#pragma endscop`
    indent: str  # leading whitespace of the `#pragma scop` line
    iterator_types: dict[str, str]  # C type of each loop iterator
    arrays: dict[str, CArray]
    scalars: dict[str, CScalar]
    params: dict[str, str]  # integer parameters (sizes) and their C types
    original: str  # the region's statements as C (macros expanded), for verification
    names_in_file: frozenset[str] = field(default_factory=frozenset)  # identifiers to avoid
    typedefs: tuple[str, ...] = ()  # the file's typedefs of arithmetic types, as C
    extent_params: tuple[str, ...] = ()  # parameters standing for extents C does not give
    # where a helper function may be inserted in the file: the line that begins the
    # definition of the region's function (its return type); 0 when unknown
    function_line: int = 0
    function_params: tuple[str, ...] = ()  # the names of that function's parameters
    # the region's loops and conditions alone, as C, stepping the loop counters that are
    # used after it to their final values (frontends/c_counters.py); "" when none is
    counters_after: str = ""
    # (name, value) of the macros the region names that expand to integer constants: the
    # C written holds their values (frontends/c_macros.py)
    size_macros: tuple[tuple[str, str], ...] = ()
    # (name, value) of those that expand to float constants (`#define SCALE 0.5`) or to
    # integer ones with casts (`((int)60)`), which `#if` cannot evaluate
    float_macros: tuple[tuple[str, str], ...] = ()
    # (name, type) of those that name an arithmetic type (`#define DATA_TYPE float`)
    type_macros: tuple[tuple[str, str], ...] = ()
    # the function's locals declared outside the region that the region names (`int i,
    # j;` at the function's top), and the file's static functions only it calls: the C
    # written may no longer use them, and says `(void)i;`, so that -Wall finds the file
    # as clean as it was
    outside_locals: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.function}() region {self.index} (lines {self.start_line}-{self.end_line})"

    def copy_rows(self, name: str) -> isl.PwAff | None:
        """How many rows (entries of the first dimension) a per-thread copy of array
        ``name`` holds (:meth:`_rows_of`), computed once per array; None when it gets
        no copy."""
        return self._copy_rows.get(name)

    def _rows_of(self, name: str) -> isl.PwAff | None:
        """How many rows (entries of the first dimension) a per-thread copy of array
        ``name`` holds, as a function of the parameters: one past the last row the
        region accesses, 0 where it accesses none.  None when the array is not one
        block of memory (a row is reached through a pointer: ``double **A``), when some
        access may fall before its first row (``s[j - 1]`` of a pointer into a buffer),
        or when isl cannot bound the rows.

        Only accessed rows count: a parameter ``double s[N]`` promises nothing about the
        caller's buffer, while every row up to the last one the region touches lies in
        it (when the region touches it at all)."""
        arr = self.arrays.get(name)
        if arr is None or not arr.dims or any(d is None for d in arr.dims[1:]):
            return None
        try:
            with budget(COPY_ROWS_OPS, f"bounding the rows of {name}"):
                return self._last_row(name)
        except TooComplexError:  # no copy: the loops that would need one stay sequential
            return None

    def _last_row(self, name: str) -> isl.PwAff | None:
        rows: isl.Set | None = None
        for st in self.scop.statements:
            for a in st.accesses:
                if a.target == name:
                    r = a.relation.range()
                    rows = r if rows is None else rows.union(r)
        if rows is None:
            return None
        rows = rows.coalesce()
        if not names.below(rows, 0, 0).is_empty():
            return None
        try:
            last = rows.dim_max(0)
        except isl.Error as exc:
            if exhausted(exc):
                raise
            return None
        count = last.add_constant_val(isl.Val.one(last.get_ctx()))
        return names.total_at_least_zero(count, self.scop.context).coalesce()

    @cached_property
    def _copy_rows(self) -> dict[str, isl.PwAff | None]:
        return {n: self._rows_of(n) for n in self.arrays}

    @property
    def copyable(self) -> frozenset[str]:
        """The arrays of which the region may make per-thread copies (:meth:`copy_rows`)."""
        return frozenset(n for n, rows in self._copy_rows.items() if rows is not None)


@dataclass(frozen=True, eq=False)
class CFile:
    """A parsed C file and its regions."""

    path: str
    text: str
    regions: tuple[CRegion, ...]
