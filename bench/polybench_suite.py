"""The PolyBench table (issue 5): every kernel, every variant, one run of the harness."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.compile_times import cold_warm
from bench.measure import KernelResult, Pool, VariantResult, measure_kernel
from bench.progress import Progress
from bench.specs import load_spec
from bench.variants import VARIANTS, Variant, numba_available


def active_variants() -> tuple[list[Variant], dict[str, str]]:
    """The variants to run here, and those left out with the reason."""
    if numba_available():
        return list(VARIANTS), {}
    skipped = {v.key: "numba is not installed (pip install .[peers])"
               for v in VARIANTS if v.kind.startswith("numba")}
    return [v for v in VARIANTS if v.key not in skipped], skipped


def run(size: str, kernels: Sequence[str], repeat: int, out_dir: Path,
        compile_times: bool = True, wait_idle: float = 0.0) -> list[KernelResult]:
    """Check and time every kernel in ``kernels`` at ``size``; one row per kernel."""
    variants, skipped = active_variants()
    progress = Progress(len(kernels), f"polybench {size}")
    pool = Pool(variants, out_dir / "logs")
    results: list[KernelResult] = []
    try:
        with tempfile.TemporaryDirectory(prefix="polyopt-bench-") as work:
            for name in kernels:
                spec = load_spec("polybench", name)
                r = measure_kernel(
                    pool, spec, size, variants, repeat, Path(work), progress,
                    (lambda n=name: cold_warm("polybench", n)) if compile_times else None,
                    wait_idle)
                for key, why in skipped.items():
                    r.variants[key] = VariantResult("n/a", why)
                results.append(r)
                progress.step(name)
    finally:
        pool.close()
        progress.close()
    return results
