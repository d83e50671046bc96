"""polyopt's compile times: cold (empty cache) and warm (a new process, cache hit).

Each figure is measured in a fresh Python process (``python -m bench.compile_times
SUITE KERNEL``): the inputs are made first, then the clock runs from the
``polyopt.jit(kernel)`` call until the first call (on MINI inputs, so the run
itself costs nothing) returns.  *Cold* uses an empty ``POLYOPT_CACHE_DIR``:
frontend, analysis, scheduling, code generation and the C compiler all run.
*Warm* is a second new process on the same cache directory.  The time to
``import polyopt`` is reported apart.  Of the cold time, two parts are measured again
alone: *plan+emit* (frontend, analysis, scheduling and C generation: ``c_source`` of a
fresh ``polyopt.jit`` object in the cold process, in CPU seconds, so that other
processes' load does not count; its forked children's included) and the C compiler (its recorded command run again).  A warm run that wrote to the cache was
not a hit (polyopt's own source changed in between, which changes every cache
key): it is run again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import WORKDIR, module_command
from bench.timing import cpu_seconds, median

#: Goals from issue 2.
COLD_GOAL_S = 1.0
WARM_GOAL_S = 0.020
#: Goals from issue 16, over the PolyBench kernels: plan+emit median and maximum.
PLAN_EMIT_MEDIAN_GOAL_S = 0.2
PLAN_EMIT_MAX_GOAL_S = 1.0


@dataclass(frozen=True)
class CompileTimes:
    kernel: str
    cold_s: float | None
    warm_s: float | None
    import_s: float | None
    error: str = ""
    cc_s: float | None = None  # of the cold time: the C compiler, run again alone
    plan_emit_s: float | None = None  # of the cold time: plan+emit, run again alone (CPU)


def probe(suite: str, kernel: str, cache_dir: str, timeout: float = 600,
          plan_emit: bool = False) -> dict[str, float]:
    """Run one first-call measurement in a new process on ``cache_dir`` (and then, when
    asked, one of plan+emit alone)."""
    env = dict(os.environ, POLYOPT_CACHE_DIR=cache_dir, OMP_NUM_THREADS="1")
    extra = ("plan_emit",) if plan_emit else ()
    proc = subprocess.run(module_command("bench.compile_times", suite, kernel, *extra),
                          cwd=WORKDIR, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"compile probe failed: {last}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold_warm(suite: str, kernel: str, repeat: int = 1) -> CompileTimes:
    """Median cold and warm first-call times over ``repeat`` fresh cache directories."""
    cold, warm, imp, cc, plan = [], [], [], [], []
    try:
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="polyopt-bench-cache-") as d:
                c = probe(suite, kernel, d, plan_emit=True)
                w = probe(suite, kernel, d)
                if w["new_files"]:  # polyopt's own code changed in between: a miss
                    w = probe(suite, kernel, d)
                if w["new_files"]:
                    raise RuntimeError("the warm run missed the cache twice")
                cc.append(_compiler_seconds(Path(d)))
            cold.append(c["first_call_s"])
            plan.append(c["plan_emit_s"])
            warm.append(w["first_call_s"])
            imp.append(w["import_s"])
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
        return CompileTimes(kernel, None, None, None, str(exc))
    return CompileTimes(kernel, median(cold), median(warm), median(imp), "", median(cc),
                        median(plan))


def _compiler_seconds(cache: Path) -> float:
    """Time the C compiler commands recorded in the cache's manifests, run again."""
    total = 0.0
    for manifest in cache.glob("lib/*/manifest.json"):
        cmd = json.loads(manifest.read_text()).get("command")
        if not cmd or "-o" not in cmd:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cmd = list(cmd)
            cmd[cmd.index("-o") + 1] = str(Path(tmp) / "kernel.so")
            cmd = [str(manifest.parent / "kernel.c") if c.endswith("kernel.c") else c
                   for c in cmd]
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=False, timeout=600)
            total += time.perf_counter() - t0
    return total


def _files(root: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(root))


def _measure(suite: str, kernel: str, plan_emit: bool) -> dict[str, float]:
    t0 = time.perf_counter()
    import polyopt
    from bench.specs import load_spec

    import_s = time.perf_counter() - t0
    spec = load_spec(suite, kernel)
    args = spec.positional(spec.args("MINI"))
    cache = Path(os.environ["POLYOPT_CACHE_DIR"])
    before = _files(cache)
    t1 = time.perf_counter()
    compiled = polyopt.jit(spec.kernel)
    compiled(*args)
    t2 = time.perf_counter()
    out = {"import_s": import_s, "first_call_s": t2 - t1, "new_files": _files(cache) - before}
    if plan_emit:  # after the first call, so the modules it imports are loaded
        fresh = polyopt.jit(spec.kernel)
        t3 = cpu_seconds()
        fresh.c_source(*args)
        out["plan_emit_s"] = cpu_seconds() - t3
    return out


if __name__ == "__main__":
    print(json.dumps(_measure(sys.argv[1], sys.argv[2], sys.argv[3:] == ["plan_emit"])))
