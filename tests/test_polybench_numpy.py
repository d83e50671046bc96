"""The NumPy-style PolyBench kernels (``examples/polybench_numpy``, written as NPBench
writes them) compiled by ``polyopt.jit`` equal the loop nests of ``examples/polybench``
run by CPython, at MINI; and under CPython the two versions agree too (the examples
themselves are right)."""

import copy
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from test_polybench import assert_outputs_match, make_inputs  # noqa: E402

import polyopt  # noqa: E402
from examples.polybench import KERNELS as LOOPS  # noqa: E402
from examples.polybench_numpy import KERNELS  # noqa: E402


def _reference(name: str) -> tuple[dict[str, object], dict[str, object]]:
    """The inputs at MINI and what the loop nest leaves in them under CPython."""
    args = make_inputs(name, "MINI")
    expected = copy.deepcopy(args)
    LOOPS[name].kernel(**expected)
    return args, expected


@pytest.mark.parametrize("name", list(KERNELS))
def test_numpy_style_matches_the_loops_under_cpython(name: str) -> None:
    args, expected = _reference(name)
    KERNELS[name].kernel(**args)
    for output in LOOPS[name].OUTPUTS:
        assert_outputs_match(expected[output], args[output], f"{name} (CPython) {output}")


@pytest.mark.parametrize("name", list(KERNELS))
def test_compiled_numpy_style_matches_the_loops(name: str) -> None:
    args, expected = _reference(name)
    polyopt.jit(KERNELS[name].kernel)(**args)
    for output in LOOPS[name].OUTPUTS:
        assert_outputs_match(expected[output], args[output], f"{name} (compiled) {output}")


def test_every_kernel_has_a_numpy_style_version() -> None:
    assert set(LOOPS) == set(KERNELS)
    assert all(KERNELS[name].NAME == name for name in KERNELS)
