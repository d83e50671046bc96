"""What the machine's vector unit offers, for choosing register tiles.

Read once from ``/proc/cpuinfo`` (Linux x86-64); elsewhere a conservative
128-bit, 16-register unit is assumed.  The default CFLAGS compile with
``-march=native``, so code is generated for the machine polyopt runs on.
``POLYOPT_TARGET`` (``avx512``, ``avx2``, ``sse``, ``neon``) fixes the unit instead:
tests that check generated code set it, so they pass on any host.
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass

from polyopt.model.dtypes import DType


@dataclass(frozen=True)
class VectorUnit:
    bits: int  # widest vector register
    registers: int  # architectural vector registers

    def lanes(self, dtype: DType) -> int:
        return self.bits // dtype.bits


NAMED = {
    "avx512": VectorUnit(512, 32),
    "avx2": VectorUnit(256, 16),
    "sse": VectorUnit(128, 16),
    "neon": VectorUnit(128, 32),
}


def vector_unit() -> VectorUnit:
    """``POLYOPT_TARGET``'s unit when set, else the host's."""
    fixed = os.environ.get("POLYOPT_TARGET", "")
    if not fixed:
        return _host_vector_unit()
    if fixed not in NAMED:
        raise ValueError(f"POLYOPT_TARGET must be one of {', '.join(NAMED)}, not {fixed!r}")
    return NAMED[fixed]


@functools.lru_cache(maxsize=1)
def _host_vector_unit() -> VectorUnit:
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
        return NAMED["avx512"]
    if "avx2" in flags or "avx" in flags:
        return NAMED["avx2"]
    return NAMED["sse"] if platform.machine() in ("x86_64", "AMD64") else NAMED["neon"]


def micro_tile(dtype: DType) -> tuple[int, int]:
    """(rows, columns) of a matmul register tile: two vectors per row, as many rows as
    fit with room for the operands (B's two vectors, a broadcast and a scalar factor:
    four registers).  With 16 registers (AVX2) that is BLIS's 6x8 for float64: with
    the panel packed and each element loaded once per k step (backend_c/emit.py),
    gcc 12 keeps all 12 accumulators in registers, also with an ``alpha`` factor
    (checked in the assembly), and 6 rows ran faster than 5 (docs/design/transforms.md)."""
    unit = vector_unit()
    cols = 2 * unit.lanes(dtype)
    rows = max(2, min(8, (unit.registers - 4) // 2))
    return rows, cols
