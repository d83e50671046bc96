"""atax: matrix transpose and vector multiplication, ``y := A^T*(A*x)``.

PolyBench category: linear-algebra/kernels.
"""

import numpy as np
import numpy.typing as npt

NAME = "atax"
SIZES = {
    "MINI": {"m": 38, "n": 42},
    "SMALL": {"m": 116, "n": 124},
    "MEDIUM": {"m": 390, "n": 410},
    "LARGE": {"m": 1900, "n": 2100},
}
OUTPUTS = ("y",)


def FLOPS(m: int, n: int) -> int:
    return 4 * m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    fn = float(n)
    i, j = np.ogrid[:m, :n]
    return {
        "A": (((i + j) % n) / (5 * m)).astype(dtype),
        "x": (1 + np.arange(n) / fn).astype(dtype),
        "y": np.zeros(n, dtype=dtype),
        "tmp": np.zeros(m, dtype=dtype),
    }


def kernel(A, x, y, tmp):
    m, n = A.shape
    for i in range(n):
        y[i] = 0.0
    for i in range(m):
        tmp[i] = 0.0
        for j in range(n):
            tmp[i] = tmp[i] + A[i, j] * x[j]
        for j in range(n):
            y[j] = y[j] + A[i, j] * tmp[i]


def numpy_version(A, x, y, tmp):
    tmp[:] = A @ x
    y[:] = A.T @ tmp
