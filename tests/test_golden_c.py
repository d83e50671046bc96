"""Golden files of the C that ``@polyopt.jit`` generates with its default options.

A change to code generation or to the automatic scheduler shows up here as a
diff to review.  When the change is intended, rewrite the files with ::

    POLYOPT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_golden_c.py

and commit them with the change.  The files do not depend on the machine: the
register tiles the scheduler picks depend on the vector unit, so the test fixes
it to AVX2's (256-bit, 16 registers), and the source path in the header comment
is written relative to the repository.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import kernels
import numpy as np
import pytest
from kernels import CASES

import polyopt
from polyopt.model import target

GOLDEN = Path(__file__).parent / "golden" / "c"
NAMES = ("gemm", "rowsum_scale", "jacobi_2d", "prefix_sum", "dot", "mm_exp_mm")
UPDATE = os.environ.get("POLYOPT_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _avx2(monkeypatch):
    monkeypatch.setattr(target, "vector_unit", lambda: target.VectorUnit(256, 16))


def generated_c(name: str) -> str:
    case = CASES[name]
    kernel = polyopt.jit(case.fn)
    text = kernel.c_source(*case.make(np.random.default_rng(0), 8))
    return text.replace(str(Path(kernels.__file__).resolve()), "tests/kernels.py")


@pytest.mark.parametrize("name", NAMES)
def test_generated_c_matches_golden(name: str) -> None:
    text = generated_c(name)
    path = GOLDEN / f"{name}.c"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        pytest.skip(f"rewrote {path}")
    assert path.exists(), f"no golden file {path}: run with POLYOPT_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"golden/c/{name}.c", tofile="generated", n=2))
        pytest.fail(f"the C generated for {name} changed (POLYOPT_UPDATE_GOLDEN=1 rewrites the "
                    f"golden file if that is intended):\n{diff}")


def test_golden_files_are_the_ones_tested() -> None:
    if UPDATE:
        pytest.skip("rewriting")
    assert sorted(p.stem for p in GOLDEN.glob("*.c")) == sorted(NAMES)
