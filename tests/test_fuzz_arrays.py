"""Random NumPy array code (``progen.arrays``) compiled by ``polyopt.jit`` gives what
NumPy gives under CPython: slices in every spelling, broadcasting, ufuncs, reductions,
``.T``, ``@`` and right-hand sides that overlap their target."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python
from progen.arrays import SIZES, program
from progen.draw import Draw, RandomSource

import polyopt

WORKDIR = Path(tempfile.mkdtemp(prefix="progen-arrays-"))
SEEDS = range(int(__import__("os").environ.get("ARRAYS_FUZZ_SEEDS", "12")))


def _kernel(seed: int) -> polyopt.Kernel:
    path = WORKDIR / f"arrays_{seed}.py"
    path.write_text(program(Draw(RandomSource(seed))))
    spec = importlib.util.spec_from_file_location(f"progen_arrays_{seed}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return polyopt.jit(module.kernel)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_array_code_matches_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = SIZES["n"], SIZES["m"]
    kernel = _kernel(seed)
    try:
        check_against_python(kernel, rng.random((n, m)), rng.random((n, m)), rng.random(m),
                             rng.random(n), 0.75)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{(WORKDIR / f'arrays_{seed}.py').read_text()}") from None
