"""Check, then time, one kernel as every variant: the procedure both suites share.

1. CPython runs the kernel once on the MINI checking inputs: the reference.
2. Each variant's worker builds its variant and checks it against that
   reference; the baseline also runs at the bench size and stores its result,
   against which every other variant is checked at the bench size.  A variant
   that disagrees is WRONG and is never timed.
3. The variants that passed are timed interleaved (:mod:`bench.timing`): one
   warm-up each, then rounds of one run each; each figure is a median.
   Before each run the other workers must be idle: BLAS and OpenMP runtimes
   keep their threads spinning for a while after a call, and a spinning thread
   from the previous variant would take a core from a 2-thread variant.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import check, machine
from bench.compile_times import CompileTimes
from bench.progress import Progress
from bench.specs import KernelSpec, outputs_of
from bench.timing import rounds_for, run_interleaved
from bench.variants import BASELINE, Variant
from bench.worker import Worker, WorkerError

#: Seconds a worker may take to build and check a variant, and for one timed run.
PREPARE_TIMEOUT_S = 1800.0
RUN_TIMEOUT_S = 900.0


@dataclass
class VariantResult:
    status: str  # "ok" | "WRONG" | "ERROR" | "n/a"
    detail: str = ""  # why it is not ok
    note: str = ""  # how it was built
    seconds: float | None = None  # median of the timed rounds
    samples: int = 0


@dataclass
class KernelResult:
    suite: str
    name: str
    category: str
    size: str
    flops: int | None
    variants: dict[str, VariantResult] = field(default_factory=dict)
    compile: CompileTimes | None = None
    background_cpus: float | None = None  # other processes' CPU use while timing

    def seconds(self, key: str) -> float | None:
        r = self.variants.get(key)
        return r.seconds if r is not None and r.status == "ok" else None

    def speedup(self, key: str, over: str = BASELINE.key) -> float | None:
        """``over``'s time divided by ``key``'s (None unless both were timed)."""
        a, b = self.seconds(over), self.seconds(key)
        return a / b if a and b else None

    def gflops(self, key: str) -> float | None:
        t = self.seconds(key)
        return self.flops / t / 1e9 if t and self.flops else None


class Pool:
    """One long-lived :class:`Worker` per variant, shared by all kernels of a suite."""

    def __init__(self, variants: Sequence[Variant], log_dir: Path) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.workers = {v.key: Worker(v, log_dir / f"worker-{v.key}.log") for v in variants}

    def __getitem__(self, key: str) -> Worker:
        return self.workers[key]

    def pids(self, but: str | None = None) -> list[int]:
        """The process ids of the running workers (except ``but``'s)."""
        return [w.proc.pid for k, w in self.workers.items() if w.proc is not None and k != but]

    def run_once(self, key: str) -> float:
        """One timed run of ``key``, once the other workers' threads have gone idle."""
        machine.wait_processes_idle(self.pids(but=key))
        return float(self[key].request({"op": "time"}, RUN_TIMEOUT_S)["seconds"])

    def close(self) -> None:
        for w in self.workers.values():
            w.close()


def _reference(spec: KernelSpec, path: Path) -> None:
    args = spec.args("MINI", check=True)
    ret = spec.kernel(**args)
    check.save(path, outputs_of(spec, args, ret))


def _prepare(pool: Pool, spec: KernelSpec, size: str, variants: Sequence[Variant],
             workdir: Path) -> dict[str, VariantResult]:
    stem = f"{spec.suite}-{spec.name}"
    ref_mini = workdir / f"{stem}-cpython-MINI.npz"
    ref_bench = workdir / f"{stem}-baseline-{size}.npz"
    _reference(spec, ref_mini)
    ref_bench.unlink(missing_ok=True)
    out: dict[str, VariantResult] = {}

    def request(v: Variant) -> dict[str, object]:
        return {"op": "prepare", "suite": spec.suite, "kernel": spec.name, "size": size,
                "ref_mini": str(ref_mini),
                "save_bench": str(ref_bench) if v is BASELINE else None,
                "ref_bench": str(ref_bench) if v is not BASELINE and ref_bench.exists() else None}

    def finish(v: Variant, req: dict[str, object], send: bool) -> None:
        try:
            if send:
                pool[v.key].send(req)
            reply = pool[v.key].receive(PREPARE_TIMEOUT_S)
        except WorkerError as exc:
            out[v.key] = VariantResult("ERROR", str(exc))
            return
        r = VariantResult(reply["status"], reply.get("detail", ""), reply.get("note", ""))
        if r.status == "ok" and v is not BASELINE and req["ref_bench"] is None:
            r.note = (r.note + "; " if r.note else "") + f"not checked at {size} (no baseline)"
        out[v.key] = r

    if BASELINE in variants:  # first: its result is the others' reference
        finish(BASELINE, request(BASELINE), send=True)
    # the others build and check concurrently (nothing is being timed meanwhile)
    sent: list[tuple[Variant, dict[str, object]]] = []
    for v in variants:
        if v is BASELINE:
            continue
        req = request(v)
        try:
            pool[v.key].send(req)
            sent.append((v, req))
        except WorkerError as exc:
            out[v.key] = VariantResult("ERROR", str(exc))
    for v, req in sent:
        finish(v, req, send=False)
    return out


def measure_kernel(pool: Pool, spec: KernelSpec, size: str, variants: Sequence[Variant],
                   repeat: int, workdir: Path, progress: Progress | None = None,
                   compile_times: Callable[[], CompileTimes] | None = None,
                   wait_idle: float = 0.0) -> KernelResult:
    """Check and time ``spec`` at dataset ``size`` as each of ``variants``.

    With ``wait_idle`` > 0, first wait up to that many seconds for other processes
    to leave the CPUs (see :mod:`bench.machine`).
    """
    result = KernelResult(spec.suite, spec.name, spec.category, size, spec.flop_count(size))
    if progress:
        progress.show(f"{spec.name}: building and checking")
    result.variants = _prepare(pool, spec, size, variants, workdir)
    ok = [v.key for v in variants if result.variants[v.key].status == "ok"]

    def runner(key: str) -> Callable[[], float]:
        return lambda: pool.run_once(key)

    def on_run(key: str, done: int, total: int) -> None:
        if progress:
            progress.show(f"{spec.name}: {key} run {done}/{total}")

    def quiet() -> None:
        if wait_idle > 0:
            machine.wait_until_quiet(wait_idle, pids=pool.pids, on_wait=on_wait)

    def on_wait(bg: float | None) -> None:
        if progress:
            progress.show(f"{spec.name}: waiting for a quiet machine (others use "
                          f"{bg or 0:.1f} CPUs)")

    quiet()
    meter = machine.BackgroundMeter(pool.pids)
    meter.start()
    timings = run_interleaved({k: runner(k) for k in ok}, lambda w: rounds_for(w, repeat),
                              on_run=on_run)
    result.background_cpus = meter.stop()
    for key in ok:
        r = result.variants[key]
        if key in timings.errors:
            r.status, r.detail = "ERROR", timings.errors[key]
        r.seconds = timings.median(key) if r.status == "ok" else None
        r.samples = len(timings.samples[key])
    if compile_times is not None:
        quiet()
        if progress:
            progress.show(f"{spec.name}: compile time cold/warm")
        result.compile = compile_times()
    return result


def geomean(values: Sequence[float]) -> float | None:
    xs = [x for x in values if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None
