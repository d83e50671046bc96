"""What the tuner searches: one axis per option that changes speed but never results.

Each axis is a list of values for one field of a :class:`Choice`; the search
(:mod:`polyopt.tuner.search`) walks the axes in order, trying each value with the
best values found so far for the others (coordinate descent)::

    parallel_min  0, 2**16, the default (2**20), 2**24   statement instances under which
                                                         a call runs on one thread
    fuse          smart, max, none
    tile          the cache model, off, (steps, rows) time tiles and (i, k, j) cache tiles
    unroll_jam    the vector unit's register tile, off, smaller and wider ones

``tile`` sizes serve every band (:class:`~polyopt.model.options.Options`): a stencil's
time tile takes the first two ((time steps, rows): the best shape depends on the row
length), a register-tiled matmul's cache tiles the first three, other bands as many as
they have loops, the last one repeated.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from polyopt.backend_c.tuned import Choice
from polyopt.model.dtypes import DType
from polyopt.model.options import FUSE_CHOICES, MAX_UNROLL_COPIES, MAX_UNROLL_FACTOR
from polyopt.model.signature import ArrayType, Signature
from polyopt.model.target import micro_tile

#: (time steps, rows) for stencils, then (i, k, j) cache tiles for matmuls
TILE_SHAPES: tuple[tuple[int, ...], ...] = (
    (8, 32), (16, 64), (32, 32), (32, 128), (8, 128), (64, 64),
    (64, 256, 64), (128, 256, 128), (48, 512, 256))
THRESHOLDS = (0, 1 << 16, 1 << 24)

Value = bool | str | int | tuple[int, ...]
Axis = tuple[str, tuple[Value, ...]]


def axes(base: Choice, sig: Signature) -> list[Axis]:
    """The axes to search from ``base`` for a kernel of signature ``sig``."""
    thresholds = (base.parallel_min, *(t for t in THRESHOLDS if t != base.parallel_min))
    tiles: tuple[Value, ...] = (True, False, *TILE_SHAPES)
    return [("parallel_min", thresholds if base.options.parallel else (base.parallel_min,)),
            ("fuse", FUSE_CHOICES),
            ("tile", tiles),
            ("unroll_jam", _register_tiles(_dtype(sig)))]


def with_value(choice: Choice, axis: str, value: Value) -> Choice:
    """``choice`` with one axis set to ``value``."""
    if axis == "parallel_min":
        assert isinstance(value, int)
        return dataclasses.replace(choice, parallel_min=value)
    change: dict[str, Any] = {axis: value}
    return dataclasses.replace(choice, options=dataclasses.replace(choice.options, **change))


def _register_tiles(dtype: DType) -> tuple[Value, ...]:
    """The default register tile, none, and neighbours of the default: fewer rows, more
    rows, half the columns, and twice the columns on half the rows."""
    mr, nr = micro_tile(dtype)
    shapes = [(max(2, mr - 2), nr), (mr + 2, nr), (mr, max(1, nr // 2)),
              (max(2, mr // 2), 2 * nr)]
    out: list[Value] = [True, False]
    for s in shapes:
        if (s != (mr, nr) and s not in out and max(s) <= MAX_UNROLL_FACTOR
                and s[0] * s[1] <= MAX_UNROLL_COPIES):
            out.append(s)
    return tuple(out)


def _dtype(sig: Signature) -> DType:
    """The element type the register tiles are sized for: the first float array's."""
    for _, t in sig.args:
        if isinstance(t, ArrayType) and t.dtype.is_float:
            return t.dtype
    return DType.FLOAT64
