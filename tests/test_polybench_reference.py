"""Checks of the PolyBench kernel transcriptions themselves; no compiler needed.

- every module follows the interface described in ``examples/polybench/__init__.py``;
- ``init`` returns C-contiguous arrays of the documented dtype and plain Python scalars;
- ``kernel`` runs under CPython at MINI and changes its outputs;
- where a module has a ``numpy_version``, it agrees with ``kernel`` at MINI,
  which cross-checks the loop transcription against an independent formulation.
"""

import copy
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from examples.polybench import CATEGORIES, KERNELS, load  # noqa: E402

NAMES = list(KERNELS)
WITH_NUMPY = [name for name in NAMES if hasattr(KERNELS[name], "numpy_version")]
DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE")

# PolyBench's default data types: float for deriche, int for the two graph /
# dynamic-programming kernels, double for everything else.
DEFAULT_DTYPES = {"deriche": np.float32, "floyd-warshall": np.int32, "nussinov": np.int32}


def expected_dtype(name: str) -> np.dtype:
    return np.dtype(DEFAULT_DTYPES.get(name, np.float64))


def assert_close(expected: np.ndarray, actual: np.ndarray, what: str) -> None:
    """Loop nest vs. NumPy: BLAS and NumPy reductions sum in a different order
    than the loops (blocked, pairwise), so results agree only up to rounding."""
    if np.issubdtype(expected.dtype, np.integer):
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    elif expected.dtype == np.float32:
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12, err_msg=what)


def test_all_thirty_kernels_are_registered() -> None:
    assert len(KERNELS) == 30
    assert set(CATEGORIES) == set(KERNELS)
    for name, module in KERNELS.items():
        assert module.NAME == name
        assert load(name) is module
        assert load(module.__name__.rsplit(".", 1)[1]) is module
    with pytest.raises(KeyError):
        load("no-such-kernel")


@pytest.mark.parametrize("name", NAMES)
def test_module_interface(name: str) -> None:
    module = KERNELS[name]
    assert module.__doc__ and "PolyBench category" in module.__doc__
    assert tuple(module.SIZES) == DATASETS

    init_params = inspect.signature(module.init).parameters
    assert list(init_params)[-1] == "dtype"
    assert init_params["dtype"].default == expected_dtype(name)
    size_names = list(init_params)[:-1]
    for dataset, sizes in module.SIZES.items():
        assert list(sizes) == size_names, dataset
        assert all(type(value) is int and value > 0 for value in sizes.values()), dataset

    kernel_params = list(inspect.signature(module.kernel).parameters)
    args = module.init(**module.SIZES["MINI"])
    assert list(args) == kernel_params, "init must return the kernel's arguments, in order"
    assert module.OUTPUTS and set(module.OUTPUTS) <= set(kernel_params)
    for output in module.OUTPUTS:
        assert isinstance(args[output], np.ndarray), output

    for optional in ("numpy_version", "init_nondegenerate"):
        if hasattr(module, optional):
            other = inspect.signature(getattr(module, optional)).parameters
            reference = module.kernel if optional == "numpy_version" else module.init
            assert list(other) == list(inspect.signature(reference).parameters), optional
    if hasattr(module, "FLOPS"):
        for sizes in module.SIZES.values():
            assert module.FLOPS(**sizes) > 0


@pytest.mark.parametrize("name", NAMES)
def test_init_returns_contiguous_arrays_of_the_documented_dtype(name: str) -> None:
    module = KERNELS[name]
    inits = [module.init]
    if hasattr(module, "init_nondegenerate"):
        inits.append(module.init_nondegenerate)
    for init in inits:
        args = init(**module.SIZES["MINI"])
        for key, value in args.items():
            if isinstance(value, np.ndarray):
                assert value.flags.c_contiguous, f"{init.__name__}: {key} is not C-contiguous"
                assert value.dtype == expected_dtype(name), f"{init.__name__}: {key}"
            else:
                assert type(value) in (int, float), f"{init.__name__}: {key} is {type(value)}"


@pytest.mark.parametrize("name", [name for name in NAMES if expected_dtype(name) == np.float64])
def test_init_honours_dtype(name: str) -> None:
    module = KERNELS[name]
    args = module.init(**module.SIZES["MINI"], dtype=np.float32)
    for key, value in args.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == np.float32, key
            assert value.flags.c_contiguous, key


@pytest.mark.parametrize("name", NAMES)
def test_kernel_runs_and_changes_outputs(name: str) -> None:
    module = KERNELS[name]
    sizes = module.SIZES["MINI"]

    # PolyBench's own inputs must run under CPython.
    module.kernel(**module.init(**sizes))

    # On well-posed inputs (PolyBench's, unless the module provides others),
    # every output is finite and at least one of them changes.
    init = getattr(module, "init_nondegenerate", module.init)
    before = init(**sizes)
    after = copy.deepcopy(before)
    assert module.kernel(**after) is None
    for output in module.OUTPUTS:
        assert np.all(np.isfinite(after[output])), output
    assert any(not np.array_equal(before[o], after[o]) for o in module.OUTPUTS)


def test_degenerate_polybench_inputs_are_documented() -> None:
    # heat-3d: PolyBench's initial field is a fixed point of the stencil.
    heat = KERNELS["heat-3d"]
    args = heat.init(**heat.SIZES["MINI"])
    result = copy.deepcopy(args)
    heat.kernel(**result)
    np.testing.assert_allclose(result["A"], args["A"], rtol=1e-12)

    # gramschmidt: more columns than rows, so some diagonal entries of R are
    # rounding noise; the nondegenerate inputs keep them away from zero.
    gs = KERNELS["gramschmidt"]
    for dataset, sizes in gs.SIZES.items():
        assert sizes["n"] > sizes["m"], dataset
    args = gs.init_nondegenerate(**gs.SIZES["MINI"])
    gs.kernel(**args)
    assert np.diag(args["R"]).min() > 1.0


@pytest.mark.parametrize("name", WITH_NUMPY)
def test_numpy_version_matches_kernel(name: str) -> None:
    module = KERNELS[name]
    inits = [module.init]
    if hasattr(module, "init_nondegenerate"):
        inits.append(module.init_nondegenerate)
    for init in inits:
        args = init(**module.SIZES["MINI"])
        loops = copy.deepcopy(args)
        vectorised = copy.deepcopy(args)
        module.kernel(**loops)
        module.numpy_version(**vectorised)
        for output in module.OUTPUTS:
            assert_close(loops[output], vectorised[output], f"{name} ({init.__name__}) {output}")
