"""gesummv: scalar, vector and matrix multiplication, ``y := alpha*A*x + beta*B*x``.

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "gesummv"
SIZES = {
    "MINI": {"n": 30},
    "SMALL": {"n": 90},
    "MEDIUM": {"n": 250},
    "LARGE": {"n": 1300},
}
OUTPUTS = ("y",)


def FLOPS(n: int) -> int:
    return 4 * n * n + 3 * n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "A": (((i * j + 1) % n) / n).astype(dtype),
        "B": (((i * j + 2) % n) / n).astype(dtype),
        "tmp": np.zeros(n, dtype=dtype),
        "x": ((np.arange(n) % n) / n).astype(dtype),
        "y": np.zeros(n, dtype=dtype),
    }


def kernel(alpha, beta, A, B, tmp, x, y):
    n = A.shape[0]
    for i in range(n):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(n):
            tmp[i] = A[i, j] * x[j] + tmp[i]
            y[i] = B[i, j] * x[j] + y[i]
        y[i] = alpha * tmp[i] + beta * y[i]


def numpy_version(alpha, beta, A, B, tmp, x, y):
    tmp[:] = A @ x
    y[:] = alpha * tmp + beta * (B @ x)
