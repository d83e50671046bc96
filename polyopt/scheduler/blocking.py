"""Cache blocks around a register-tiled matmul, BLIS-style, from the target's caches.

A register tile of ``MR x NR`` accumulators walks ``k``; around it three cache
blocks decide what stays where (BLIS's ``mc``, ``kc`` and ``nc``)::

    for i.tile (mc rows):                 # parallel
        for k.tile (kc):                  # A's mc x kc block stays in L2
            for j.tile (nc columns):      # B's kc x nc block stays in L3
                for j.reg, i.reg:         # B's kc x NR micro-panel stays in L1
                    for k: MR x NR register tile

- ``kc``: a micro-panel of the column operand (``kc x NR`` elements) fills L1.  Each
  micro-kernel call loads and stores its ``MR x NR`` tile of the result, which is
  not in cache, so a longer ``k`` block pays that less often; filling only half of
  L1 (BLIS's rule) was measurably slower with these micro-kernels.  A column operand
  that cannot be packed (the nest writes it: trmm's ``B``) is read in place, a
  strided row of ``NR`` elements per ``k``, beside the row operand's panel: its
  micro-panel gets half of L1;
- ``mc``: the row operand's ``mc x kc`` block fills half of L2, but a row block is
  at most 16 register tiles: the row blocks are what the threads share, and at
  PolyBench's sizes four blocks of 256 rows (2mm's 800 rows: 256, 256, 256, 32) left
  one of two threads idle for a quarter of the time;
- ``nc``: the column operand's ``kc x nc`` block fills half of L3.

Each is a whole number of register tiles (the unrolled copies need no guards) and
is clamped to sizes that measured well (shared/guide/fast-c.md: block sizes move
results by only a few percent once the register tile and packing are right).  With
AVX2's caches (32 KiB L1, 512 KiB L2) and a 6 x 8 float64 tile this gives kc = 512
and mc = 60; with AVX-512's (32 KiB, 1 MiB) and 8 x 16, kc = 256 and mc = 128.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.model.dtypes import DType
from polyopt.model.target import VectorUnit

KC_RANGE = (64, 512)  # short k blocks pay the tile's loads and stores too often
MC_MAX_TILES = 16  # rows of register tiles per row block: several blocks per thread
NC_MAX = 4096


@dataclass(frozen=True)
class Blocks:
    """Cache block sizes for the (i, k, j) loops of a register-tiled matmul."""

    mc: int
    kc: int
    nc: int


def blocks(unit: VectorUnit, dtype: DType, mr: int, nr: int, packed: bool = True) -> Blocks:
    """The cache blocks for an ``mr x nr`` register tile of ``dtype`` on ``unit``
    (``packed``: the column operand is read from contiguous panels)."""
    size = dtype.bits // 8
    caches = unit.caches
    l1 = caches.l1 if packed else caches.l1 // 2
    kc = _clamp(_round_down(l1 // (nr * size), 16), *KC_RANGE)
    mc = _clamp(_round_down(caches.l2 // 2 // (kc * size), mr), mr, MC_MAX_TILES * mr)
    nc = _clamp(_round_down(caches.l3 // 2 // (kc * size), nr), nr, _round_down(NC_MAX, nr))
    return Blocks(mc, kc, nc)


def _round_down(x: int, step: int) -> int:
    return x // step * step


def _clamp(x: int, low: int, high: int) -> int:
    return max(low, min(high, x))
