"""Per-call overhead of ``@polyopt.jit``: a kernel of three array arguments against a
direct cffi call of the same C function, and against Numba.

The kernel is :func:`bench.kernels.add3` (``c[i] = a[i] + b[i]`` on one-element
arrays).  After polyopt has compiled it, its cached ``kernel.so`` is loaded again here
with cffi in ABI mode and the C function is called directly, with the buffers prepared
once.  The difference per call is what polyopt's dispatch and checks (types,
contiguity, writability, overlap, bounds) cost; polyopt's compiled call entry
(backend_c/call_entry.c) skips libffi, so it may be negative.  The same kernel called
through the generated Python wrapper (the fallback, and the warm path before the entry)
is timed beside them.  ``numba.njit`` of the same function
is timed beside it when Numba is installed (the report says when it is not).  The
three are timed in interleaved rounds, so a machine under load slows them alike and
their ratios hold.

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

#: Goal from issue 16, in seconds: polyopt's call minus the direct C call.
OVERHEAD_GOAL_S = 1e-6


@dataclass(frozen=True)
class Overhead:
    polyopt_call_s: float
    direct_call_s: float
    numba_call_s: float | None = None  # None: Numba is not installed
    numba_missing: str = ""  # why Numba was not timed
    python_wrapper_call_s: float | None = None  # the fallback path, the same kernel
    entry: str = ""  # the path polyopt's warm call took

    @property
    def overhead_s(self) -> float:
        return self.polyopt_call_s - self.direct_call_s


def _direct_call(cache: Path, arrays: dict[str, Any]) -> Callable[[], Any]:
    """The cached library's C function, loaded with cffi, bound to ``arrays``."""
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
            c_args.append(ffi.from_buffer(f"{ctype}[]", arrays[name]))
        elif name in iface.param_sources:
            array, dim = iface.param_sources[name]
            c_args.append(arrays[array].shape[dim])
        else:
            raise RuntimeError(f"unexpected argument {name} ({kind}) of the probe kernel")

    def call() -> Any:
        _ = lib  # the closure keeps the library loaded
        return fn(*c_args)
    return call


def _numba_call(arrays: dict[str, Any]) -> tuple[Callable[[], Any] | None, str]:
    try:
        import numba
    except ImportError:
        return None, "Numba is not installed"
    from bench.kernels import add3

    compiled = numba.njit(add3)
    a, b, c = arrays["a"], arrays["b"], arrays["c"]
    compiled(a, b, c)

    def call() -> Any:
        return compiled(a, b, c)
    return call, ""


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def _measure(rounds: int, calls: int) -> dict[str, Any]:
    import numpy as np
    from polyopt.backend_c.call_entry_build import unavailable
    from polyopt.backend_c.fastcall import make_fast_call

    import polyopt
    from bench.kernels import add3

    arrays = {"a": np.ones(1), "b": np.full(1, 2.0), "c": np.zeros(1)}
    a, b, c = arrays["a"], arrays["b"], arrays["c"]
    kernel, wrapped = polyopt.jit(add3), polyopt.jit(add3)
    kernel(a, b, c)
    kernel(a, b, c)  # the first warm call: the compiled entry takes over
    wrapped(a, b, c)
    ((key, compiled),) = wrapped._specializations.items()
    wrapped._fast = wrapped._wrappers[key] = make_fast_call(compiled, key)
    direct = _direct_call(Path(os.environ["POLYOPT_CACHE_DIR"]), arrays)
    c[0] = 0.0
    direct()
    if c[0] != 3.0:
        raise RuntimeError("the direct cffi call did not run the kernel")
    numba_call, missing = _numba_call(arrays)

    def via_polyopt() -> None:
        kernel(a, b, c)

    def via_wrapper() -> None:
        wrapped(a, b, c)
    timed = {"polyopt_call_s": via_polyopt, "direct_call_s": direct,
             "python_wrapper_call_s": via_wrapper}
    if numba_call is not None:
        timed["numba_call_s"] = numba_call
    samples: dict[str, list[float]] = {k: [] for k in timed}
    for f in timed.values():  # warm-up
        _per_call(f, calls // 10)
    for _ in range(rounds):  # interleaved
        for k, f in timed.items():
            samples[k].append(_per_call(f, calls))
    out: dict[str, Any] = {k: median(v) for k, v in samples.items()}
    out["numba_missing"] = missing
    out["entry"] = ("the compiled entry" if type(kernel._fast).__name__ == "Entry"
                    else f"the Python wrapper ({unavailable()})")
    return out


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
