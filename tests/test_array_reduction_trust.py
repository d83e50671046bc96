"""Array reductions on per-thread copies: every other access to the array stays correct.

A loop that reduces into array elements runs with a zero-filled copy of the array per
thread (backend_c.private_copies).  That is only right when every access to
the array in the loop is a reduction's update of its own element; before, a read of
another element read the copy's zeros, and a write of another element was added into
the array instead of stored (silently wrong results on >= 2 threads, default options).

Each kernel runs in a subprocess with OMP_NUM_THREADS=3 and POLYOPT_PARALLEL_MIN=0, so
that its parallel loops run on a team of threads whatever the host and whatever an
earlier test of the session did to the OpenMP runtime, and is compared with CPython.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from polyopt.backend_c import build
from polyopt.backend_c.work import PARALLEL_MIN_INSTANCES

import polyopt
from polyopt.analysis import verdicts as parallel
from polyopt.cli import command as cli
from polyopt.cli import verify as cli_verify

ROOT = Path(__file__).resolve().parents[1]


def read_in_other_loop(b, c):
    # one band of the schedule, printed as two loops: the first only reads c
    n = len(b)
    for i in range(n - 1, 0, -1):
        b[i] += c[i]
    for i in range(1, n):
        c[0] += c[i]


def read_in_own_update(A, C):
    # each reduction's expression reads other elements of the other's array
    n, m = A.shape
    for i in range(1, n):
        for j in range(m):
            C[0, j] += A[i, j]
            A[0, 0] += C[1, j]


def read_by_other_statement(C, A, B, s):
    n, m = A.shape
    for i in range(1, n):
        for j in range(m):
            C[0, j] += A[i, j]
            s[0] += A[i, j]
            B[i, j] = C[i, j]


def write_by_other_statement(C, A, s):
    # C[i, j] (i >= 1) never aliases C[0, j], but its store went to the copy
    n, m = A.shape
    for i in range(1, n):
        for j in range(m):
            C[0, j] += A[i, j]
            s[0] += A[i, j]
            C[i, j] = 2.0 * A[i, j]


def scalar_read_in_loop(A, B):
    # guard: a scalar accumulator read in the loop keeps the loop in order
    n, m = A.shape
    t = 0.0
    for i in range(n):
        for j in range(m):
            t += A[i, j]
            B[i, j] = t
    return t


# the fuzzer's findings (/tmp/hostile/fz), kept as found: small already

def fz_p19(A, B, C, s):
    n = A.shape[0]
    for i in range(n - 3, 1, -1):
        B[1, i + 0] = 0.3 * (B[0, i + -2] + C[i + -1, i + 0]) + s
        B[i + 2, 2] += 0.3 * (C[i + -1, i + 2] + A[i + -1, i + 0] + C[i + 0, i + 2]) + s
    for i in range(2, n - 2):
        A[i + 0, i + 2] = 0.3 * (A[i + 0, i + -2]) + s
        C[2, 2] += 0.3 * (B[i + 1, 1] + B[i + 0, i + 0] + C[i + 1, i + 1]) + s


def fz_p30(A, B, C, s):
    n = A.shape[0]
    for i in range(2, n - 2):
        for j in range(n - 3, 1, -1):
            C[j + 2, j + 0] += 0.3 * (A[i + 0, 3] + B[i + 1, i + 0]) + s
            A[2, 2] += 0.3 * (B[j + 0, j + 0] + B[i + 0, j + -2] + C[j + 0, j + 2]) + s


def fz_q202(A, B, C, s):
    n = A.shape[0]
    for i in range(2, n - 2, 2):
        for j in range(2, n - 2):
            A[j + -2, 1] += 0.3 * (B[i + 2, j + -1]) + s
            C[i + 0, j + 0] += 0.3 * (B[i + -1, 0] + A[i + -1, i + -2]) + s
            if i > 3:
                A[i + 0, 2] = A[j + 2, i + 0] * 0.7


def fz_q239(A, B, C, s):
    n = A.shape[0]
    for i in range(2, n - 2):
        A[0, 2] += 0.3 * (A[i + 0, 0] + A[i + 0, i + 2]) + s
        B[2, 3] += 0.3 * (A[i + -1, i + -2] + C[i + -1, i + 0]) + s


def fz_p145(A, B, C, s):
    n = A.shape[0]
    for i in range(n - 3, 1, -1):
        for j in range(2, n - 2):
            C[j + 0, j + -1] += 0.3 * (C[0, j + 1] + A[j + 0, j + 0] + B[i + 0, j + 1]) + s
            B[i + -2, 1] += 0.3 * (A[i + 0, j + -1] + A[i + 0, i + -1]) + s


def _arguments(name: str) -> tuple:
    rng = np.random.default_rng(20240611)
    if name == "read_in_other_loop":
        return np.zeros(50), np.ones(50)
    if name == "read_in_own_update":
        return np.ones((11, 10)), np.ones((2, 10))
    if name == "read_by_other_statement":
        return rng.random((9, 8)), rng.random((9, 8)), np.zeros((9, 8)), np.zeros(1)
    if name == "write_by_other_statement":
        return rng.random((9, 8)), rng.random((9, 8)), np.zeros(1)
    if name == "scalar_read_in_loop":
        return rng.random((9, 8)), np.zeros((9, 8))
    return rng.random((16, 16)), rng.random((16, 16)), rng.random((16, 16)), 0.5


KERNELS = ["read_in_other_loop", "read_in_own_update", "read_by_other_statement",
           "write_by_other_statement", "scalar_read_in_loop",
           "fz_p19", "fz_p30", "fz_p145", "fz_q202", "fz_q239"]


@pytest.mark.parametrize("name", KERNELS)
def test_array_reduction_on_threads(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "3", "POLYOPT_PARALLEL_MIN": "0"}
    # run from outside the checkout: the subprocess imports the same polyopt as this one
    done = subprocess.run([sys.executable, __file__, name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == f"{name} ok", done.stdout + done.stderr


def test_user_parallelize_of_such_a_reduction_is_refused() -> None:
    with pytest.raises(polyopt.IllegalTransformationError,
                       match="each thread would reduce into its own copy of A") as info:
        polyopt.schedule(polyopt.jit(read_in_own_update)).parallelize("i")
    assert info.value.violated and all(d.array == "A" for d in info.value.violated)


def triangular_solve(L, x, b):
    # x[i] -= L[i, j] * x[j] reads other elements of x: no per-thread copy of x, but the j
    # loop still vectorizes through its register accumulator (LICM)
    n = L.shape[0]
    for i in range(n):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i, j] * x[j]
        x[i] = x[i] / L[i, i]


def test_register_accumulator_still_vectorizes(check) -> None:
    rng = np.random.default_rng(7)
    n = 40
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    k = polyopt.jit(triangular_solve)
    check(k, L, np.zeros(n), rng.random(n))
    assert "#pragma omp simd reduction(+:x_acc)" in k.c_source(L, np.zeros(n), rng.random(n))


# --- polyopt opt --verify runs the parallel loops on a team -------------------------------

TWO_REDS = """import polyopt

