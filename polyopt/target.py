"""What the machine's vector unit offers, for choosing register tiles.

Read once from ``/proc/cpuinfo`` (Linux x86-64); elsewhere a conservative
128-bit, 16-register unit is assumed.  The default CFLAGS compile with
``-march=native``, so code is generated for the machine polyopt runs on.
"""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass

from polyopt.dtypes import DType


@dataclass(frozen=True)
class VectorUnit:
    bits: int  # widest vector register
    registers: int  # architectural vector registers

    def lanes(self, dtype: DType) -> int:
        return self.bits // dtype.bits


@functools.lru_cache(maxsize=1)
def vector_unit() -> VectorUnit:
    flags: set[str] = set()
    if platform.system() == "Linux":
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith(("flags", "Features")):
                        flags = set(line.split(":", 1)[1].split())
                        break
        except OSError:
            pass
    if "avx512f" in flags:
        return VectorUnit(512, 32)
    if "avx2" in flags or "avx" in flags:
        return VectorUnit(256, 16)
    return VectorUnit(128, 16 if platform.machine() in ("x86_64", "AMD64") else 32)


def micro_tile(dtype: DType) -> tuple[int, int]:
    """(rows, columns) of a matmul register tile: two vectors per row, as many rows as
    fit with room for the operands (B's two vectors, a broadcast, a scalar factor and
    the compiler's temporaries: six registers).  With 16 registers (AVX2) a 6-row tile
    made gcc spill an accumulator through the stack on every k step; 5 rows do not."""
    unit = vector_unit()
    cols = 2 * unit.lanes(dtype)
    rows = max(2, min(8, (unit.registers - 6) // 2))
    return rows, cols
