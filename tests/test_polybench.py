"""PolyBench/C 4.2.1 kernels compiled with ``polyopt.jit`` must match CPython.

For every kernel in ``examples/polybench`` and the MINI and SMALL datasets, the
undecorated loop nest is run under CPython (the reference semantics) and the
compiled version on an identical deep copy of the inputs; every array named in
the module's ``OUTPUTS`` must then agree (see ``assert_outputs_match``).

Inputs come from the module's ``init`` (PolyBench's ``init_array``), or from its
``init_nondegenerate`` where PolyBench's inputs make the result degenerate
(heat-3d: a fixed point of the stencil; gramschmidt: rounding noise).

The CPython reference runs take about 12 s in total at SMALL (floyd-warshall,
the slowest, about 4 s), so both datasets run by default.
"""

import copy
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from examples.polybench import KERNELS  # noqa: E402

try:
    import polyopt
except ModuleNotFoundError as exc:  # only when polyopt itself is missing
    if exc.name != "polyopt":
        raise
    pytest.skip("polyopt is not importable yet", allow_module_level=True)
if not hasattr(polyopt, "jit"):
    pytest.skip("polyopt.jit does not exist yet", allow_module_level=True)

DATASETS = ("MINI", "SMALL")

# One ``polyopt.jit`` object per kernel, shared by all datasets, so that each
# kernel is compiled once per test session.
_JITTED: dict[str, object] = {}


def jitted(name: str):
    """``polyopt.jit(kernel)`` for the PolyBench kernel ``name``, compiled once."""
    if name not in _JITTED:
        _JITTED[name] = polyopt.jit(KERNELS[name].kernel)
    return _JITTED[name]


def tolerance(dtype: np.dtype) -> dict[str, float]:
    """``assert_allclose`` tolerances for comparing compiled and CPython results.

    Exact agreement cannot be required of floating-point results: the compiler
    may legally reassociate reductions (parallel or vectorised sums, tiled or
    interchanged loops change the summation order) and the C compiler may
    contract ``a*b + c`` into a fused multiply-add. Each such change perturbs a
    result by a few units in the last place, amplified at most by the kernel's
    conditioning; on these inputs that stays well below the tolerances
    (the worst case measured, durbin at SMALL, is about 6e-10 relative when the
    inner sum is computed exactly instead of left to right).

    - float64: rtol=1e-9, atol=1e-12 (machine epsilon ~2.2e-16).
    - float32: rtol=1e-4, atol=1e-5 (machine epsilon ~1.2e-7; deriche).
    - integers: exact (floyd-warshall, nussinov: no rounding involved).
    """
    if dtype == np.float64:
        return {"rtol": 1e-9, "atol": 1e-12}
    if dtype == np.float32:
        return {"rtol": 1e-4, "atol": 1e-5}
    if np.issubdtype(dtype, np.integer):
        return {"rtol": 0.0, "atol": 0.0}
    raise TypeError(f"no tolerance defined for dtype {dtype}")


def assert_outputs_match(expected: np.ndarray, actual: np.ndarray, what: str) -> None:
    assert isinstance(actual, np.ndarray), f"{what}: not an array"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    if np.issubdtype(expected.dtype, np.integer):
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, err_msg=what, **tolerance(expected.dtype))


def make_inputs(name: str, dataset: str) -> dict[str, object]:
    module = KERNELS[name]
    init = getattr(module, "init_nondegenerate", module.init)
    return init(**module.SIZES[dataset])


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_compiled_matches_cpython(name: str, dataset: str) -> None:
    module = KERNELS[name]
    args = make_inputs(name, dataset)
    ref_args = copy.deepcopy(args)
    jit_args = copy.deepcopy(args)

    module.kernel(**ref_args)
    jitted(name)(**jit_args)

    for output in module.OUTPUTS:
        assert_outputs_match(ref_args[output], jit_args[output], f"{name} [{dataset}] {output}")
