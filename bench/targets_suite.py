"""The performance targets of issue 3, each measured side by side in one run.

- gemm N=1024 f64 written i,j,k: polyopt (2 threads) at least 75% of NumPy's
  ``A @ B`` (OpenBLAS, 2 threads), in GFLOP/s.
- matmul -> exp -> matmul (f32): at least 75% of ``np.exp(A @ B) @ E``.
- jacobi-2d N=1300, 100 steps: at least 4x the baseline.
- row-sum -> scale 4096x4096: at least 1.5x the baseline (and the temporary
  should be contracted away).
"""

from __future__ import annotations

import functools
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench import ceiling
from bench.compile_times import CompileTimes, cold_warm
from bench.measure import KernelResult, Pool, measure_kernel
from bench.progress import Progress
from bench.specs import TARGET, load_spec, target_names
from bench.variants import BASELINE, BY_KEY

#: Peak of the 2-core test machines with AVX-512 (shared/guide/benchmarking.md), GFLOP/s,
#: assumed where the probe cannot run; halved on a host without AVX-512 (two 256-bit FMA
#: pipes instead of two 512-bit ones).  A Zen 4 host, whose 512-bit FMAs are split in two,
#: measured 111-117 fp64 instead.
PEAK_GFLOPS_AVX512 = {"float64": 280.0, "float32": 560.0}


@functools.lru_cache(maxsize=1)
def peak_gflops() -> tuple[dict[str, float], str]:
    """The peak of this host on 2 threads, and where the figure comes from: measured by
    ``bench/probes/fma_peak.c`` where it runs, else assumed from the vector unit."""
    from bench.machine import has_avx512

    measured = ceiling.fma_peak(2)
    if measured is not None:
        return measured, "measured on this host: 2 threads of multiply-adds in registers"
    if has_avx512():
        return dict(PEAK_GFLOPS_AVX512), "assumed: 2 cores, AVX-512, ~4.4 GHz"
    return ({k: v / 2 for k, v in PEAK_GFLOPS_AVX512.items()},
            "assumed: this host has no AVX-512, half the guide's AVX-512 figure")


@dataclass(frozen=True)
class Target:
    name: str
    reference: str  # the variant the ratio is taken against
    goal: float  # polyopt 2t / reference speed must reach this
    dtype: str
    temporary: str | None = None  # a temporary that fusion should contract away
    ceiling: bool = False  # measure the statement's in-cache ceiling (bench/ceiling.py)


TARGETS: dict[str, Target] = {
    "gemm": Target("gemm", "numpy", 0.75, "float64"),
    "mm-exp-mm": Target("mm-exp-mm", "numpy", 0.75, "float32", "T"),
    "jacobi-2d": Target("jacobi-2d", "baseline", 4.0, "float64", ceiling=True),
    "rowsum-scale": Target("rowsum-scale", "baseline", 1.5, "float64", "rs"),
}
VARIANT_KEYS = ("baseline", "polyopt-2t", "numpy")


@dataclass
class TargetResult:
    target: Target
    result: KernelResult
    compile: CompileTimes
    contraction: str | None  # what became of the temporary in the C (None: not asked)
    ceiling: dict[int, float] | None = None  # GFLOP/s in cache per thread count

    @property
    def ratio(self) -> float | None:
        return self.result.speedup("polyopt-2t", over=self.target.reference)

    @property
    def verdict(self) -> str:
        r = self.ratio
        return "–" if r is None else ("PASS" if r >= self.target.goal else "MISS")


def _contraction(name: str, temp: str) -> str:
    import polyopt

    spec = load_spec("targets", name)
    source = polyopt.jit(spec.kernel).c_source(**spec.args("MINI"))
    # every function after the bounds check: the kernel and the helpers its loops are
    # outlined into
    code = source[source.find("\n}\n", source.find("_check(")):]
    body = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    if re.search(rf"\b{re.escape(temp)}\[", body):
        return "NOT contracted (still an array in the C)"
    buffer = re.search(rf"\b({re.escape(temp)}_rows?\d*)\[", body)
    if buffer:
        return (f"contracted to the buffer `{buffer.group(1)}` (a row, or a block of rows, "
                "per thread)")
    return "contracted away (not indexed in the generated C)"


def run(repeat: int, out_dir: Path, wait_idle: float = 0.0) -> list[TargetResult]:
    names = target_names()
    variants = [BY_KEY[k] for k in VARIANT_KEYS]
    progress = Progress(len(names), "targets")
    pool = Pool(variants, out_dir / "logs")
    out: list[TargetResult] = []
    try:
        with tempfile.TemporaryDirectory(prefix="polyopt-bench-") as work:
            for name in names:
                spec = load_spec("targets", name)
                r = measure_kernel(pool, spec, TARGET, variants, repeat, Path(work), progress,
                                   wait_idle=wait_idle)
                progress.show(f"{name}: compile time cold/warm")
                ct = cold_warm("targets", name)
                t = TARGETS[name]
                if t.ceiling:
                    progress.show(f"{name}: in-cache ceiling")
                out.append(TargetResult(t, r, ct, _contraction(name, t.temporary)
                                        if t.temporary else None,
                                        ceiling.jacobi_2d() if t.ceiling else None))
                progress.step(name)
    finally:
        pool.close()
        progress.close()
    return out


__all__ = ["BASELINE", "TARGETS", "TargetResult", "peak_gflops", "run"]
