"""Kernels beyond one process: pickled by name or by source, run from ``multiprocessing``
pools (spawn and fork) and from a Dask cluster's workers, each worker compiling at most
once with a cold cache, and the blocks combined into the one-process result."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from math import hypot, sqrt
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import polyopt
from polyopt import prange

ROOT = Path(__file__).resolve().parents[1]


@polyopt.jit
def by_name(x, out):  # type: ignore[no-untyped-def]
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]


def make_smooth(weight: float) -> polyopt.Kernel:
    """A kernel no other process can import (a closure): it travels as its source."""
    @polyopt.jit(tile=False, num_threads=2)
    def smooth(x, out):  # type: ignore[no-untyped-def]
        n, m = x.shape
        for i in range(n):
            for j in range(1, m - 1):
                out[i, j] = x[i, j] + weight * (x[i, j - 1] + x[i, j + 1] - 2.0 * x[i, j])
    return smooth


def _reference(x: np.ndarray, weight: float) -> np.ndarray:
    out = np.zeros_like(x)
    make_smooth(weight).py_func(x, out)
    return out


def test_pickles_by_name_or_by_source(rng: np.random.Generator) -> None:
    assert pickle.loads(pickle.dumps(by_name)) is by_name
    k = make_smooth(0.25)
    again = pickle.loads(pickle.dumps(k))
    assert again is not k and again.options == k.options and again.num_threads == 2
    x = rng.random((6, 9))
    out = np.zeros_like(x)
    again(x, out)
    np.testing.assert_allclose(out, _reference(x, 0.25))
    sealed = pickle.loads(pickle.dumps(polyopt.jit("void(f8[:], f8[:])")(by_name.py_func)))
    with pytest.raises(TypeError, match="no compiled signature"):
        sealed(np.zeros(3, np.float32), np.zeros(3, np.float32))


def tripled(v):  # type: ignore[no-untyped-def]
    """A helper its module can import: it travels by name."""
    return v * 3.0


def make_with_names(offset: float) -> polyopt.Kernel:
    """A kernel sent by source whose globals and closure name functions: imported by
    name (``prange``, ``sqrt``), a helper of its module, and a helper only its source can
    rebuild, with a global of its own (``hypot``)."""
    def root_of_shifted(v):  # type: ignore[no-untyped-def]
        return sqrt(hypot(v, 0.25))

    @polyopt.jit
    def uses_names(x, out):  # type: ignore[no-untyped-def]
        for i in prange(x.shape[0]):
            out[i] = tripled(root_of_shifted(x[i])) + sqrt(x[i]) * offset
    return uses_names


def test_functions_its_globals_name_travel_with_a_kernel(rng: np.random.Generator) -> None:
    """They were dropped: the received kernel refused ``prange``, ``sqrt`` and the
    helpers as unknown (hostile session 36b, finding 04)."""
    k = make_with_names(0.5)
    again = pickle.loads(pickle.dumps(k))
    assert again is not k
    x = rng.random(17)
    want, got = np.zeros_like(x), np.zeros_like(x)
    k.py_func(x, want)
    again(x, got)  # first: it compiles, not loads what the original compiled
    np.testing.assert_allclose(got, want, rtol=1e-13)
    got[:] = 0.0
    k(x, got)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_a_function_that_cannot_travel_is_named_when_pickling() -> None:
    cube = lambda v: v * v * v  # noqa: E731 - the construct under test

    @polyopt.jit
    def uses_a_lambda(x):  # type: ignore[no-untyped-def]
        for i in range(x.shape[0]):
            x[i] = cube(x[i])
    with pytest.raises(TypeError, match=r"uses_a_lambda: `cube` is a lambda"):
        pickle.dumps(uses_a_lambda)


def test_a_script_kernel_runs_in_a_fresh_process(tmp_path: Path) -> None:
    """A kernel of a script's ``__main__``, unpickled where that script never ran."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import pickle, sys
        from math import hypot, sqrt
        import numpy as np
        import polyopt
        from polyopt import prange

        def scaled(v):
            return hypot(v, 0.0) * 3.0

        def helper(v):
            return scaled(v)

        @polyopt.jit
        def kernel(x):
            for i in prange(x.shape[0]):
                x[i] = helper(sqrt(x[i]))

        x = np.full(3, 4.0)
        kernel(x)  # it compiles here
        assert x.tolist() == [6.0, 6.0, 6.0], x
        sys.stdout.buffer.write(pickle.dumps(kernel))
    """))
    run = """if 1:
        import pickle, sys
        import numpy as np
        k = pickle.loads(sys.stdin.buffer.read())
        x = np.full(3, 4.0)
        k(x)
        print(x.tolist())
    """
    sent = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=300,
                          env={**os.environ, "POLYOPT_CACHE_DIR": str(tmp_path / "sender")},
                          check=True).stdout
    out = subprocess.run([sys.executable, "-c", run], input=sent, capture_output=True,
                         env={**os.environ, "POLYOPT_CACHE_DIR": str(tmp_path / "receiver")},
                         timeout=300)  # a cache of its own: it compiles the text received
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    assert out.stdout.decode().strip() == "[6.0, 6.0, 6.0]"


def _cold_worker(root: str) -> None:
    os.environ["POLYOPT_CACHE_DIR"] = os.path.join(root, f"worker-{os.getpid()}")


def _run_block(job: tuple[polyopt.Kernel, np.ndarray]) -> tuple[np.ndarray, int]:
    kernel, block = job
    out = np.zeros_like(block)
    kernel(block, out)
    return out, os.getpid()


def _builds(cache: Path) -> int:
    """The libraries compiled into a cache directory (one entry per build)."""
    lib = cache / "lib"
    return len([e for e in lib.iterdir() if not e.name.startswith(".")]) if lib.is_dir() else 0


def _blocks(x: np.ndarray, rows: int) -> list[np.ndarray]:
    return [np.ascontiguousarray(x[k:k + rows]) for k in range(0, x.shape[0], rows)]


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_pool_workers_compile_once_with_a_cold_cache(method: str, tmp_path: Path,
                                                     rng: np.random.Generator) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    k = make_smooth(0.125)
    x = rng.random((48, 33))
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2, initializer=_cold_worker, initargs=(str(tmp_path),)) as pool:
        results = pool.map(_run_block, [(k, b) for b in _blocks(x, 4)], chunksize=1)
    np.testing.assert_allclose(np.concatenate([r for r, _ in results]), _reference(x, 0.125))
    workers = {pid for _, pid in results}
    assert 1 <= len(workers) <= 2
    for pid in workers:
        assert _builds(tmp_path / f"worker-{pid}") == 1, pid


def _threads_in_child(_: int) -> int:
    polyopt.set_num_threads(4)
    return polyopt.get_num_threads()


def test_a_forked_child_runs_on_one_thread(rng: np.random.Generator) -> None:
    """gcc's OpenMP cannot start a team in a child forked after the parent ran one (it
    waits for threads the fork did not copy): such a child runs kernels on one thread."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork start method here")
    x = rng.random((8, 10))
    make_smooth(0.5)(x, np.zeros_like(x))  # the parent runs a team of 2
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.map(_threads_in_child, [0]) == [1]


