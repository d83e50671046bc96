"""durbin: Levinson-Durbin recursion solving the Yule-Walker equations (Toeplitz system).

PolyBench category: linear-algebra/solvers.
"""

import numpy as np
import numpy.typing as npt

NAME = "durbin"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("y",)


def FLOPS(n: int) -> int:
    return 2 * n * n + 6 * n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    return {
        "r": (n + 1 - np.arange(n)).astype(dtype),
        "y": np.zeros(n, dtype=dtype),
    }


def kernel(r, y):
    n = r.shape[0]
    z = np.empty(n)

    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]

    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        total = 0.0
        for i in range(k):
            total += r[k - i - 1] * y[i]
        alpha = -(r[k] + total) / beta

        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        for i in range(k):
            y[i] = z[i]
        y[k] = alpha
