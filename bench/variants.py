"""The variants a kernel is timed as, and how each is built inside its worker.

Each variant runs in its own worker process whose environment fixes its thread
count (``OMP_NUM_THREADS`` and friends are read once, when a runtime starts, so
they can only be set reliably per process).  ``OPENBLAS_CORETYPE`` is removed
from every worker's environment so that NumPy's OpenBLAS uses the kernels it
selects for this CPU (AVX-512) rather than a forced, slower core type.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bench.specs import KernelSpec

#: ``polyopt.jit`` options that emit the source loop order as plain C, without pragmas:
#: the baseline "same loop nest compiled by gcc -O3 -march=native, 1 thread".
BASELINE_OPTIONS: dict[str, Any] = {
    "auto": False, "parallel": False, "vectorize": False, "licm": False, "tile": False,
    "fuse": "none", "interchange": False,
}


@dataclass(frozen=True)
class Variant:
    key: str  # a column id: "baseline", "polyopt-2t", ...
    label: str  # the column header
    threads: int
    kind: str  # "baseline" | "polyopt" | "polyopt-array" | "numpy" | "numba" | "numba-par"


BASELINE = Variant("baseline", "baseline gcc -O3 1t", 1, "baseline")
VARIANTS: tuple[Variant, ...] = (
    BASELINE,
    Variant("polyopt-1t", "polyopt 1t", 1, "polyopt"),
    Variant("polyopt-2t", "polyopt 2t", 2, "polyopt"),
    Variant("polyopt-array", "polyopt array code 2t", 2, "polyopt-array"),
    Variant("numpy", "NumPy 2t", 2, "numpy"),
    Variant("numba", "Numba 1t", 1, "numba"),
    Variant("numba-par", "Numba par 2t", 2, "numba-par"),
)
BY_KEY: dict[str, Variant] = {v.key: v for v in VARIANTS}


class Unavailable(Exception):
    """This variant does not exist for this kernel (no NumPy version, no numba)."""


class BaselineError(Exception):
    """The baseline's C is not the plain source loop nest."""


def numba_available() -> bool:
    return importlib.util.find_spec("numba") is not None


def threadpoolctl_available() -> bool:
    return importlib.util.find_spec("threadpoolctl") is not None


def worker_env(variant: Variant, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of ``variant``'s worker process."""
    env = dict(os.environ if base is None else base)
    env.pop("OPENBLAS_CORETYPE", None)
    t = str(variant.threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS"):
        env[var] = t
    return env


_BLAS_LIMITS: list[Any] = []  # keeps threadpoolctl's limits alive for the worker's lifetime


def _limit_blas_threads(threads: int) -> str:
    if not threadpoolctl_available():
        return "BLAS threads from OPENBLAS_NUM_THREADS/OMP_NUM_THREADS"
    import threadpoolctl

    if not _BLAS_LIMITS:
        _BLAS_LIMITS.append(threadpoolctl.threadpool_limits(limits=threads))
    libs = [f"{i.get('internal_api', '?')} {i.get('version', '')} core "
            f"{i.get('architecture', '?')}, {i.get('num_threads', '?')} threads"
            for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    return "BLAS threads set by threadpoolctl (" + ("; ".join(libs) or "no BLAS found") + ")"


def _array_code(spec: KernelSpec) -> Callable[..., Any]:
    """The kernel as NumPy array code (``examples/polybench_numpy``), for PolyBench."""
    if spec.suite != "polybench":
        raise Unavailable("no array-code version")
    from examples.polybench_numpy import KERNELS

    return KERNELS[spec.name].kernel


#: the most iterations of a Python loop the NumPy column times (about a minute of CPython)
PYTHON_ITERATIONS_MAX = 10**8


def too_slow_in_python(spec: KernelSpec, size: str) -> str | None:
    """Why the NumPy version of ``spec`` is not timed at ``size``: NumPy-style seidel-2d
    loops over every element in Python, 2 * 10^9 iterations at LARGE (hours)."""
    if spec.suite != "polybench" or spec.numpy_version is not None:
        return None
    from examples.polybench_numpy import KERNELS

    count = getattr(KERNELS[spec.name], "python_iterations", None)
    n = count(**spec.sizes[size]) if count is not None else 0
    if n <= PYTHON_ITERATIONS_MAX:
        return None
    return (f"the NumPy version runs {n:.1e} iterations of a Python loop at {size} "
            f"(more than {PYTHON_ITERATIONS_MAX:.0e}): not timed")


def build(variant: Variant, spec: KernelSpec, sample: Mapping[str, Any]) -> tuple[Callable[..., Any], str]:
    """The callable for ``variant`` of ``spec`` (positional arguments, the kernel's order)
    and a note on how it was built.  ``sample`` is a set of inputs (types only matter).

    Raises :class:`Unavailable` when the variant does not apply.
    """
    import polyopt

    if variant.kind == "baseline":
        k = polyopt.jit(spec.kernel, **BASELINE_OPTIONS)
        if "#pragma omp" in k.c_source(**sample):
            raise BaselineError("the baseline C has OpenMP pragmas")
        return k, "source order, no pragmas"
    if variant.kind == "polyopt":
        return polyopt.jit(spec.kernel), "default options"
    if variant.kind == "polyopt-array":
        return polyopt.jit(_array_code(spec)), "default options, on the NumPy-style kernel"
    if variant.kind == "numpy":
        note = _limit_blas_threads(variant.threads)
        np_fn = spec.numpy_version or _array_code(spec)
        params = spec.params

        def call(*args: Any) -> Any:
            return np_fn(**dict(zip(params, args, strict=True)))
        return call, note
    if not numba_available():
        raise Unavailable("numba is not installed (pip install .[peers])")
    from bench import numba_port

    if variant.kind == "numba":
        return numba_port.njit_serial(spec.kernel), "njit"
    if variant.kind == "numba-par":
        analysis = polyopt.jit(spec.kernel, **BASELINE_OPTIONS).dependences(**sample)
        fn, lines = numba_port.njit_parallel(spec.kernel, numba_port.parallel_lines(analysis))
        where = ", ".join(str(x) for x in lines) if lines else "none (no parallel loop)"
        return fn, f"njit(parallel=True), prange at line(s) {where}"
    raise ValueError(f"unknown variant kind {variant.kind!r}")
