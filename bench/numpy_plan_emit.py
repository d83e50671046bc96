"""plan+emit (frontend, analysis, scheduling, C generation; no C compiler) of every
NumPy-style PolyBench kernel beside its loop version, in CPU seconds (so that other
processes' load counts less), the median of ``--repeat`` fresh ``polyopt.jit`` objects.

``python -m bench.numpy_plan_emit [--repeat 3] [KERNEL ...]`` (from outside the checkout,
as ``make bench`` runs it).  Prints one line a kernel and the ratio array/loops.
"""

from __future__ import annotations

import argparse
from typing import Any

from bench.specs import load_spec
from bench.timing import cpu_seconds, median


def plan_emit_seconds(suite: str, name: str, repeat: int) -> float:
    """Median CPU seconds of ``c_source`` on MINI inputs over fresh ``polyopt.jit`` objects."""
    import polyopt

    spec = load_spec(suite, name)
    args: list[Any] = spec.positional(spec.args("MINI"))
    times = []
    for _ in range(repeat):
        fresh = polyopt.jit(spec.kernel)
        t0 = cpu_seconds()
        fresh.c_source(*args)
        times.append(cpu_seconds() - t0)
    return median(times)


def main() -> None:
    from examples.polybench_numpy import KERNELS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", default=list(KERNELS))
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    plan_emit_seconds("polybench", opts.kernels[0], 1)  # imports and isl set-up off the clock
    print(f"{'kernel':16} {'loops s':>8} {'array s':>8} {'ratio':>6}", flush=True)
    for name in opts.kernels:
        loops = plan_emit_seconds("polybench", name, opts.repeat)
        array = plan_emit_seconds("polybench-numpy", name, opts.repeat)
        print(f"{name:16} {loops:8.3f} {array:8.3f} {array / loops:6.1f}", flush=True)


if __name__ == "__main__":
    main()
