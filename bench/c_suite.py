"""polyopt's C path against the C it rewrites: the PolyBench/C files of ``examples/c``.

``python -m bench.c_suite [--size LARGE] [--repeat 5] [--kernels gemm,lu]`` (from outside
the checkout, as ``make bench`` runs it).  For each file, in a copy whose size macros
(``#define NI 40``) are set to the dataset's sizes (those of the Python PolyBench
module of the same name), two programs are built with one command, the way PolyBench
is built (``$CC $CFLAGS``, by default ``cc -O3 -march=native -fopenmp``):

- *original*: the file as written;
- *polyopt*: ``polyopt opt`` of it (default options).

Both are timed inside the program: a monotonic clock is read just before each
``#pragma scop`` region and just after it (:data:`TIMER`, linked beside the file; the
lines that read it lie outside the region, which ``polyopt opt`` leaves as written),
so start-up, the arrays' initialisation and the checksum are not counted, and a
kernel of a few milliseconds is measured as precisely as one of seconds.  They run
interleaved, ``--repeat`` rounds after one warm-up each, on 2 threads
(``OMP_NUM_THREADS=2``); a kernel's time is the median over the rounds of its
regions' time in the run.  The checksum lines that original and polyopt print must
agree (relative 1e-6: polyopt's C may contract and reorder floating-point sums).  The
issue-16 goal: the polyopt kernels at >= 4x the originals' geomean at LARGE, none
below 1.0x.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import ROOT
from bench.timing import run_interleaved

EXAMPLES = ROOT / "examples" / "c"
VARIANTS = ("original", "polyopt")
GOAL = 4.0
_REGION = re.compile(r"#pragma scop\n.*?#pragma endscop[^\n]*\n", re.S)
_NUMBER = re.compile(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?")
_REPORT = "polyopt-bench-region"
_INCLUDES = re.compile(r"(\A(?:.*\n)*?(?:[ \t]*#[ \t]*include[^\n]*\n)+)")

#: the clock the programs read around each region, compiled beside the file
TIMER = f"""#include <stdio.h>
#include <time.h>
double polyopt_bench_now(void)
{{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}}
void polyopt_bench_report(double t0)
{{
  fprintf(stderr, "{_REPORT} %.9f\\n", polyopt_bench_now() - t0);
}}
"""


@dataclass(frozen=True)
class CResult:
    name: str
    kernel_s: dict[str, float]  # original / polyopt: the median time of the regions
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


def timed(source: str) -> str:
    """``source`` reading :data:`TIMER`'s clock just before each ``#pragma scop`` region
    and reporting the time just after it (statements outside the region)."""
    count = iter(range(10**6))

    def wrap(m: re.Match[str]) -> str:
        k = next(count)
        return (f"double polyopt_bench_t{k} = polyopt_bench_now();\n{m.group(0)}"
                f"polyopt_bench_report(polyopt_bench_t{k});\n")

    body, n = _REGION.subn(wrap, source)
    if n == 0:
        raise ValueError("no #pragma scop region to time")
    decls = "double polyopt_bench_now(void);\nvoid polyopt_bench_report(double t0);\n"
    head = _INCLUDES.match(body)
    return (head.group(1) + decls + body[head.end():]) if head else decls + body


def region_seconds(stderr: str) -> float:
    """The time the program's regions took, from their reports."""
    times = [float(line.split()[1]) for line in stderr.splitlines()
             if line.startswith(_REPORT + " ")]
    if not times:
        raise RuntimeError("the program reported no region time")
    return sum(times)


def build(work: Path, name: str, source: str, what: str) -> Path:
    """``source`` compiled as PolyBench is, to ``work/<what>``."""
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    flags = shlex.split(os.environ.get("CFLAGS", "-O3 -march=native -fopenmp"))
    c = work / f"{name}.{what.replace(' ', '_')}.c"
    c.write_text(source)
    timer = work / "polyopt_bench_timer.c"
    timer.write_text(TIMER)
    exe = c.with_suffix("")
    proc = subprocess.run([*cc, *flags, str(c), str(timer), "-o", str(exe), "-lm"],
                          capture_output=True, text=True, timeout=600)
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
        source = timed(sized_source(path, size))
        programs = {
            "original": build(work, path.stem, source, "original"),
            "polyopt": build(work, path.stem, optimized(path, source, work), "polyopt"),
        }
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:
        return CResult(path.stem, {}, str(exc))
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    outputs: dict[str, str] = {}

    def runner(what: str) -> Callable[[], float]:
        def run() -> float:
            proc = subprocess.run([str(programs[what])], capture_output=True, text=True,
                                  timeout=3600, env=env)
            if proc.returncode != 0:
                raise RuntimeError(f"{what} exited {proc.returncode}")
            outputs[what] = proc.stdout
            return region_seconds(proc.stderr)
        return run

    timings = run_interleaved({v: runner(v) for v in VARIANTS}, repeat)
    if timings.errors:
        return CResult(path.stem, {}, "; ".join(timings.errors.values()))
    if not agree(checksums(outputs["original"]), checksums(outputs["polyopt"])):
        return CResult(path.stem, {}, "checksums differ: "
                       f"{outputs['original'].strip()} / {outputs['polyopt'].strip()}")
    return CResult(path.stem, {v: t for v in VARIANTS if (t := timings.median(v)) is not None})


def table(results: list[CResult], size: str) -> str:
    lines = [f"PolyBench/C {size}, 2 threads, {os.environ.get('CC', 'cc')} "
             f"{os.environ.get('CFLAGS', '-O3 -march=native -fopenmp')}; the scop regions "
             "timed inside the programs",
             f"{'kernel':16s} {'original':>10s} {'polyopt':>10s} {'speed-up':>9s}"]
    ups = []
    for r in results:
        if r.error:
            lines.append(f"{r.name:16s} {r.error}")
            continue
        up = r.speedup
        note = f"{up:8.2f}x" if up is not None else "   (no time)"
        if up is not None:
            ups.append(up)
        lines.append(f"{r.name:16s} {r.kernel_s['original']:9.4f}s {r.kernel_s['polyopt']:9.4f}s "
                     f"{note}")
    if ups:
        lines.append(f"{'geomean':16s} {'':10s} {'':10s} "
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
