"""polyopt's C path against the C it rewrites: the PolyBench/C files of ``examples/c``.

``python -m bench.c_suite [--size LARGE] [--repeat 5] [--kernels gemm,lu]`` (from outside
the checkout, as ``make bench`` runs it).  For each file, in a copy whose size macros
(``#define NI 40``) are set to the dataset's sizes (those of the Python PolyBench
module of the same name), three programs are built with one command, the way PolyBench
is built (``$CC $CFLAGS``, by default ``cc -O3 -march=native -fopenmp``):

- *original*: the file as written;
- *polyopt*: ``polyopt opt`` of it (default options);
- *no kernel*: the file with its ``#pragma scop`` region emptied: start-up, the
  arrays' initialisation and the checksum, which the other two also spend.

They run interleaved, ``--repeat`` rounds after one warm-up each, on 2 threads
(``OMP_NUM_THREADS=2``); a program's figure is the median of its wall times, and a
kernel's time is its program's figure less the no-kernel program's.  The checksum
lines that original and polyopt print must agree (relative 1e-6: polyopt's C may
contract and reorder floating-point sums).  The issue-16 goal: the polyopt kernels
at >= 4x the originals' geomean at LARGE, none below 1.0x.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import ROOT
from bench.timing import run_interleaved

EXAMPLES = ROOT / "examples" / "c"
VARIANTS = ("original", "polyopt", "no kernel")
GOAL = 4.0
_REGION = re.compile(r"(#pragma scop\n).*?(#pragma endscop)", re.S)
_NUMBER = re.compile(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class CResult:
    name: str
    kernel_s: dict[str, float]  # original / polyopt: program time less the no-kernel time
    program_s: dict[str, float]  # every variant's median wall time
    error: str = ""

    @property
    def speedup(self) -> float | None:
        o, p = self.kernel_s.get("original"), self.kernel_s.get("polyopt")
        return o / p if o and p and o > 0 and p > 0 else None


def sized_source(path: Path, size: str) -> str:
    """The file with its size macros set to the dataset ``size`` of the Python module of
    the same name; the file as it is when there is none."""
    sys.path.append(str(ROOT))
    from examples.polybench import KERNELS

    text = path.read_text()
    module = KERNELS.get(path.stem)
    if module is None:
        return text
    for name, value in module.SIZES[size].items():
        text, n = re.subn(rf"(#\s*define\s+{name.upper()}\s+)\d+", rf"\g<1>{value}", text)
        if n == 0:
            raise ValueError(f"{path.name} has no size macro {name.upper()}")
    return text


def build(work: Path, name: str, source: str, what: str) -> Path:
    """``source`` compiled as PolyBench is, to ``work/<what>``."""
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    flags = shlex.split(os.environ.get("CFLAGS", "-O3 -march=native -fopenmp"))
    c = work / f"{name}.{what.replace(' ', '_')}.c"
    c.write_text(source)
    exe = c.with_suffix("")
    proc = subprocess.run([*cc, *flags, str(c), "-o", str(exe), "-lm"], capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{what}: the C compiler failed: {proc.stderr.strip()[-300:]}")
    return exe


def optimized(path: Path, source: str, work: Path) -> str:
    """``polyopt opt`` of ``source`` (written next to ``path``'s copy)."""
    src = work / path.name
    src.write_text(source)
    out = work / f"{path.stem}.opt.c"
    proc = subprocess.run([sys.executable, "-m", "polyopt", "opt", str(src), "-o", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=work)
    if proc.returncode != 0:
        raise RuntimeError(f"polyopt opt failed: {proc.stderr.strip()[-300:]}")
    return out.read_text()


def checksums(output: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(output)]


def agree(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(
        math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(x) and math.isnan(y))
        for x, y in zip(a, b, strict=True))


def measure(path: Path, size: str, repeat: int, work: Path) -> CResult:
    try:
        source = sized_source(path, size)
        programs = {
            "original": build(work, path.stem, source, "original"),
            "polyopt": build(work, path.stem, optimized(path, source, work), "polyopt"),
            "no kernel": build(work, path.stem, _REGION.sub(r"\1\2", source), "no kernel"),
        }
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:
        return CResult(path.stem, {}, {}, str(exc))
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    outputs: dict[str, str] = {}

    def runner(what: str) -> Callable[[], float]:
        def run() -> float:
            t0 = time.perf_counter()
            proc = subprocess.run([str(programs[what])], capture_output=True, text=True,
                                  timeout=3600, env=env)
            elapsed = time.perf_counter() - t0
            if proc.returncode != 0:
                raise RuntimeError(f"{what} exited {proc.returncode}")
            outputs[what] = proc.stdout
            return elapsed
        return run

    timings = run_interleaved({v: runner(v) for v in VARIANTS}, repeat)
    if timings.errors:
        return CResult(path.stem, {}, {}, "; ".join(timings.errors.values()))
    if not agree(checksums(outputs["original"]), checksums(outputs["polyopt"])):
        return CResult(path.stem, {}, {}, "checksums differ: "
                       f"{outputs['original'].strip()} / {outputs['polyopt'].strip()}")
    program = {v: t for v in VARIANTS if (t := timings.median(v)) is not None}
    base = program["no kernel"]
    return CResult(path.stem, {v: program[v] - base for v in ("original", "polyopt")},
                   program)


def table(results: list[CResult], size: str) -> str:
    lines = [f"PolyBench/C {size}, 2 threads, {os.environ.get('CC', 'cc')} "
             f"{os.environ.get('CFLAGS', '-O3 -march=native -fopenmp')}; kernel = program "
             "less the program without its scop region",
             f"{'kernel':16s} {'original':>10s} {'polyopt':>10s} {'no kernel':>10s} "
             f"{'speed-up':>9s}"]
    ups = []
    for r in results:
        if r.error:
            lines.append(f"{r.name:16s} {r.error}")
            continue
        up = r.speedup
        note = f"{up:8.2f}x" if up is not None else "   (kernel time within noise)"
        if up is not None:
            ups.append(up)
        lines.append(f"{r.name:16s} {r.kernel_s['original']:9.3f}s {r.kernel_s['polyopt']:9.3f}s "
                     f"{r.program_s['no kernel']:9.3f}s {note}")
    if ups:
        lines.append(f"{'geomean':16s} {'':10s} {'':10s} {'':10s} "
                     f"{statistics.geometric_mean(ups):8.2f}x   (goal >= {GOAL:.0f}x, "
                     f"none below 1.0x: {sum(u < 1.0 for u in ups)} below)")
    return "\n".join(lines)


def run(size: str, repeat: int, names: set[str] | None = None) -> list[CResult]:
    """Every ``examples/c`` file (those in ``names``), one after the other; each result's
    line is printed to stderr as it comes."""
    files = [f for f in sorted(EXAMPLES.glob("*.c")) if names is None or f.stem in names]
    results = []
    with tempfile.TemporaryDirectory(prefix="polyopt-c-suite-") as tmp:
        for f in files:
            results.append(measure(f, size, repeat, Path(tmp)))
            print(table(results[-1:], size).splitlines()[2], file=sys.stderr, flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="LARGE", choices=("MINI", "SMALL", "MEDIUM", "LARGE"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kernels", default="", help="comma-separated; default: every file")
    args = ap.parse_args()
    names = set(args.kernels.split(",")) if args.kernels else None
    print(table(run(args.size, args.repeat, names), args.size))


if __name__ == "__main__":
    main()
