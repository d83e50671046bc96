"""Golden files of the C that ``@polyopt.jit`` generates, for small kernels.

A change to code generation or to the automatic scheduler shows up here as a
diff to review (tests/golden/README.md says what each file protects).  When the
change is intended, rewrite the files with ::

    POLYOPT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_golden_c.py

and commit them with the change.  The files do not depend on the machine: the
register tiles the scheduler picks depend on the vector unit, so each case fixes
one, and the source path in the header comment is written relative to the
repository.  polyopt's C prelude, the same in every file, is left out: a marker
line names the block of ``backend_c/prelude.py`` it stands for.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

import kernels
import numpy as np
import pytest
from kernels import CASES
from polyopt.backend_c.prelude import (
    OMP_RUNTIME,
    PREFETCH,
    PRELUDE,
    PRIVATE_ARRAYS,
    ROW_RANGES,
    VECTOR_MATH,
)

import polyopt
from polyopt.model import target

GOLDEN = Path(__file__).parent / "golden" / "c"
AVX2 = target.VectorUnit(256, 16)
SCALAR = target.VectorUnit(64, 2)  # one float64 lane: a 2 x 2 register tile
#: name -> (vector unit, jit options)
SETTINGS: dict[str, tuple[target.VectorUnit, dict[str, Any]]] = {
    "gemm": (SCALAR, {}),
    "rowsum_scale": (AVX2, {}),
    "jacobi_2d": (AVX2, {}),
    "prefix_sum": (AVX2, {}),
    "dot": (AVX2, {}),
    "mm_exp_mm": (AVX2, {"unroll_jam": False}),
    "gemm_avx2": (target.NAMED["avx2"], {}),
    "gemm_avx512": (target.NAMED["avx512"], {}),
}
#: golden files of a kernel on another target: name -> (kernel, size), the size large
#: enough for one full register tile (AVX-512's float64 tile is 8 x 16)
VARIANTS = {"gemm_avx2": ("gemm", 8), "gemm_avx512": ("gemm", 16)}
PRELUDES = {"prelude": PRELUDE, "vector math": VECTOR_MATH, "private arrays": PRIVATE_ARRAYS,
            "OpenMP runtime": OMP_RUNTIME, "row ranges": ROW_RANGES, "prefetch": PREFETCH}
UPDATE = os.environ.get("POLYOPT_UPDATE_GOLDEN") == "1"


def generated_c(name: str, monkeypatch: pytest.MonkeyPatch) -> str:
    unit, options = SETTINGS[name]
    monkeypatch.setattr(target, "vector_unit", lambda: unit)
    kernel_name, size = VARIANTS.get(name, (name, 8))
    case = CASES[kernel_name]
    kernel = polyopt.jit(case.fn, **options)
    text = kernel.c_source(*case.make(np.random.default_rng(0), size))
    for part, block in PRELUDES.items():
        text = text.replace(block, f"/* polyopt {part}: backend_c/prelude.py */\n")
    return text.replace(str(Path(kernels.__file__).resolve()), "tests/kernels.py")


def check(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        pytest.skip(f"rewrote {path}")
    assert path.exists(), f"no golden file {path}: run with POLYOPT_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"golden/c/{path.name}", tofile="generated", n=2))
        pytest.fail(f"the generated C changed (POLYOPT_UPDATE_GOLDEN=1 rewrites the golden "
                    f"file if that is intended):\n{diff}")


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_generated_c_matches_golden(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check(GOLDEN / f"{name}.c", generated_c(name, monkeypatch))


def test_golden_files_are_the_ones_tested() -> None:
    if UPDATE:
        pytest.skip("rewriting")
    assert sorted(p.stem for p in GOLDEN.glob("*.c")) == sorted(SETTINGS)


def axpy(a, x, y):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


def row_sums(A, s):
    for i in range(A.shape[0]):
        t = 0.0
        for j in range(A.shape[1]):
            t += A[i, j]
        s[i] = t


def test_only_a_parallel_body_with_a_loop_is_outlined(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call per iteration would keep gcc from vectorizing a one-dimensional
    ``parallel for simd`` loop; a body with a loop is outlined for its restrict pointers."""
    monkeypatch.setattr(target, "vector_unit", lambda: AVX2)
    x = np.ones(8)
    flat = polyopt.jit(axpy).c_source(2.0, x, x.copy())
    assert "#pragma omp parallel for simd" in flat and "_body0" not in flat
    nested = polyopt.jit(row_sums).c_source(np.ones((8, 8)), x)
    assert "#pragma omp parallel for" in nested and "polyopt_row_sums_body0(" in nested
