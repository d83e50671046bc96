"""Results as Markdown tables, CSV and a PNG chart, plus the run's context."""

from __future__ import annotations

import csv
import datetime
import importlib.util
import os
import platform
import statistics
import subprocess
from collections.abc import Sequence
from pathlib import Path

from bench import machine, png
from bench.compile_times import (
    COLD_GOAL_S,
    PLAN_EMIT_MAX_GOAL_S,
    PLAN_EMIT_MEDIAN_GOAL_S,
    WARM_GOAL_S,
    CompileTimes,
)
from bench.measure import KernelResult, geomean
from bench.overhead import OVERHEAD_GOAL_S, Overhead
from bench.targets_suite import TargetResult, peak_gflops
from bench.variants import BASELINE, VARIANTS

DASH = "–"
#: Background load (CPUs used by other processes while timing) above which a
#: kernel's 2-thread figures are marked as measured on a busy machine.
BUSY_CPUS = 0.3


# --- context -------------------------------------------------------------------------


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _ceiling_note(ceiling: dict[int, float] | None, baseline: float | None) -> str:
    """What the statement reaches in cache (bench/ceiling.py), against the baseline."""
    if not ceiling:
        return "in-cache ceiling: the probe could not be built or run"
    per = ", ".join(f"{g:.1f} on {t} thread{'s' if t > 1 else ''}"
                    for t, g in sorted(ceiling.items()))
    text = (f"its statement computed in cache (bench/probes/jacobi_2d_ceiling.c, every "
            f"thread at once) reaches {per} GFLOP/s")
    if baseline:
        best = max(ceiling.values())
        text += (f": a schedule that computes each row that way (as time tiling does) tops "
                 f"out at {best / baseline:.2f}× the baseline on this machine")
    return text


def _cc() -> str:
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0] if out.stdout else cc
    except (OSError, subprocess.TimeoutExpired):
        return cc


def _version(module: str) -> str:
    if importlib.util.find_spec(module) is None:
        return "not installed"
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(module)
    except PackageNotFoundError:
        return "installed"


