"""The kernels of the performance targets (issue 3), as plain Python loop nests.

Each is written the naive way a user would write it; the harness compiles the
same function as the baseline (source loop order, no pragmas, 1 thread) and
with ``polyopt.jit``.  ``init_*`` build the inputs (seeded, well-conditioned),
``numpy_*`` are the NumPy formulations they are compared with, and ``flops_*``
count floating-point operations for GFLOP/s.

``tiny`` and ``add3`` are the per-call overhead probes: one store into a one-element
array, and one element of ``c = a + b``.
"""

from __future__ import annotations

import math

import numpy as np

# --- gemm, written i,j,k with the accumulation into C[i, j] -----------------------------


def gemm_ijk(C, A, B):
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += A[i, k] * B[k, j]


def init_gemm(n: int) -> dict[str, object]:
    """``C`` zero, so that ``C += A @ B`` equals ``A @ B`` (what NumPy computes)."""
    rng = np.random.default_rng(1)
    return {"C": np.zeros((n, n)), "A": rng.random((n, n)), "B": rng.random((n, n))}


def numpy_gemm(C, A, B):
    np.matmul(A, B, out=C)  # A @ B into C's storage (C starts at zero)


def flops_gemm(n: int) -> int:
    return 2 * n**3


# --- matmul -> exp -> matmul, float32, the intermediate allocated inside ---------------


def mm_exp_mm(A, B, E):
    rows, inner = A.shape
    mid = B.shape[1]
    cols = E.shape[1]
    T = np.empty((rows, mid), np.float32)
    out = np.zeros((rows, cols), np.float32)
    for i in range(rows):
        for j in range(mid):
            T[i, j] = 0.0
            for k in range(inner):
                T[i, j] += A[i, k] * B[k, j]
    for i in range(rows):
        for j in range(mid):
            T[i, j] = math.exp(T[i, j])
    for i in range(rows):
        for j in range(cols):
            for k in range(mid):
                out[i, j] += T[i, k] * E[k, j]
    return out


def init_mm_exp_mm(m: int, k: int, l: int, n: int) -> dict[str, object]:  # noqa: E741
    """Entries of ``A @ B`` stay near 0 (|x| < 1), so ``exp`` is far from overflow."""
    rng = np.random.default_rng(2)
    return {
        "A": (0.1 * rng.uniform(-1, 1, (m, k))).astype(np.float32),
        "B": (0.1 * rng.uniform(-1, 1, (k, l))).astype(np.float32),
        "E": rng.uniform(-1, 1, (l, n)).astype(np.float32),
    }


def numpy_mm_exp_mm(A, B, E):
    return np.exp(A @ B) @ E


def flops_mm_exp_mm(m: int, k: int, l: int, n: int) -> int:  # noqa: E741
    return 2 * m * k * l + 2 * m * l * n


# --- jacobi-2d (PolyBench's loop nest) ---------------------------------------------------


def jacobi_2d(tsteps, A, B):
    n = A.shape[0]
    for _t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])


def init_jacobi_2d(n: int, tsteps: int) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    return {"tsteps": tsteps, "A": (i * (j + 2) + 2) / n, "B": (i * (j + 3) + 3) / n}


def numpy_jacobi_2d(tsteps, A, B):
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                               + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                               + B[:-2, 1:-1])


def flops_jacobi_2d(n: int, tsteps: int) -> int:
    return tsteps * 2 * 5 * (n - 2) ** 2


# --- row-sum -> scale, with a temporary that fusion can contract away --------------------


def rowsum_scale(A, out):
    n, m = A.shape
    rs = np.zeros(n)
    for i in range(n):
        for j in range(m):
            rs[i] += A[i, j]
    for i in range(n):
        for j in range(m):
            out[i, j] = A[i, j] * rs[i]


def init_rowsum_scale(n: int) -> dict[str, object]:
    rng = np.random.default_rng(4)
    return {"A": rng.random((n, n)), "out": np.zeros((n, n))}


def numpy_rowsum_scale(A, out):
    np.multiply(A, A.sum(axis=1)[:, None], out=out)


def flops_rowsum_scale(n: int) -> int:
    return 2 * n * n


# --- the per-call overhead probe ---------------------------------------------------------


def tiny(x):
    x[0] = 1.0


def add3(a, b, c):
    """The call-overhead probe of issue 16: three array arguments (of one element)."""
    for i in range(c.shape[0]):
        c[i] = a[i] + b[i]
