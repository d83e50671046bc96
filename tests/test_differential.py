"""Differential tests: every corpus kernel, compiled, gives what CPython gives.

Each kernel of :mod:`kernels` is compiled three times (default options, ``parallel=False``,
and the default options with the default parallel threshold, under which these small
calls take the copy of each short parallel loop that runs in order) and run on random
inputs at several sizes, including 0, 1 and sizes where some loop runs zero times; every
array argument and the return value must match the original function run by CPython on
a copy of the inputs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python
from kernels import CASES

import polyopt

_JITTED: dict[tuple[str, bool], polyopt.Kernel] = {}


def jitted(name: str, parallel: bool) -> polyopt.Kernel:
    """One jit object per (kernel, option): each compiles once per signature."""
    key = (name, parallel)
    if key not in _JITTED:
        _JITTED[key] = polyopt.jit(CASES[name].fn, parallel=parallel)
    return _JITTED[key]


@pytest.mark.parametrize("name", sorted(CASES))
def test_small_calls_match_cpython(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default threshold (conftest sets 0): every call here is small, so each short
    parallel loop runs its in-order copy (backend_c/ast_walk.py, ``_versioned``)."""
    monkeypatch.delenv("POLYOPT_PARALLEL_MIN", raising=False)
    case = CASES[name]
    kernel = polyopt.jit(case.fn)
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    for n in case.sizes:
        check_against_python(kernel, *case.make(rng, n))


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("parallel", [True, False], ids=["default", "sequential"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_cpython(name: str, parallel: bool) -> None:
    case = CASES[name]
    kernel = jitted(name, parallel)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for n in case.sizes:
        for _ in range(2):
            args = case.make(rng, n)
            check_against_python(kernel, *args)


@pytest.mark.parametrize("name", ["matmul_acc", "rowsum_scale", "prefix_sum", "seidel_2d"])
def test_compiles_once_per_signature(name: str) -> None:
    kernel = jitted(name, True)
    case = CASES[name]
    rng = np.random.default_rng(7)
    for n in case.sizes:
        kernel(*case.make(rng, n))
    assert len(kernel._specializations) == 1


def test_reduction_into_elements_of_a_large_array_does_not_crash():
    """An array reduction in OpenMP privatizes the array section in every thread, on
    its stack: over a whole 16 MB array that overflows it.  Run in a subprocess."""
    script = textwrap.dedent("""
        import numpy as np
        import kernels
        import polyopt

        x = np.random.default_rng(0).standard_normal(1000)
        acc = np.zeros(2_000_000)
        expected = acc.copy()
        kernels.two_sums(x, expected)
        polyopt.jit(kernels.two_sums)(x, acc)
        assert np.allclose(acc, expected, rtol=1e-9), (acc[:2], expected[:2])
        print("ok")
    """)
    tests = Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tests), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run([sys.executable, "-c", script], cwd=tests, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    assert proc.stdout.strip() == "ok"
