"""The BLAS-like PolyBench kernels against NumPy (issue 16, point 3), side by side.

``python -m bench.linalg_suite [--size LARGE] [--repeat 5]`` checks and times
gemm, 2mm, 3mm, trmm, doitgen and correlation as polyopt on 2 threads and as
NumPy on 2 threads (OpenBLAS), interleaved in one run by the harness of the
PolyBench table (:mod:`bench.measure`), and prints polyopt's speed over NumPy's
for each, with the host's vector unit and caches (the register tile and the
cache blocks follow them).  The as-written baseline is left out: at LARGE it
takes longer than all the rest.  The goal is >= 1.0x NumPy for each kernel.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench.measure import KernelResult, Pool, measure_kernel
from bench.specs import load_spec
from bench.variants import BY_KEY
from polyopt.model import target

DASH = "-"
KERNELS = ("gemm", "2mm", "3mm", "trmm", "doitgen", "correlation")
VARIANTS = (BY_KEY["polyopt-2t"], BY_KEY["numpy"])


def run(size: str, kernels: tuple[str, ...], repeat: int) -> list[KernelResult]:
    pool = Pool(VARIANTS, Path(tempfile.gettempdir()) / "polyopt-linalg-logs")
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="polyopt-linalg-") as work:
            for name in kernels:
                results.append(measure_kernel(pool, load_spec("polybench", name), size,
                                              VARIANTS, repeat, Path(work)))
    finally:
        pool.close()
    return results


def table(results: list[KernelResult]) -> str:
    from bench.targets_suite import peak_gflops

    unit = target.vector_unit()
    peak, why = peak_gflops()
    lines = [f"host: {unit.bits}-bit vectors, {unit.registers} registers, caches "
             f"L1 {unit.caches.l1 // 1024} KiB / L2 {unit.caches.l2 // 1024} KiB / "
             f"L3 {unit.caches.l3 // 1024} KiB; fp64 peak on 2 threads "
             f"{peak['float64']:.0f} GFLOP/s ({why})",
             f"{'kernel':12s} {'size':7s} {'polyopt 2t':>11s} {'NumPy 2t':>11s} {'vs NumPy':>9s}"
             f" {'polyopt GFLOP/s':>16s}"]
    ratios = []
    for r in results:
        p, n = r.seconds("polyopt-2t"), r.seconds("numpy")
        if p is None or n is None:
            status = {k: v.status + (f" ({v.detail[:60]})" if v.detail else "")
                      for k, v in r.variants.items()}
            lines.append(f"{r.name:12s} {r.size:7s} {status}")
            continue
        ratios.append(n / p)
        gf = r.gflops("polyopt-2t")
        rate = DASH if gf is None else f"{gf:.1f} ({100 * gf / peak['float64']:.0f}% of peak)"
        lines.append(f"{r.name:12s} {r.size:7s} {p * 1e3:9.1f}ms {n * 1e3:9.1f}ms {n / p:8.2f}x"
                     f" {rate:>16s}")
    if ratios:
        lines.append(f"{'geomean':12s} {'':7s} {'':11s} {'':11s} "
                     f"{statistics.geometric_mean(ratios):8.2f}x")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="LARGE")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kernels", default=",".join(KERNELS))
    args = ap.parse_args()
    print(table(run(args.size, tuple(args.kernels.split(",")), args.repeat)))


if __name__ == "__main__":
    main()
