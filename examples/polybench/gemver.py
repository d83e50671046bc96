"""gemver: vector multiplication and matrix addition (rank-2 update, then two matrix-vector products).

``A := A + u1*v1^T + u2*v2^T; x := x + beta*A^T*y + z; w := w + alpha*A*x``.

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "gemver"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("w",)


def FLOPS(n: int) -> int:
    return 10 * n * n + n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    fn = float(n)
    i = np.arange(n)
    ii, jj = np.ogrid[:n, :n]
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "A": ((ii * jj % n) / n).astype(dtype),
        "u1": i.astype(dtype),
        "v1": (((i + 1) / fn) / 4.0).astype(dtype),
        "u2": (((i + 1) / fn) / 2.0).astype(dtype),
        "v2": (((i + 1) / fn) / 6.0).astype(dtype),
        "w": np.zeros(n, dtype=dtype),
        "x": np.zeros(n, dtype=dtype),
        "y": (((i + 1) / fn) / 8.0).astype(dtype),
        "z": (((i + 1) / fn) / 9.0).astype(dtype),
    }


def kernel(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    n = A.shape[0]

    for i in range(n):
        for j in range(n):
            A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]

    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * A[j, i] * y[j]

    for i in range(n):
        x[i] = x[i] + z[i]

    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i, j] * x[j]


def numpy_version(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * (A.T @ y)
    x += z
    w += alpha * (A @ x)
