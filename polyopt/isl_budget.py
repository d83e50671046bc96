"""Bounding isl's work, so a pathological loop nest gives a clear error, not a hang.

isl counts elementary operations per context; :func:`budget` sets a ceiling
for a phase and turns isl's failure into :class:`~polyopt.TooComplexError`.
About 6 million operations take one second on these machines.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import islpy as isl

from polyopt.errors import TooComplexError

ANALYSIS_OPS = 150_000_000  # dependence analysis: ~25 s
SCHEDULING_OPS = 100_000_000  # automatic scheduling: past this, keep the source order


@contextmanager
def budget(ops: int, what: str) -> Iterator[None]:
    ctx = isl.DEFAULT_CONTEXT
    previous = ctx.get_max_operations()
    ctx.set_max_operations(ops)
    ctx.reset_operations()
    try:
        yield
    except isl.Error as exc:
        raise TooComplexError(
            f"{what} is too complex: isl gave up after its budget of {ops:,} operations "
            f"({exc}). Simplify the loop nest or split it into several functions."
        ) from None
    finally:
        ctx.set_max_operations(previous)
        ctx.reset_operations()
