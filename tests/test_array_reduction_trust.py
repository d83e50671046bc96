"""Array reductions on per-thread copies: every other access to the array stays correct.

A loop that reduces into array elements runs with a zero-filled copy of the array per
thread (backend_c.emit._private_arrays_loop).  That is only right when every access to
the array in the loop is a reduction's update of its own element; before, a read of
another element read the copy's zeros, and a write of another element was added into
the array instead of stored (silently wrong results on >= 2 threads, default options).

Each kernel runs in a subprocess with OMP_NUM_THREADS=3 and POLYOPT_PARALLEL_MIN=0, so
that its parallel loops run on a team of threads whatever the host and whatever an
earlier test of the session did to the OpenMP runtime, and is compared with CPython.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


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
           "fz_p19", "fz_p30", "fz_q202", "fz_q239"]


@pytest.mark.parametrize("name", KERNELS)
def test_array_reduction_on_threads(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "3", "POLYOPT_PARALLEL_MIN": "0"}
    # run from outside the checkout: the subprocess imports the same polyopt as this one
    done = subprocess.run([sys.executable, __file__, name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == f"{name} ok", done.stdout + done.stderr


def _main(name: str) -> None:
    from conftest import check_against_python  # this file's directory is on sys.path

    import polyopt

    check_against_python(polyopt.jit(globals()[name]), *_arguments(name))
    print(f"{name} ok")


if __name__ == "__main__":
    _main(sys.argv[1])
