"""Generated C that must be right whatever the schedule: scalars shared with outlined
parallel bodies, `restrict` and gcc, and expressions too deep to print recursively."""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python

import polyopt


def time_tiled_sum(u, A):
    n = len(A)
    total = 0.0
    for i in range(n):  # noqa: B007 (the issue's program, as found)
        for j in range(n):
            total += A[1, 1]
            for k in range(n):
                A[k, k] = u[j]
    return total


@pytest.mark.parametrize("n", [2, 11, 40])
def test_scalar_sum_in_a_parallel_time_tiled_nest_is_not_lost(rng, n):
    """`total` was passed by value to the outlined tile body: the result was 0.0."""
    kernel = polyopt.jit(time_tiled_sum)
    u, A = rng.standard_normal(n), rng.standard_normal((n, n))
    assert check_against_python(kernel, u, A) != 0.0
    src = kernel.c_source(u, A)
    # The scheduler no longer time-tiles this nest (a scalar written two loops deep leaves
    # isl no permutable band); finding 003 pins a parallel body that writes a live-out scalar.
    for helper in re.findall(r"static void \w+\(([^)]*)\)", src):
        assert not re.search(r"\bdouble total\b", helper), helper


def gcc_restrict_case(u, A):
    n = len(u)
    for i in range(n - 1, -1, -1):
        for j in range(n - 1):
            for k in range(n):
                if j == i:
                    u[k] = math.sqrt(abs(u[k] * 1.5 + (u[k + 1] if k < n - 1 else 0.0)))
                elif j > 0:
                    A[k, j - 1] *= 0.5
                A[n - 1 - k, n - 1 - j] -= (2.0 if j > 1 else math.sin(u[n - 1 - j])
                                            - (A[j + 1, i] if i == 0 else A[j, k]))


@pytest.mark.parametrize("auto", [False, True])
@pytest.mark.parametrize("n", [8, 13])
def test_program_gcc_miscompiled_with_restrict_is_right(rng, auto, n):
    kernel = polyopt.jit(gcc_restrict_case, auto=auto)
    check_against_python(kernel, rng.standard_normal(n), rng.standard_normal((n, n)))


def test_gcc_builds_without_its_loop_distribution():
    from polyopt.backend_c import build

    tc = build.toolchain()
    if not build._is_gcc(tuple(tc.compiler), tc.identity):
        pytest.skip(f"{tc.compiler} is not gcc")
    assert "-fno-tree-loop-distribution" in tc.flags


def test_reduced_gcc_case_is_right_with_polyopts_flags(tmp_path):
    """docs/design/gcc-loop-distribution.c, built as polyopt builds kernels."""
    from polyopt.backend_c import build

    tc = build.toolchain(("-ffp-contract=off",))  # both copies round alike
    src = Path(__file__).resolve().parents[1] / "docs" / "design" / "gcc-loop-distribution.c"
    exe = tmp_path / "case"
    flags = [f for f in tc.flags if f not in ("-shared", "-fPIC")]
    subprocess.run([*tc.compiler, *flags, str(src), "-o", str(exe)], check=True, timeout=120)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stdout


def _deep_kernel(tmp_path: Path, name: str, expr: str):
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(f"def {name}(x, y):\n    for i in range(x.shape[0]):\n        y[i] = {expr}\n")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}, {"auto": False}])
def test_sum_of_330_terms_compiles(rng, tmp_path, options):
    """RecursionError in backend_c/cexpr.py, before."""
    fn = _deep_kernel(tmp_path, "sum330", " + ".join(f"x[i] * {k}.0" for k in range(330)))
    check_against_python(polyopt.jit(fn, **options), rng.standard_normal(5), np.zeros(5))


def test_deeply_nested_expression_compiles(rng, tmp_path):
    expr = "x[i]"
    for k in range(150):  # CPython's parser allows 200 nested parentheses
        expr = f"({expr} * 0.5 + x[i] * {k}.0)"
    fn = _deep_kernel(tmp_path, "nested150", expr)
    check_against_python(polyopt.jit(fn), rng.standard_normal(5), np.zeros(5))


def test_expression_too_deep_for_the_frontend_is_a_clean_refusal(tmp_path):
    fn = _deep_kernel(tmp_path, "sum1000", " + ".join(["x[i]"] * 1000))
    with pytest.raises(polyopt.UnsupportedError, match="nested 1002 levels deep") as info:
        polyopt.jit(fn)(np.ones(3), np.zeros(3))
    assert info.value.lineno == 3