def test_a_warm_cache_is_shared(rng: np.random.Generator, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers that share the sender's cache compile nothing."""
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path))
    k = make_smooth(0.5)
    x = rng.random((8, 10))
    k(x, np.zeros_like(x))
    assert _builds(tmp_path) == 1
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_run_block, [(k, b) for b in _blocks(x, 2)])
    np.testing.assert_allclose(np.concatenate([r for r, _ in results]), _reference(x, 0.5))
    assert _builds(tmp_path) == 1


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_dask_workers_compile_once_and_agree(dask_client: Any, tmp_path: Path,
                                             rng: np.random.Generator) -> None:
    da = pytest.importorskip("dask.array")
    dask_client.run(_cold_worker, str(tmp_path))
    k = make_smooth(0.25)
    data = rng.random((64, 40))
    x = da.from_array(data, chunks=(8, 40))

    def run(block: np.ndarray) -> np.ndarray:
        return _run_block((k, np.ascontiguousarray(block)))[0]

    got = x.map_blocks(run, dtype=x.dtype).compute()
    np.testing.assert_allclose(got, _reference(data, 0.25))
    pids: dict[str, int] = dask_client.run(os.getpid)
    for pid in pids.values():
        assert _builds(tmp_path / f"worker-{pid}") <= 1, pid


def test_dask_example_runs() -> None:
    pytest.importorskip("distributed")
    env = {**os.environ, "PYTHONPATH": ""}
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "dask_blocks.py")],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "same as on one array" in out.stdout

