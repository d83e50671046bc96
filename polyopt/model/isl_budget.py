"""Bounding isl's work, so a pathological loop nest gives a clear error, not a hang.

isl counts elementary operations per context; :func:`budget` sets a ceiling
for a phase and turns isl's running out of it into :class:`~polyopt.TooComplexError`.
Any other isl failure is a bug in polyopt (it handed isl something malformed, or hit
an isl bug), not a budget overrun: it propagates as the ``isl.Error`` it is, with a
note naming the phase.  The budgets and what they cost in seconds:
docs/design/transforms.md.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import islpy as isl

from polyopt.model.errors import TooComplexError

ANALYSIS_OPS = 150_000_000  # dependence analysis
SCHEDULING_OPS = 100_000_000  # automatic scheduling: past this, keep the source order
# one call of isl's scheduler, for time tiling, which is optional: five times what
# PolyBench's tiled stencils need, far below what guarded programs spend finding nothing
ISL_SCHEDULER_OPS = 300_000
# and its wall-clock ceiling: a pivot costs more as its numbers grow, so an operation
# count bounds no time; PolyBench's slowest call takes under 1 s, a fuzzed program spent
# over 300 s inside the 300,000 operations (finding 034)
ISL_SCHEDULER_SECONDS = 4.0
# ... so a call that needs more than this many operations runs where a deadline can stop
# it (a forked process, 7 ms more); most of PolyBench's calls need fewer
ISL_SCHEDULER_QUICK_OPS = 30_000
# expanding a buffer for register tiling, which is optional (doitgen's sum_ needs under
# 20,000): the value-based flows of a guarded, strided nest took isl minutes there
# (helper session 39, finding 02)
EXPANSION_OPS = 1_000_000
# the rows a per-thread copy of a C region's array holds (model/c_region.py): past this,
# no copy (a guarded update with three truncating divisions stalled isl, session 39b)
COPY_ROWS_OPS = 1_000_000
# deciding whether a loop may keep an accumulator in a register, which is optional
LICM_OPS = 2_000_000
MARKING_OPS = 100_000_000  # contraction, its re-analysis and the loop marks of one schedule
# building one loop nest's AST: every PolyBench kernel needs under 2,000,000; a fuzzed C
# region spent 550 s (about 20,000,000 operations in 30 s) where its source order takes
# 0.01 s, so past this the caller falls back to the source order
AST_OPS = 10_000_000
# past these, an AST build is tried in a forked child with a deadline first (ast_walk):
# the stall of tests/test_isl_stalls.py (a time-tiled nest) begins past 400,000
AST_QUICK_OPS = 250_000
# ... and for a nest of plain loops and rectangular tiles, which no stall was seen in:
# 2mm's register-tiled nest needs 350,000 (a forked probe cost it 0.25 s)
AST_PLAIN_QUICK_OPS = 700_000
AST_SECONDS = 10.0
# one subset test of sets with local variables (strided loops) deciding whether an array
# may be private to a loop's iterations, which is optional (the loop stays sequential):
# no operation budget stops it (one test took isl minutes, hostile40a finding 2)
PRIVATE_SUBSET_SECONDS = 2.0
ESTIMATE_OPS = 1_000_000  # the instances a call runs, for its team flag (backend_c/work.py)
AST_CHECK_OPS = 300_000  # checking one AST (backend_c/ast_check.py): past this, unchecked

# isl's message when the context's operation count passes its maximum (isl_ctx.c)
_QUOTA = "maximal number of operations exceeded"


def exhausted(exc: isl.Error) -> bool:
    """Whether ``exc`` is isl giving up on its operations budget (call it while the
    budget is still set).  isl's message says so only when no caller overwrote it (the
    parser reports a quota hit as a "syntax error"), so when it does not, ask isl for
    one more small computation: past the quota, every operation fails."""
    if _QUOTA in str(exc):
        return True
    if isl.DEFAULT_CONTEXT.get_max_operations() == 0:
        return False
    try:
        isl.Set("{ [i, j] : 0 <= i <= j <= 5 and i + j >= 3 }").lexmin()
    except isl.Error:
        return True
    return False


_Coalescible = TypeVar("_Coalescible", isl.Set, isl.Map, isl.UnionSet, isl.UnionMap)


def coalesce(obj: _Coalescible) -> _Coalescible:
    """``obj.coalesce()``, or ``obj`` as it is when isl's coalescing fails on it (isl
    0.2x raises "cannot relax redundant constraint" on some unions of dependences): it
    only simplifies the representation, so the set itself is still right."""
    try:
        return obj.coalesce()
    except isl.Error as exc:
        if exhausted(exc):
            raise
        return obj


@contextmanager
def budget(ops: int, what: str) -> Iterator[None]:
    """Run the block with at most ``ops`` isl operations.  A nested budget restarts the
    count of the one around it when it ends (isl keeps one counter per context)."""
    ctx = isl.DEFAULT_CONTEXT
    previous = ctx.get_max_operations()
    ctx.set_max_operations(ops)
    ctx.reset_operations()
    try:
        yield
    except isl.Error as exc:
        if not exhausted(exc):
            if sys.version_info >= (3, 11):  # notes are new in 3.11
                exc.add_note(f"polyopt: isl failed during {what}; this is a polyopt bug, "
                             "please report it with the loop nest")
            raise
        raise TooComplexError(
            f"{what} is too complex: isl gave up after its budget of {ops:,} operations. "
            "Simplify the loop nest or split it into several functions."
        ) from None
    finally:
        ctx.set_max_operations(previous)
        ctx.reset_operations()
