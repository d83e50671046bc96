"""mvt: matrix-vector product and transpose, ``x1 := x1 + A*y_1; x2 := x2 + A^T*y_2``.

PolyBench category: linear-algebra/kernels.
"""

import numpy as np
import numpy.typing as npt

NAME = "mvt"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("x1", "x2")


def FLOPS(n: int) -> int:
    return 4 * n * n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i = np.arange(n)
    ii, jj = np.ogrid[:n, :n]
    return {
        "x1": ((i % n) / n).astype(dtype),
        "x2": (((i + 1) % n) / n).astype(dtype),
        "y_1": (((i + 3) % n) / n).astype(dtype),
        "y_2": (((i + 4) % n) / n).astype(dtype),
        "A": ((ii * jj % n) / n).astype(dtype),
    }


def kernel(x1, x2, y_1, y_2, A):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            x1[i] = x1[i] + A[i, j] * y_1[j]
    for i in range(n):
        for j in range(n):
            x2[i] = x2[i] + A[j, i] * y_2[j]


def numpy_version(x1, x2, y_1, y_2, A):
    x1 += A @ y_1
    x2 += A.T @ y_2
