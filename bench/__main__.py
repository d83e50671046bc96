"""``python -m bench``: polyopt side by side with the baseline, NumPy and Numba.

Suites (``--suite``, default ``all``):

- ``polybench``: every PolyBench kernel (``--kernels`` to choose) at ``--size``
  as the baseline (the source loop nest, plain C, ``gcc -O3 -march=native``,
  1 thread), polyopt on 1 and 2 threads, NumPy, Numba and Numba parallel, with
  polyopt's cold and warm compile times.  Writes ``polybench-<SIZE>.md/.csv/.png``.
- ``targets``: the four performance targets of issue 3.  Writes ``targets.md``.
- ``tune``: ``polyopt.tune`` on a few kernels (``--tune-budget`` seconds each), the tuned
  options against the default ones.  Writes ``tune.md``.
- ``compile``: cold/warm compile time of gemm and the largest PolyBench kernel,
  and the per-call overhead.  ``overhead``: only the latter.  Write ``compile.md``.
- ``c``: the C path, ``polyopt opt`` of each ``examples/c`` file against the file as
  written, both built like PolyBench, at ``--size`` (:mod:`bench.c_suite`).  Writes
  ``c-<SIZE>.md``.  Not part of ``all``: at LARGE the original programs alone run for
  many minutes.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from pathlib import Path

from bench import report
from bench.compile_times import CompileTimes, cold_warm
from bench.overhead import Overhead
from bench.overhead import measure as measure_overhead
from bench.specs import load_spec, polybench_names
from bench.timing import MIN_REPEAT

SIZES = ("MINI", "SMALL", "MEDIUM", "LARGE")
SUITES = ("polybench", "compile", "overhead", "targets", "tune", "c", "all")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", choices=SIZES, default="MEDIUM", help="PolyBench dataset")
    p.add_argument("--kernels", default="", help="comma-separated PolyBench kernels (default all)")
    p.add_argument("--repeat", type=int, default=3,
                   help=f"timed rounds per figure, at least {MIN_REPEAT} (more for short runs)")
    p.add_argument("--suite", choices=SUITES, default="all")
    p.add_argument("--out", type=Path, default=Path("bench/results"))
    p.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                   help="before timing each kernel, wait up to SECONDS for other processes "
                        "to leave the CPUs (shared machines); the load is reported either way")
    p.add_argument("--tune-budget", type=float, default=20.0, metavar="SECONDS",
                   help="the tune suite's search budget per kernel")
    args = p.parse_args(argv)
    if args.repeat < MIN_REPEAT:
        p.error(f"--repeat must be at least {MIN_REPEAT}")
    known = polybench_names()
    if args.suite == "c":  # examples/c holds files beyond PolyBench (band-mv)
        from bench.c_suite import EXAMPLES
        known = sorted(f.stem for f in EXAMPLES.glob("*.c"))
    args.kernel_list = [k.strip() for k in args.kernels.split(",") if k.strip()] or known
    unknown = [k for k in args.kernel_list if k not in known]
    if unknown:
        p.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return args


def largest_polybench_kernel() -> str:
    """The PolyBench kernel with the most statements."""
    return max(polybench_names(), key=lambda n: load_spec("polybench", n).statement_count())


def run_polybench(args: argparse.Namespace, ctx: list[str]) -> str:
    from bench import polybench_suite

    results = polybench_suite.run(args.size, args.kernel_list, args.repeat, args.out,
                                  wait_idle=args.wait_idle)
    stem = args.out / f"polybench-{args.size}"
    md = report.polybench_markdown(results, args.size, ctx)
    stem.with_suffix(".md").write_text(md)
    report.write_csv(results, stem.with_suffix(".csv"))
    how = report.write_chart(results, stem.with_suffix(".png"), args.size)
    return md + f"\nWrote {stem}.md, .csv and .png (chart: {how}).\n"


def run_targets(args: argparse.Namespace, ctx: list[str]) -> str:
    from bench import targets_suite

    md = report.targets_markdown(targets_suite.run(args.repeat, args.out, args.wait_idle), ctx)
    (args.out / "targets.md").write_text(md)
    return md + f"\nWrote {args.out / 'targets.md'}.\n"


def run_tune(args: argparse.Namespace, ctx: list[str]) -> str:
    from bench import tune_suite

    rows = tune_suite.run(args.size, tune_suite.TUNE_KERNELS, args.tune_budget, args.repeat,
                          args.out)
    md = tune_suite.markdown(rows, args.size, args.tune_budget, ctx)
    (args.out / "tune.md").write_text(md)
    return md + f"\nWrote {args.out / 'tune.md'}.\n"


def run_c(args: argparse.Namespace, ctx: list[str]) -> str:
    from bench import c_suite

    names = set(args.kernel_list) if args.kernels else None
    results = c_suite.run(args.size, args.repeat, names)
    # the harness's note on checks against CPython does not apply: the checksums do
    ctx = [c for c in ctx if not c.startswith("- each figure:")] + [
        "- each figure: median of interleaved whole-program runs after one warm-up; the "
        "original's and polyopt's checksum lines agree (relative 1e-6)"]
    md = "\n".join(["## The C path (`polyopt opt`) against the C it rewrote", "", *ctx, "",
                    "```", c_suite.table(results, args.size), "```", ""])
    path = args.out / f"c-{args.size}.md"
    path.write_text(md)
    return md + f"\nWrote {path}.\n"


def run_compile(args: argparse.Namespace, ctx: list[str], with_times: bool) -> str:
    times: list[CompileTimes] = []
    if with_times:
        largest = largest_polybench_kernel()
        for name in dict.fromkeys(["gemm", largest]):
            print(f"compile times: {name} ({args.repeat} cold + warm pairs)", file=sys.stderr)
            ct = cold_warm("polybench", name, repeat=args.repeat)
            label = name + (" (largest PolyBench kernel)" if name == largest else "")
            times.append(dataclasses.replace(ct, kernel=label))
    print("per-call overhead", file=sys.stderr)
    overhead: Overhead | None = measure_overhead()
    md = report.compile_markdown(times, overhead, ctx)
    (args.out / "compile.md").write_text(md)
    return md + f"\nWrote {args.out / 'compile.md'}.\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    command = "python -m bench " + shlex.join(sys.argv[1:] if argv is None else argv)
    ctx = report.context(command)
    outputs: list[str] = []
    if args.suite in ("polybench", "all"):
        outputs.append(run_polybench(args, ctx))
    if args.suite in ("targets", "all"):
        outputs.append(run_targets(args, ctx))
    if args.suite in ("tune", "all"):
        outputs.append(run_tune(args, ctx))
    if args.suite == "c":
        outputs.append(run_c(args, ctx))
    if args.suite in ("compile", "overhead", "all"):
        outputs.append(run_compile(args, ctx, with_times=args.suite != "overhead"))
    print("\n".join(outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
