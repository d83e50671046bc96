"""Shared fixtures: a private build cache, a seeded RNG, and the differential check.

Every test session builds into its own cache directory (``POLYOPT_CACHE_DIR``),
so tests never read or write ``~/.cache/polyopt`` and never depend on what an
earlier session left behind.  ``POLYOPT_PARALLEL_MIN=0``: the generated code's
``parallel for`` loops run on a team even for the tests' small problems (by
default calls under ~10^6 statement instances run on one thread), so that every
parallel loop is exercised.  ``POLYOPT_TARGET=avx2``: code is generated for one vector
unit, whatever the host's.  Under ``make test`` (``POLYOPT_TEST_INSTALLED=1``) the
session refuses to start when ``polyopt`` comes from the checkout, not the wheel.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

# Tests that check generated code (tile sizes, vector lanes) fix the vector unit they
# generate for, so they pass on any x86-64 host; only the benchmarks read the host's.
os.environ["POLYOPT_TARGET"] = "avx2"



def from_checkout() -> list[str]:
    """The packages of polyopt imported from the source tree, not from an installation
    (which may well live in the checkout's .venv)."""
    import polyopt.backend_c
    import polyopt.frontends

    sources = {ROOT / "polyopt", ROOT / "frontends", ROOT / "backend_c"}
    return [f"{m.__name__} ({m.__file__})" for m in (polyopt, polyopt.frontends,
                                                      polyopt.backend_c)
            if Path(m.__file__).resolve().parent in sources]


if os.environ.get("POLYOPT_TEST_INSTALLED") == "1" and from_checkout():
    # `make test` runs the suite against the installed wheel, from outside the checkout
    raise pytest.UsageError("POLYOPT_TEST_INSTALLED=1 but these come from the checkout, "
                            f"not the installed wheel: {', '.join(from_checkout())}")


@pytest.fixture(scope="session", autouse=True)
def polyopt_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh ``POLYOPT_CACHE_DIR`` for the whole session (restored afterwards)."""
    path = str(tmp_path_factory.mktemp("polyopt-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POLYOPT_CACHE_DIR", path)
        mp.setenv("POLYOPT_PARALLEL_MIN", os.environ.get("POLYOPT_PARALLEL_MIN", "0"))
        yield path


@pytest.fixture
def rng() -> np.random.Generator:
    """A deterministic random generator, fresh for every test."""
    return np.random.default_rng(20240611)


TOLERANCES = {
    np.dtype(np.float64): {"rtol": 1e-9, "atol": 1e-12},
    np.dtype(np.float32): {"rtol": 1e-4, "atol": 1e-5},
    np.dtype(np.float16): {"rtol": 1e-2, "atol": 1e-3},
}


def assert_same_value(expected: object, actual: object, what: str) -> None:
    """``actual`` equals ``expected``: ints exactly, floats within the dtype's tolerance
    (reductions may be reassociated when they run in parallel), NaN equal to NaN."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{what}: expected an array, got {type(actual)}"
        assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
        assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(actual, expected, equal_nan=True, err_msg=what,
                                       **TOLERANCES[expected.dtype])
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    if expected is None:
        assert actual is None, f"{what}: expected None, got {actual!r}"
        return
    assert isinstance(actual, (int, float, np.generic)), f"{what}: got {type(actual)}"
    exp_dtype = np.asarray(expected).dtype
    act_dtype = np.asarray(actual).dtype
    if isinstance(expected, np.generic):  # a NumPy scalar: same dtype (Python int/float = 64 bits)
        assert act_dtype == exp_dtype, f"{what}: type {type(actual)} but CPython gives {exp_dtype}"
    else:
        assert act_dtype.kind == exp_dtype.kind, f"{what}: {actual!r} is not a {type(expected)}"
    if exp_dtype.kind == "f":
        tol = TOLERANCES.get(exp_dtype, TOLERANCES[np.dtype(np.float64)])
        if isinstance(expected, np.floating):
            tol = TOLERANCES[np.dtype(expected.dtype)]
        np.testing.assert_allclose(float(actual), float(expected), equal_nan=True, err_msg=what,
                                   **tol)
    else:
        assert int(actual) == int(expected), f"{what}: {actual!r} != {expected!r}"


def check_against_python(fn, *args, **kwargs) -> object:
    """Run the compiled kernel ``fn`` and ``fn.py_func`` on deep copies of the arguments
    and compare every array argument afterwards, and the return values.

    When CPython raises, the compiled kernel must raise the same kind of exception
    (it may raise it earlier: the bounds check runs before any loop).  Returns the
    compiled kernel's result.
    """
    py_args = copy.deepcopy(args)
    py_kwargs = copy.deepcopy(kwargs)
    c_args = copy.deepcopy(args)
    c_kwargs = copy.deepcopy(kwargs)
    try:
        expected = fn.py_func(*py_args, **py_kwargs)
    except (IndexError, ZeroDivisionError, ValueError) as exc:
        with pytest.raises(type(exc)):
            fn(*c_args, **c_kwargs)
        return None
    actual = fn(*c_args, **c_kwargs)
    names = list(fn._arg_names) if hasattr(fn, "_arg_names") else []
    for k, (p, c) in enumerate(zip(py_args, c_args, strict=True)):
        if isinstance(p, np.ndarray):
            label = names[k] if k < len(names) else f"argument {k}"
            assert_same_value(p, c, f"{fn.__name__}: array argument {label!r}")
    for key in py_kwargs:
        if isinstance(py_kwargs[key], np.ndarray):
            assert_same_value(py_kwargs[key], c_kwargs[key], f"{fn.__name__}: argument {key!r}")
    assert_same_value(expected, actual, f"{fn.__name__}: return value")
    return actual


@pytest.fixture
def check():
    """:func:`check_against_python` as a fixture."""
    return check_against_python



def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (generated C, CLI output) instead of comparing")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--update-golden"):
        os.environ["POLYOPT_UPDATE_GOLDEN"] = "1"
