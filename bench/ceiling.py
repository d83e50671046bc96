"""In-cache ceilings of a target's statement on this machine (``bench/probes/``).

A target that is bound by compute rather than memory cannot beat the statement's
speed with its data in cache.  Measured in the same run as the target, with the same
compiler and flags, so that a missed goal can be told apart from a machine that
cannot reach it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from polyopt.backend_c.build import DEFAULT_CFLAGS

PROBES = Path(__file__).resolve().parent / "probes"

#: jacobi-2d N=1300's rows (34 of them: 16 steps of a time tile's skewed band), and
#: enough sweeps for ~0.1 s.
JACOBI_2D_SHAPE = (34, 1300, 300)


def jacobi_2d(threads: tuple[int, ...] = (1, 2)) -> dict[int, float] | None:
    """GFLOP/s of jacobi-2d's statement in cache, per thread count; None when the probe
    cannot be built or run (no compiler, no OpenMP)."""
    runs = _run_probe("jacobi_2d_ceiling.c", [str(n) for n in JACOBI_2D_SHAPE], threads)
    return None if runs is None else {int(team): float(g) for team, g in runs}


def fma_peak(threads: int = 2) -> dict[str, float] | None:
    """GFLOP/s of multiply-adds in registers on ``threads`` threads, per dtype
    (``float64``, ``float32``): the compute ceiling of this host; None when the probe
    cannot be built or run."""
    runs = _run_probe("fma_peak.c", [], (threads,))
    if runs is None:
        return None
    (_, f64, f32), = runs
    return {"float64": float(f64), "float32": float(f32)}


def _run_probe(source: str, args: list[str], threads: tuple[int, ...]) -> list[list[str]] | None:
    """The words each run of the probe ``source`` printed, one run per thread count,
    built with the benchmarks' compiler and flags; None when it cannot be built or run."""
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    flags = shlex.split(os.environ.get("CFLAGS", DEFAULT_CFLAGS))
    out: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="polyopt-probe-") as tmp:
        exe = Path(tmp) / "probe"
        try:
            subprocess.run([*cc, *flags, str(PROBES / source), "-o", str(exe)],
                           check=True, capture_output=True, timeout=120)
            for t in threads:
                env = {**os.environ, "OMP_NUM_THREADS": str(t)}
                run = subprocess.run([str(exe), *args], check=True, capture_output=True,
                                     text=True, timeout=300, env=env)
                out.append(run.stdout.split())
        except (OSError, subprocess.SubprocessError):
            return None
    return out
