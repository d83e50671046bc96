"""symm: symmetric matrix multiply, ``C := alpha*A*B + beta*C`` with ``A`` symmetric.

Only the lower triangle of ``A`` is read (the upper triangle holds -999).

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "symm"
SIZES = {
    "MINI": {"m": 20, "n": 30},
    "SMALL": {"m": 60, "n": 80},
    "MEDIUM": {"m": 200, "n": 240},
    "LARGE": {"m": 1000, "n": 1200},
}
OUTPUTS = ("C",)


def FLOPS(m: int, n: int) -> int:
    return 5 * n * m * (m - 1) // 2 + 6 * m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:m, :n]
    C = ((i + j) % 100) / m
    B = ((n + i - j) % 100) / m
    i, j = np.ogrid[:m, :m]
    # The upper triangle of A holds -999: regions of arrays that should not be used.
    A = np.where(j <= i, ((i + j) % 100) / m, -999.0)
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "C": C.astype(dtype),
        "A": A.astype(dtype),
        "B": B.astype(dtype),
    }


def kernel(alpha, beta, C, A, B):
    m, n = C.shape
    for i in range(m):
        for j in range(n):
            temp2 = 0.0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2


def numpy_version(alpha, beta, C, A, B):
    sym = np.tril(A) + np.tril(A, -1).T
    C[:] = beta * C + alpha * (sym @ B)
