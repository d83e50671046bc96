"""NumPy-style PolyBench kernels (``examples/polybench_numpy``): compile times of
``polyopt.jit`` on the array code beside those on the loop nest, and the speed of the
compiled array code against the same function run by NumPy.

``python -m bench.numpy_style [--size SMALL] [--repeat 5] [--compile] [KERNEL ...]``.
Compile times are cold (empty cache, new process: :mod:`bench.compile_times`); run
times are the median of ``--repeat`` calls on fresh copies of the inputs, after one
warm-up call; the speed-up is NumPy's time over polyopt's, with their geomean.
"""

from __future__ import annotations

import argparse
import copy
import math
import time
from collections.abc import Callable
from typing import Any

from bench.compile_times import cold_warm
from bench.specs import load_spec
from bench.timing import median


def run_seconds(fn: Callable[..., Any], args: dict[str, Any], repeat: int) -> float:
    """Median time of ``fn(**copy)`` over ``repeat`` calls, after a warm-up call."""
    fn(**copy.deepcopy(args))
    times = []
    for _ in range(repeat):
        fresh = copy.deepcopy(args)
        t0 = time.perf_counter()
        fn(**fresh)
        times.append(time.perf_counter() - t0)
    return median(times)


def main() -> None:
    import polyopt
    from examples.polybench_numpy import KERNELS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", default=list(KERNELS))
    parser.add_argument("--size", default="SMALL")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="also cold compile times")
    opts = parser.parse_args()
    speedups = []
    print(f"{'kernel':16} {'numpy ms':>9} {'polyopt ms':>10} {'speed-up':>8}"
          + ("  cold compile: loops s, array code s" if opts.compile else ""))
    for name in opts.kernels:
        spec = load_spec("polybench-numpy", name)
        args = spec.init(**spec.sizes[opts.size])
        t_np = run_seconds(spec.kernel, args, opts.repeat)
        t_po = run_seconds(polyopt.jit(spec.kernel), args, opts.repeat)
        speedups.append(t_np / t_po)
        line = f"{name:16} {1e3 * t_np:9.3f} {1e3 * t_po:10.3f} {t_np / t_po:7.2f}x"
        if opts.compile:
            loops, array = cold_warm("polybench", name), cold_warm("polybench-numpy", name)
            line += f"  {loops.cold_s or float('nan'):8.2f} {array.cold_s or float('nan'):8.2f}"
        print(line, flush=True)
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
    print(f"geomean speed-up over NumPy: {geomean:.2f}x ({len(speedups)} kernels, {opts.size})")


if __name__ == "__main__":
    main()
