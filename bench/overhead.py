"""Per-call overhead of ``@polyopt.jit``: a tiny kernel against a direct cffi call.

The kernel is :func:`bench.kernels.tiny` (``x[0] = 1.0`` on a one-element
array).  After polyopt has compiled it, its cached ``kernel.so`` is loaded again
here with cffi in ABI mode and the C function is called directly, with the
array's buffer prepared once.  The difference per call is what polyopt's
dispatch and checks (types, contiguity, overlap, bounds) cost.

Runs in its own process (``python -m bench.overhead``) with an empty cache
directory, so the cache index holds exactly this kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import WORKDIR, module_command
from bench.timing import median

#: Goal from issue 2, in seconds.
OVERHEAD_GOAL_S = 10e-6


@dataclass(frozen=True)
class Overhead:
    polyopt_call_s: float
    direct_call_s: float

    @property
    def overhead_s(self) -> float:
        return self.polyopt_call_s - self.direct_call_s


def _direct_call(cache: Path, x: Any) -> Callable[[], Any]:
    """The cached library's C function, loaded with cffi, bound to ``x``."""
    import cffi
    from polyopt.backend_c.interface import KernelInterface

    (index,) = sorted((cache / "index").glob("*.json"))
    data = json.loads(index.read_text())
    iface = KernelInterface.from_json(data["interface"])
    ffi = cffi.FFI()
    ffi.cdef(iface.cdef())
    lib = ffi.dlopen(str(cache / "lib" / data["library"] / "kernel.so"))
    fn = getattr(lib, iface.function)
    c_args: list[Any] = []
    for name, kind, ctype in iface.c_args:
        if kind == "array":
            c_args.append(ffi.from_buffer(f"{ctype}[]", x))
        elif name in iface.param_sources:
            c_args.append(x.shape[iface.param_sources[name][1]])
        else:
            raise RuntimeError(f"unexpected argument {name} ({kind}) of the tiny kernel")

    def call() -> Any:
        _ = lib  # the closure keeps the library loaded
        return fn(*c_args)
    return call


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def _measure(rounds: int, calls: int) -> dict[str, float]:
    import numpy as np

    import polyopt
    from bench.kernels import tiny

    x = np.zeros(1)
    kernel = polyopt.jit(tiny)
    kernel(x)
    direct = _direct_call(Path(os.environ["POLYOPT_CACHE_DIR"]), x)
    x[0] = 0.0
    direct()
    if x[0] != 1.0:
        raise RuntimeError("the direct cffi call did not run the kernel")

    def via_polyopt() -> None:
        kernel(x)
    _per_call(via_polyopt, calls // 10)  # warm-up
    _per_call(direct, calls // 10)
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):  # interleaved
        a.append(_per_call(via_polyopt, calls))
        b.append(_per_call(direct, calls))
    return {"polyopt_call_s": median(a), "direct_call_s": median(b)}


def measure(rounds: int = 7, calls: int = 20000) -> Overhead:
    """Measure in a new process with an empty cache directory."""
    with tempfile.TemporaryDirectory(prefix="polyopt-bench-overhead-") as d:
        env = dict(os.environ, POLYOPT_CACHE_DIR=d, OMP_NUM_THREADS="1")
        proc = subprocess.run(module_command("bench.overhead", str(rounds), str(calls)),
                              cwd=WORKDIR, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"overhead probe failed: {proc.stderr.strip()[-2000:]}")
    return Overhead(**json.loads(proc.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    print(json.dumps(_measure(int(sys.argv[1]), int(sys.argv[2]))))
