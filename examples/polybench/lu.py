"""lu: in-place LU decomposition without pivoting, ``A = L*U`` (``L`` unit lower triangular).

PolyBench category: linear-algebra/solvers.
"""

import numpy as np
import numpy.typing as npt

NAME = "lu"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("A",)


def FLOPS(n: int) -> int:
    return 2 * n * n * n // 3


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    # Same matrix as cholesky: C's (-j % n) is -(j % n); unit diagonal, zero upper triangle.
    L = np.where(j <= i, -(j % n) / n + 1, 0.0)
    np.fill_diagonal(L, 1.0)
    # Positive semi-definite (not necessary for LU, but PolyBench reuses cholesky's init).
    return {"A": (L @ L.T).astype(dtype)}


def kernel(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            for k in range(i):
                A[i, j] -= A[i, k] * A[k, j]
