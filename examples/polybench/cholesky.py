"""cholesky: in-place Cholesky decomposition ``A = L*L^T`` of a symmetric positive-definite matrix.

``L`` overwrites the lower triangle (diagonal included); the upper triangle is left as it was.

PolyBench category: linear-algebra/solvers.
"""

import math

import numpy as np
import numpy.typing as npt

NAME = "cholesky"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("A",)


def FLOPS(n: int) -> int:
    return n * n * n // 3


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    # C's (-j % n) is -(j % n); unit diagonal, zero upper triangle.
    L = np.where(j <= i, -(j % n) / n + 1, 0.0)
    np.fill_diagonal(L, 1.0)
    # Make the matrix positive semi-definite: A = L * L^T.
    return {"A": (L @ L.T).astype(dtype)}


def kernel(A):
    n = A.shape[0]
    for i in range(n):
        # j < i
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[j, k]
            A[i, j] /= A[j, j]
        # i == j
        for k in range(i):
            A[i, i] -= A[i, k] * A[i, k]
        A[i, i] = math.sqrt(A[i, i])


def numpy_version(A):
    rows, cols = np.tril_indices(A.shape[0])
    A[rows, cols] = np.linalg.cholesky(A)[rows, cols]