@polyopt.jit
def two_reds(A, C):
    n, m = A.shape
    for i in range(1, n):
        for j in range(m):
            C[0, j] += A[i, j]
            A[0, 0] += C[1, j]
"""

GEMVER = """import polyopt

@polyopt.jit
def mv(A, x, y):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            x[i] += A[i, j] * y[j]
"""


@pytest.fixture
def one_thread_by_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Conditions under which generated code runs its loops on one thread: the default
    threshold (verification sizes are far below it) and one OpenMP thread, also in a
    runtime that an earlier test loaded (restored afterwards)."""
    monkeypatch.delenv("POLYOPT_PARALLEL_MIN", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    restore = []
    for lib in cli_verify._OMP_RUNTIMES:
        try:
            rt = ctypes.CDLL(lib, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        restore.append((rt, rt.omp_get_max_threads()))
        rt.omp_set_num_threads(1)
    yield
    for rt, before in restore:
        rt.omp_set_num_threads(before)


def test_verify_runs_parallel_loops_on_a_team(one_thread_by_default: None,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """The old array reductions (every loop reducing into arrays took per-thread copies)
    are wrong only on >= 2 threads; --verify's size-8 run used to run them on one."""
    monkeypatch.setattr(parallel, "_only_reduced", lambda *a: True)
    (tmp_path / "k.py").write_text(TWO_REDS)
    out = tmp_path / "k.c"
    code = cli.main(["opt", str(tmp_path / "k.py"), "--signature",
                     "float64[:,:], float64[:,:]", "--verify", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "verify two_reds(): FAILED: argument `A` differs" in err and not out.exists()


def test_verify_keeps_the_threshold_in_the_output(one_thread_by_default: None,
                                                  capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(GEMVER)
    out = tmp_path / "k.c"
    code = cli.main(["opt", str(tmp_path / "k.py"), "--signature",
                     "float64[:,:], float64[:], float64[:]", "--verify", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"parallel loops on {cli_verify.THREADS} threads" in err
    assert f") >= {PARALLEL_MIN_INSTANCES}.0;" in out.read_text()


def test_verify_builds_with_the_flags_of_real_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """gcc's -fno-tree-loop-distribution (backend_c.build.GCC_FLAGS) and $CFLAGS, as
    every kernel build has them; only -shared goes (the harness is a program)."""
    seen: list[list[str]] = []
    real = cli_verify._compile

    def recording(c_file: Path, exe: Path, flags: list[str]) -> Path:
        seen.append(flags)
        return real(c_file, exe, flags)

    monkeypatch.setattr(cli_verify, "_compile", recording)
    monkeypatch.setenv("CFLAGS", "-O2 -fopenmp -DPOLYOPT_VERIFY_MARK")
    code = cli.main(["opt", str(ROOT / "examples/c/trisolv.c"), "--verify", "-o", "-"])
    assert code == 0
    optimized = seen[-1]
    wanted = [f for f in build.toolchain().flags if f != "-shared"]
    assert "-DPOLYOPT_VERIFY_MARK" in wanted
    assert optimized[:len(wanted)] == wanted and "-DPOLYOPT_OPTIMIZED" in optimized


def _main(name: str) -> None:
    from conftest import check_against_python  # this file's directory is on sys.path

    import polyopt

    check_against_python(polyopt.jit(globals()[name]), *_arguments(name))
    print(f"{name} ok")


if __name__ == "__main__":
    _main(sys.argv[1])
