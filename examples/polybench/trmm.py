"""trmm: triangular matrix multiply, ``B := alpha*A^T*B`` with ``A`` unit lower triangular.

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "trmm"
SIZES = {
    "MINI": {"m": 20, "n": 30},
    "SMALL": {"m": 60, "n": 80},
    "MEDIUM": {"m": 200, "n": 240},
    "LARGE": {"m": 1000, "n": 1200},
}
OUTPUTS = ("B",)


def FLOPS(m: int, n: int) -> int:
    return m * (m - 1) * n + m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:m, :m]
    # Strictly lower part as in PolyBench, unit diagonal; the upper triangle
    # (left uninitialised by PolyBench, never read) is zero.
    A = np.where(j < i, ((i + j) % m) / m, 0.0)
    np.fill_diagonal(A, 1.0)
    i, j = np.ogrid[:m, :n]
    B = ((n + (i - j)) % n) / n
    return {"alpha": 1.5, "A": A.astype(dtype), "B": B.astype(dtype)}


def kernel(alpha, A, B):
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


def numpy_version(alpha, A, B):
    B[:] = alpha * (B + np.tril(A, -1).T @ B)
