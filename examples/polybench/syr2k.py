"""syr2k: symmetric rank-2k update of the lower triangle, ``C := alpha*A*B^T + alpha*B*A^T + beta*C``.

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "syr2k"
SIZES = {
    "MINI": {"m": 20, "n": 30},
    "SMALL": {"m": 60, "n": 80},
    "MEDIUM": {"m": 200, "n": 240},
    "LARGE": {"m": 1000, "n": 1200},
}
OUTPUTS = ("C",)


def FLOPS(m: int, n: int) -> int:
    return n * (n + 1) // 2 * (6 * m + 1)


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :m]
    A = ((i * j + 1) % n) / n
    B = ((i * j + 2) % m) / m
    i, j = np.ogrid[:n, :n]
    C = ((i * j + 3) % n) / m
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "C": C.astype(dtype),
        "A": A.astype(dtype),
        "B": B.astype(dtype),
    }


def kernel(alpha, beta, C, A, B):
    n, m = A.shape
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]


def numpy_version(alpha, beta, C, A, B):
    rows, cols = np.tril_indices(C.shape[0])
    update = beta * C + alpha * (A @ B.T + B @ A.T)
    C[rows, cols] = update[rows, cols]
