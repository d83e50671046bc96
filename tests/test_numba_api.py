"""Numba's habits: signatures compiled ahead of the first call (with Numba's type
spellings), ``nopython=``/``nogil=``/``cache=``, and the thread count."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import polyopt
from polyopt.model.signature import parse_declared, parse_signature


def _axpy(x, y, a):  # type: ignore[no-untyped-def]
    for i in range(x.shape[0]):
        y[i] += a * x[i]


def _total(x):  # type: ignore[no-untyped-def]
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def _rowsum(A, out):  # type: ignore[no-untyped-def]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j]


@pytest.mark.parametrize("text, expected", [
    ("void(f8[:,:], f8[:])", "void(float64[:, :], float64[:])"),
    ("f8(f8[:])", "float64(float64[:])"),
    ("float64[:, ::1], i4, int32, i8, double, f4[:]",
     "float64[:, :], int32, int32, int64, float64, float32[:]"),
    ("array(float64, 2d, C), intp", "float64[:, :], int64"),
    ("f8[:](f8[:])", "float64[:](float64[:])"),
])
def test_numba_spellings(text: str, expected: str) -> None:
    assert str(parse_declared(text)) == expected


@pytest.mark.parametrize("text, names", [
    ("void(f8[:], q8[:])", "'q8'"),
    ("void(f8[:],, f8)", "missing"),
    ("void(f8[:]", "unbalanced"),
    ("f8[::1, :]", "'f8[::1, :]'"),
    ("f8[:,x]", "'f8[:,x]'"),
    ("blob(f8[:])", "'blob'"),
])
def test_malformed_signature_names_the_bad_part(text: str, names: str) -> None:
    with pytest.raises(ValueError, match=names.replace("[", r"\[")):
        polyopt.jit(text)
    k = polyopt.jit(_rowsum)
    with pytest.raises(ValueError, match=r"_rowsum\.compile"):
        k.compile(text)


def test_eager_signature_compiles_at_decoration_and_seals(rng: np.random.Generator) -> None:
    k = polyopt.jit("void(f8[:], f8[:], f8)")(_axpy)
    assert "1 compiled" in repr(k)  # before any call
    x, y = rng.random(50), rng.random(50)
    want = y.copy()
    _axpy(x, want, 2.5)
    k(x, y, 2.5)  # a Python float for f8, as Numba converts it
    np.testing.assert_allclose(y, want)
    k(x, y, 3)  # an int converts to f8 too
    _axpy(x, want, 3)
    np.testing.assert_allclose(y, want)
    with pytest.raises(TypeError, match=r"no compiled signature for \(float32\[:\]"):
        k(x.astype(np.float32), y, 2.5)
    assert "1 compiled" in repr(k)


def _scale(x, k):
    for i in range(x.shape[0]):
        x[i] = x[i] * k


def test_an_int_its_declared_type_cannot_hold_is_refused_naming_it() -> None:
    """Hostile session 42a, finding 06: 2**63 for an i8 gave Python's bare "int too large
    to convert to C long", and np.uint64(2**63) ran with k = -2**63."""
    k = polyopt.jit("void(f8[:], i8)")(_scale)
    for big in (2**63, np.uint64(2**63)):
        with pytest.raises(OverflowError, match=r"argument 'k' = 9223372036854775808 does not "
                                                r"fit its declared int64"):
            k(np.ones(3), big)
    x = np.ones(3)
    k(x, np.uint64(7))  # a uint64 the int64 holds converts, as Numba converts it
    np.testing.assert_array_equal(x, np.full(3, 7.0))


def test_list_of_signatures(rng: np.random.Generator) -> None:
    k = polyopt.jit(["f8(f8[:])", "f4(f4[:])"], parallel=False)(_total)
    assert "2 compiled" in repr(k)
    x = rng.random(31)
    assert k(x) == pytest.approx(_total(x))
    x32 = x.astype(np.float32)
    assert k(x32) == pytest.approx(_total(x32), rel=1e-5)
    assert type(k(x32)) is type(_total(x32))  # NumPy's float32, as CPython gives


def test_declared_return_type_is_checked() -> None:
    with pytest.raises(TypeError, match="returns float64, not float32"):
        polyopt.jit("f4(f8[:])")(_total)
    with pytest.raises(TypeError, match="returns nothing, not float64"):
        polyopt.jit("f8(f8[:], f8[:], f8)")(_axpy)
    with pytest.raises(TypeError, match=r"returns float64, not nothing \(void\)"):
        polyopt.jit("void(f8[:])")(_total)


