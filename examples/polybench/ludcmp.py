"""ludcmp: LU decomposition followed by forward and back substitution, solving ``A*x = b``.

PolyBench category: linear-algebra/solvers.
"""

import numpy as np
import numpy.typing as npt

NAME = "ludcmp"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("x",)


def FLOPS(n: int) -> int:
    return 2 * n * n * n // 3 + 2 * n * n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    fn = float(n)
    i, j = np.ogrid[:n, :n]
    # Same matrix as cholesky: C's (-j % n) is -(j % n); unit diagonal, zero upper triangle.
    L = np.where(j <= i, -(j % n) / n + 1, 0.0)
    np.fill_diagonal(L, 1.0)
    return {
        # Positive semi-definite (not necessary for LU, but PolyBench reuses cholesky's init).
        "A": (L @ L.T).astype(dtype),
        "b": ((np.arange(n) + 1) / fn / 2.0 + 4).astype(dtype),
        "x": np.zeros(n, dtype=dtype),
        "y": np.zeros(n, dtype=dtype),
    }


def kernel(A, b, x, y):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            w = A[i, j]
            for k in range(j):
                w -= A[i, k] * A[k, j]
            A[i, j] = w / A[j, j]
        for j in range(i, n):
            w = A[i, j]
            for k in range(i):
                w -= A[i, k] * A[k, j]
            A[i, j] = w

    for i in range(n):
        w = b[i]
        for j in range(i):
            w -= A[i, j] * y[j]
        y[i] = w

    for i in range(n - 1, -1, -1):
        w = y[i]
        for j in range(i + 1, n):
            w -= A[i, j] * x[j]
        x[i] = w / A[i, i]


def numpy_version(A, b, x, y):
    x[:] = np.linalg.solve(A, b)
