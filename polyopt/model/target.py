"""What the machine's vector unit and caches offer, for choosing register tiles and
the cache blocks around them.

Read once from ``/proc/cpuinfo`` and ``/sys/devices/system/cpu/cpu0/cache`` (Linux
x86-64); elsewhere a conservative 128-bit, 16-register unit is assumed, with
typical cache sizes.  The default CFLAGS compile with
``-march=native``, so code is generated for the machine polyopt runs on.
``POLYOPT_TARGET`` (``avx512``, ``avx2``, ``sse``, ``neon``) fixes the unit instead:
tests that check generated code set it, so they pass on any host (the named
targets carry fixed cache sizes too).
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path

from polyopt.model.dtypes import DType

KIB = 1024


@dataclass(frozen=True)
class Caches:
    """Data cache sizes in bytes: L1 and L2 per core, L3 as the core sees it."""

    l1: int = 32 * KIB
    l2: int = 512 * KIB
    l3: int = 8192 * KIB


@dataclass(frozen=True)
class VectorUnit:
    bits: int  # widest vector register
    registers: int  # architectural vector registers
    # the caches the register tiles are blocked for: part of this object (and of its
    # repr, which the kernel cache key holds) so that code made for other block sizes
    # is never reused
    caches: Caches = field(default_factory=Caches)

    def lanes(self, dtype: DType) -> int:
        return self.bits // dtype.bits


NAMED = {  # the caches of the hosts seen with each unit: Zen 4 (AVX-512), Zen 3 (AVX2)
    "avx512": VectorUnit(512, 32, Caches(32 * KIB, 1024 * KIB, 32768 * KIB)),
    "avx2": VectorUnit(256, 16, Caches(32 * KIB, 512 * KIB, 32768 * KIB)),
    "sse": VectorUnit(128, 16, Caches()),
    "neon": VectorUnit(128, 32, Caches(64 * KIB, 1024 * KIB, 8192 * KIB)),
}
CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")


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
        unit = NAMED["avx512"]
    elif "avx2" in flags or "avx" in flags:
        unit = NAMED["avx2"]
    else:
        unit = NAMED["sse"] if platform.machine() in ("x86_64", "AMD64") else NAMED["neon"]
    return VectorUnit(unit.bits, unit.registers, host_caches(CACHE_DIR, unit.caches))


def host_caches(root: Path, default: Caches) -> Caches:
    """The data caches listed under ``root`` (``index*/level``, ``type``, ``size`` as
    in sysfs: ``Data``/``Unified``, ``32K``); a level not listed keeps ``default``'s."""
    sizes = {1: default.l1, 2: default.l2, 3: default.l3}
    for index in sorted(root.glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _bytes((index / "size").read_text().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and level in sizes and size > 0:
            sizes[level] = size
    return Caches(sizes[1], sizes[2], sizes[3])


def _bytes(text: str) -> int:
    """``32K`` -> 32768, ``1M`` -> 1048576, ``512`` -> 512."""
    scale = {"K": KIB, "M": KIB * KIB, "G": KIB ** 3}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


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


def single_row_tile(dtype: DType) -> tuple[int, int]:
    """(1, columns) of a register tile for a matmul whose rows have different reduction
    ranges (trmm's ``k in range(i + 1, m)``: rows share no ``k`` loop): four vectors,
    each element of B loaded once per row and ``k``."""
    return 1, 4 * vector_unit().lanes(dtype)
