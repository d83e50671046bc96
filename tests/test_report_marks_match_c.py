"""The report's final loops say parallel and simd exactly where the generated C has
``#pragma omp ... for`` and ``simd``.  A dimension that runs one iteration (isl's time
tiling repeats ``j`` as cholesky's ``k`` loop of ``A[i, j] /= A[j, j]``; index-set
splitting leaves floyd-warshall's ``i == k`` piece) has no loop in the C, but it was
marked and reported as a simd or parallel loop ("k#2  simd, accumulator in a register"
around a statement that has no ``k``)."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import polyopt

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt
from examples.polybench import KERNELS  # noqa: E402


def _final_loops(report: str) -> list[str]:
    done = report.split("What was done", 1)[1]
    return done.split("  Loops\n", 1)[1].split("  Temporaries", 1)[0].splitlines()


def _values(name: str) -> list[object]:
    mod = KERNELS[name]
    sizes = mod.SIZES["MINI"]
    args = mod.init(**sizes)
    return [args[p] if p in args else sizes[p] for p in inspect.signature(mod.kernel).parameters]


# kernels without array reductions, whose copies are combined by loops the report omits
@pytest.mark.parametrize("name", ["cholesky", "lu", "ludcmp", "floyd-warshall", "gemm", "syrk"])
def test_reported_marks_are_the_pragmas(name: str) -> None:
    values = _values(name)
    kernel = polyopt.jit(KERNELS[name].kernel)
    src = kernel.c_source(*values)
    loops = _final_loops(str(kernel.report(*values)))
    parallel_c = len(re.findall(r"#pragma omp (?:parallel for|for)\b", src))
    simd_c = len(re.findall(r"#pragma omp (?:parallel for simd|simd)\b", src))
    parallel_r = sum(bool(re.search(r"\bparallel\b", line)) for line in loops)
    simd_r = sum(bool(re.search(r"\bsimd\b", line)) for line in loops)
    # isl may print one loop more than once (a statement's domain in pieces: the ragged
    # rest of a register tile), so the C can hold more pragmas than the report has loops
    # marked, never fewer; a loop the report marks is in the C at least once
    assert parallel_r == parallel_c and 0 < simd_r <= simd_c, "\n".join(loops)
    # a register tile's loops are vectorized from the unrolled copies, with no pragma
    assert not any("register-tiled" in line and "simd" in line for line in loops), loops


def test_no_step_marks_a_single_iteration() -> None:
    report = str(polyopt.jit(KERNELS["cholesky"].kernel).report(*_values("cholesky")))
    assert "k#2 vectorized" not in report and "k#4 vectorized" not in report
    assert "loop k vectorized" in report and "k#3 vectorized" in report