def test_compile_takes_a_signature_string(rng: np.random.Generator) -> None:
    k = polyopt.jit(_rowsum)
    k.compile("float64[:, :], float64[:]")
    assert "1 compiled" in repr(k)
    A, out = rng.random((5, 7)), np.zeros(5)
    k(A, out)
    np.testing.assert_allclose(out, A.sum(axis=1))
    assert "1 compiled" in repr(k)  # the call ran what compile() built
    with pytest.raises(ValueError, match="2 types but the function takes 3"):
        polyopt.jit(_axpy).compile("f8[:], f8[:]")


def test_numba_keywords() -> None:
    polyopt.jit(nopython=True, nogil=True)(_axpy)
    with pytest.raises(ValueError, match="no object mode.*fallback=True"):
        polyopt.jit(nopython=False)
    with pytest.raises(TypeError, match="nogil must be True or False"):
        polyopt.jit(nogil="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_threads must be at least 1"):
        polyopt.jit(num_threads=0)
    with pytest.raises(TypeError, match="num_threads must be an int"):
        polyopt.jit(num_threads=2.0)  # type: ignore[arg-type]


def test_cache_false_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    rng: np.random.Generator) -> None:
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path))
    x, y = rng.random(8), np.zeros(8)
    polyopt.jit(cache=False)(_axpy)(x, y, 2.0)
    np.testing.assert_allclose(y, 2.0 * x)
    assert list(tmp_path.iterdir()) == []
    polyopt.jit(cache=True)(_axpy)(x, y, 2.0)
    assert {p.name for p in tmp_path.iterdir()} == {"lib", "index"}


def test_call_releases_the_gil() -> None:
    """While one thread is inside a long kernel call, another runs Python code."""
    k = polyopt.jit(parallel=False)(_rowsum)
    A, out = np.ones((3000, 3000)), np.zeros(3000)
    k(A[:2], out[:2])  # compiled outside the measured window
    window: list[float] = []

    def call() -> None:
        window.append(time.perf_counter())
        for _ in range(5):
            k(A, out)
        window.append(time.perf_counter())

    t = threading.Thread(target=call)
    ticks: list[float] = []
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    inside = [s for s in ticks if window[0] < s < window[1]]
    assert len(inside) > 100, (len(inside), window[1] - window[0])


_THREADS_CHILD = """
import os, numpy as np, polyopt

def rowsum(A, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j]

def workers():  # threads of this process beyond the ones before the first parallel call
    return len(os.listdir("/proc/self/task"))

A, out = np.ones((64, 64)), np.zeros(64)
plain = polyopt.jit(rowsum)
two = polyopt.jit(num_threads=2)(rowsum)
polyopt.set_num_threads(3)
base = workers()
two(A, out)   # a team of 2: one worker thread
after_two = workers() - base
plain(A, out) # the thread's number, 3: two workers
after_three = workers() - base
print(polyopt.get_num_threads(), after_two, after_three)
"""


def test_thread_count_is_the_team_size(tmp_path: Path) -> None:
    """OpenMP starts a team's worker threads on its first parallel call: counted in a
    fresh process, a team of n adds n - 1 threads."""
    env = {**os.environ, "POLYOPT_PARALLEL_MIN": "0", "OMP_DYNAMIC": "false"}
    env.pop("OMP_NUM_THREADS", None)
    script = tmp_path / "threads.py"
    script.write_text(_THREADS_CHILD)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "1", "2"], out.stdout


def test_set_num_threads_is_checked() -> None:
    before = polyopt.get_num_threads()
    try:
        polyopt.set_num_threads(2)
        assert polyopt.get_num_threads() == 2
    finally:
        polyopt.set_num_threads(before)
    with pytest.raises(ValueError, match="at least 1"):
        polyopt.set_num_threads(0)
    with pytest.raises(TypeError, match="must be an int"):
        polyopt.set_num_threads(True)


def test_cli_signature_keeps_its_binding() -> None:
    sig = parse_signature("void(f8, i4[:, ::1])", ["a", "B"])
    assert str(sig) == "(a: float64, B: int32[:, :])"


@pytest.mark.parametrize("obj", [len, int, np.sqrt, functools.partial(max, 1)],
                         ids=["builtin", "class", "ufunc", "partial"])
def test_decorating_something_without_python_source_is_a_type_error(obj) -> None:
    """polyopt.jit(len) was accepted, and its first call raised inspect's 'module, class,
    method, function, traceback, frame, or code object was expected'; polyopt.jit(int)
    raised inspect's ValueError 'no signature found for builtin type'."""
    with pytest.raises(TypeError, match="decorates a Python function defined with `def`"):
        polyopt.jit(obj)
    with pytest.raises(TypeError, match="decorates a Python function defined with `def`"):
        polyopt.jit(parallel=False)(obj)