def load_average() -> str:
    """The 1-minute load average (other work on this shared machine skews 2-thread runs)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except (OSError, IndexError):
        return "unknown"


def _revision() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                             text=True, timeout=30, cwd=Path(__file__).resolve().parents[1])
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def context(command: str) -> list[str]:
    """Lines describing the machine, tools and settings of this run."""
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    return [
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}; command: `{command}`; "
        f"polyopt revision: {_revision()}",
        f"- machine: {_cpu()}, {os.cpu_count()} CPUs, AVX-512: "
        f"{'yes' if machine.has_avx512() else 'no'}; compiler: {_cc()}; "
        f"CFLAGS: `{os.environ.get('CFLAGS', '-O3 -march=native -fopenmp')}`; "
        f"load average at start: {load_average()}",
        f"- numpy {_version('numpy')}, numba {_version('numba')}, "
        f"threadpoolctl {_version('threadpoolctl')}",
        "- OPENBLAS_CORETYPE: unset in every worker"
        + (f" (this shell had OPENBLAS_CORETYPE={coretype})" if coretype else " (not set here)")
        + "; BLAS threads: " + ("threadpoolctl" if _version("threadpoolctl") != "not installed"
                                else "OPENBLAS_NUM_THREADS/OMP_NUM_THREADS in the worker's env"),
        "- each figure: median of interleaved rounds after one warm-up; checked against "
        "CPython (MINI) and the baseline (bench size) first; a run under 50 ms follows an "
        "untimed run of the same variant (steady state: thread pools awake)",
    ]


# --- the PolyBench table -------------------------------------------------------------


def _cell(r: KernelResult, key: str) -> str:
    v = r.variants.get(key)
    if v is None or v.status == "n/a":
        return DASH
    if v.status != "ok":
        return v.status
    if key == BASELINE.key:
        return f"{v.seconds * 1e3:.3g} ms" if v.seconds is not None else DASH
    return _ratio(r.speedup(key))


def _ratio(s: float | None) -> str:
    if s is None:
        return DASH
    return f"{s:.2f}×" if s >= 0.095 else f"{s:.2g}×"


def _bg(x: float | None) -> str:
    return DASH if x is None else f"{x:.2f}" + (" ⚠" if x > BUSY_CPUS else "")


def _compile_cells(ct: CompileTimes | None) -> tuple[str, str, str, str]:
    """Cold first call, of it plan+emit and the C compiler (s), warm first call (ms)."""
    if ct is None or ct.cold_s is None or ct.warm_s is None:
        return (DASH,) * 4 if ct is None or not ct.error else ("ERROR",) * 4
    return (f"{ct.cold_s:.2f}", _seconds(ct.plan_emit_s), _seconds(ct.cc_s),
            f"{ct.warm_s * 1e3:.0f}")


def _seconds(x: float | None) -> str:
    return DASH if x is None else f"{x:.2f}"


def plan_emit_line(results: Sequence[KernelResult]) -> list[str]:
    """The plan+emit goals of issue 16 over the kernels whose compile was measured."""
    times = sorted(t for r in results if r.compile is not None
                   and (t := r.compile.plan_emit_s) is not None)
    if not times:
        return []
    med, top = statistics.median(times), times[-1]
    return [f"- plan+emit (CPU time, frontend to C source, no C compiler) over {len(times)} "
            f"kernels: median {med:.3f} s (goal < {PLAN_EMIT_MEDIAN_GOAL_S} s: "
            f"{_goal(med, PLAN_EMIT_MEDIAN_GOAL_S)}), max {top:.3f} s (goal < "
            f"{PLAN_EMIT_MAX_GOAL_S} s: {_goal(top, PLAN_EMIT_MAX_GOAL_S)})"]


def summary(results: Sequence[KernelResult]) -> dict[str, float | int | None]:
    """Geometric means and counts over the kernels that were timed."""
    def gm(key: str, over: str = BASELINE.key) -> float | None:
        return geomean([s for r in results if (s := r.speedup(key, over)) is not None])

    both = [r for r in results if r.speedup("polyopt-2t") and r.speedup("numba-par")]
    two = [s for r in results if (s := r.speedup("polyopt-2t")) is not None]
    return {
        "polyopt_2t": gm("polyopt-2t"), "polyopt_1t": gm("polyopt-1t"),
        "numba_par": gm("numba-par"), "numba": gm("numba"), "numpy": gm("numpy"),
        "polyopt_2t_over_numba_par": geomean(
            [r.speedup("polyopt-2t", over="numba-par") or 0.0 for r in both]),
        "numba_par_same_kernels": geomean([r.speedup("numba-par") or 0.0 for r in both]),
        "polyopt_2t_same_kernels": geomean([r.speedup("polyopt-2t") or 0.0 for r in both]),
        "kernels_both": len(both),
        "loops_over_numpy": gm("polyopt-2t", "numpy"),
        "array_over_numpy": gm("polyopt-array", "numpy"),
        "kernels_numpy": sum(r.speedup("polyopt-array", "numpy") is not None for r in results),
        "timed": len(two),
        "below_0.95": sum(s < 0.95 for s in two),
        "wrong": sum(v.status == "WRONG" for r in results for v in r.variants.values()),
        "errors": sum(v.status == "ERROR" for r in results for v in r.variants.values()),
        "busy": sum((r.background_cpus or 0.0) > BUSY_CPUS for r in results),
    }


def _fmt(x: float | int | None, suffix: str = "×") -> str:
    return DASH if x is None else f"{x:.2f}{suffix}"


def summary_lines(s: dict[str, float | int | None]) -> list[str]:
    return [
        f"- geometric-mean speedup over the baseline, polyopt 2 threads: "
        f"**{_fmt(s['polyopt_2t'])}** over {s['timed']} kernels (issue 16's goal at LARGE: ≥ 6×, none below 1.0×); "
        f"polyopt 1 thread: {_fmt(s['polyopt_1t'])}",
        f"- polyopt 2t vs Numba parallel 2t: **{_fmt(s['polyopt_2t_over_numba_par'])}** "
        f"(geometric mean of per-kernel ratios over the {s['kernels_both']} kernels both ran: "
        f"polyopt {_fmt(s['polyopt_2t_same_kernels'])}, Numba par "
        f"{_fmt(s['numba_par_same_kernels'])}; issue 16's goal: ≥ 5×)",
        f"- against NumPy 2t (each kernel's own NumPy formulation, else its NumPy-style "
        f"version run by NumPy): polyopt 2t on the loops **{_fmt(s['loops_over_numpy'])}**, "
        f"on the NumPy-style array code **{_fmt(s['array_over_numpy'])}** (geometric means "
        f"of per-kernel ratios, {s['kernels_numpy']} kernels with both; goal for the array "
        f"code: > 1.5×)",
        f"- geometric means over the baseline of the others: NumPy {_fmt(s['numpy'])}, "
        f"Numba 1t {_fmt(s['numba'])}, "
        f"Numba par {_fmt(s['numba_par'])}",
        f"- kernels where polyopt 2t is slower than 0.95× the baseline: {s['below_0.95']}; "
        f"WRONG results: {s['wrong']}; errors: {s['errors']}",
        f"- kernels timed while other processes used more than {BUSY_CPUS} CPUs (⚠, "
        f"2-thread figures unreliable): {s['busy']}",
    ]


def polybench_markdown(results: Sequence[KernelResult], size: str, ctx: list[str]) -> str:
    head = ["kernel", "baseline (gcc -O3, 1t)", *[v.label for v in VARIANTS[1:]],
            "compile cold (s)", "of it plan+emit (s)", "of it gcc (s)", "warm (ms)",
            "others' CPUs"]
    lines = [f"## PolyBench {size}: speedup over the baseline", "", *ctx, "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [r.name, *(_cell(r, v.key) for v in VARIANTS), *_compile_cells(r.compile),
                 _bg(r.background_cpus)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *summary_lines(summary(results)), *plan_emit_line(results)]
    notes = [f"- {r.name} / {k}: {v.status}: {v.detail}" for r in results
             for k, v in r.variants.items() if v.status in ("WRONG", "ERROR")]
    notes += [f"- {r.name}: compile probe: {r.compile.error}" for r in results
              if r.compile is not None and r.compile.error]
    if notes:
        lines += ["", "Problems:", *notes]
    blas = {v.note for r in results if (v := r.variants.get("numpy")) is not None and v.note}
    if blas:
        lines += ["", "NumPy: " + "; ".join(sorted(blas))]
    prange = [f"{r.name}: {v.note}" for r in results
              if (v := r.variants.get("numba-par")) is not None and v.note]
    if prange:
        lines += ["", "Numba parallel: " + "; ".join(prange)]
    return "\n".join(lines) + "\n"


def csv_columns() -> list[str]:
    cols = ["kernel", "category", "size", "flops"]
    for v in VARIANTS:
        cols += [f"{v.key}_status", f"{v.key}_ms", f"{v.key}_speedup", f"{v.key}_runs"]
    return cols + ["compile_cold_s", "compile_plan_emit_s", "compile_cc_s", "compile_warm_s",
                   "background_cpus"]


def write_csv(results: Sequence[KernelResult], path: Path) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(csv_columns())
        for r in results:
            row: list[object] = [r.name, r.category, r.size, r.flops or ""]
            for v in VARIANTS:
                vr = r.variants.get(v.key)
                t, s = r.seconds(v.key), r.speedup(v.key)
                row += [vr.status if vr else "n/a", f"{t * 1e3:.6g}" if t else "",
                        f"{s:.4g}" if s else "", vr.samples if vr else 0]
            ct = r.compile
            row += [f"{ct.cold_s:.4g}" if ct and ct.cold_s is not None else "",
                    f"{ct.plan_emit_s:.4g}" if ct and ct.plan_emit_s is not None else "",
                    f"{ct.cc_s:.4g}" if ct and ct.cc_s is not None else "",
                    f"{ct.warm_s:.4g}" if ct and ct.warm_s is not None else "",
                    f"{r.background_cpus:.3f}" if r.background_cpus is not None else ""]
            w.writerow(row)


def write_chart(results: Sequence[KernelResult], path: Path, size: str) -> str:
    """The speedup chart (matplotlib when importable, else the built-in writer)."""
    groups = [r.name for r in results]
    series = [(v.label, [r.speedup(v.key) for r in results]) for v in VARIANTS[1:]]
    series = [(n, vs) for n, vs in series if any(vs)]
    title = f"PolyBench {size}: speedup over gcc -O3 1t (log scale)"
    if importlib.util.find_spec("matplotlib") is not None:
        _matplotlib_chart(path, groups, series, title)
        return "matplotlib"
    png.bar_chart(path, groups, series, title)
    return "built-in PNG writer"


def _matplotlib_chart(path: Path, groups: list[str],
                      series: list[tuple[str, list[float | None]]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(groups) + 2), 5))
    width = 0.8 / max(len(series), 1)
    for k, (name, vs) in enumerate(series):
        xs = [g + (k - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [(v - 1.0) if v else 0.0 for v in vs]
        ax.bar(xs, heights, width, bottom=1.0, label=name)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=60, ha="right")
    ax.set_ylabel("speedup over baseline")
    ax.set_title(title)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize="small", ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- targets and compile times --------------------------------------------------------


def targets_markdown(rows: Sequence[TargetResult], ctx: list[str]) -> str:
    head = ["target", "baseline 1t", "polyopt 2t", "NumPy 2t", "polyopt / reference",
            "goal", "result", "compile cold / warm", "others' CPUs"]
    peak, why = peak_gflops()
    lines = ["## Performance targets (issue 3)", "", *ctx,
             f"- GFLOP/s; peak {peak['float64']:.0f} fp64 / {peak['float32']:.0f} fp32 "
             f"({why})", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for t in rows:
        r = t.result

        def g(key: str, r: KernelResult = r) -> str:
            v = r.variants.get(key)
            if v is None or v.status == "n/a":
                return DASH
            if v.status != "ok":
                return v.status
            gf = r.gflops(key)
            return f"{gf:.1f}" if gf is not None else DASH

        gf2 = r.gflops("polyopt-2t")
        pct = (f" ({100 * gf2 / peak[t.target.dtype]:.0f}% of peak)" if gf2 else "")
        ref = "NumPy" if t.target.reference == "numpy" else "baseline"
        ct = t.compile
        comp = (f"{ct.cold_s:.2f} s / {ct.warm_s * 1e3:.0f} ms"
                if ct.cold_s is not None and ct.warm_s is not None else "ERROR")
        lines.append("| " + " | ".join([
            r.category, g("baseline"), g("polyopt-2t") + pct, g("numpy"),
            f"{_fmt(t.ratio)} of {ref}", f"≥ {t.target.goal:g}×", t.verdict, comp,
            _bg(r.background_cpus)]) + " |")
        if t.contraction is not None:
            notes.append(f"- {r.category}: temporary `{t.target.temporary}` {t.contraction}")
        if t.target.ceiling:
            notes.append(f"- {r.category}: {_ceiling_note(t.ceiling, r.gflops('baseline'))}")
        notes += [f"- {r.category} / {k}: {v.status}: {v.detail}"
                  for k, v in r.variants.items() if v.status in ("WRONG", "ERROR")]
    blas = {v.note for t in rows if (v := t.result.variants.get("numpy")) is not None and v.note}
    notes += [f"- NumPy: {n}" for n in sorted(blas)]
    return "\n".join(lines + ["", *notes]) + "\n"


def _goal(x: float | None, goal: float) -> str:
    return DASH if x is None else ("PASS" if x < goal else "MISS")


def compile_markdown(times: Sequence[CompileTimes], overhead: Overhead | None,
                     ctx: list[str]) -> str:
    lines = ["## Compile time and call overhead (issue 2)", "", *ctx]
    if times:
        lines += ["", "| kernel | cold first call | of which plan+emit (CPU) "
                  "| of which C compiler | goal < 1 s "
                  "| warm first call (new process) | goal < 20 ms | import polyopt |",
                  "|---|---|---|---|---|---|---|---|"]
        for ct in times:
            if ct.cold_s is None or ct.warm_s is None:
                lines.append(f"| {ct.kernel} | ERROR: {ct.error} | | | | | | |")
                continue
            lines.append(
                f"| {ct.kernel} | {ct.cold_s * 1e3:.0f} ms "
                f"| {DASH if ct.plan_emit_s is None else f'{ct.plan_emit_s * 1e3:.0f} ms'} "
                f"| {DASH if ct.cc_s is None else f'{ct.cc_s * 1e3:.0f} ms'} "
                f"| {_goal(ct.cold_s, COLD_GOAL_S)} "
                f"| {ct.warm_s * 1e3:.1f} ms | {_goal(ct.warm_s, WARM_GOAL_S)} "
                f"| {ct.import_s * 1e3 if ct.import_s else 0:.0f} ms |")
        lines += ["", "Cold: a new process, empty `POLYOPT_CACHE_DIR`, from `polyopt.jit(f)` "
                  "until the first call (MINI inputs) returns. Warm: the same in a second new "
                  "process on that cache. `import polyopt` is not included in either. The C "
                  "compiler's share is its recorded command run again alone."]
    if overhead is not None:
        ov = overhead.overhead_s
        nb = overhead.numba_call_s
        lines += ["", "| per call | polyopt | direct cffi call | overhead | goal < 1 µs "
                  "| Numba | polyopt / Numba |", "|---|---|---|---|---|---|---|",
                  f"| `add3(a, b, c)`: `c[i] = a[i] + b[i]`, 1 element "
                  f"| {overhead.polyopt_call_s * 1e6:.2f} µs "
                  f"| {overhead.direct_call_s * 1e6:.2f} µs | {ov * 1e6:.2f} µs "
                  f"| {_goal(ov, OVERHEAD_GOAL_S)} "
                  f"| {DASH if nb is None else f'{nb * 1e6:.2f} µs'} "
                  f"| {DASH if nb is None else _ratio(overhead.polyopt_call_s / nb)} |"]
        pw = overhead.python_wrapper_call_s
        if pw is not None:
            lines += ["", f"The warm call took {overhead.entry or 'polyopt'}'s path; the same "
                      f"kernel through the Python wrapper (the fallback): {pw * 1e6:.2f} µs per "
                      f"call ({_ratio(pw / overhead.polyopt_call_s)} the entry's), timed in the "
                      "same interleaved rounds."]
        if nb is None:
            lines += ["", f"Numba: {overhead.numba_missing}."]
    return "\n".join(lines) + "\n"
