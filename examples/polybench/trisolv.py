"""trisolv: forward substitution, solving ``L*x = b`` for lower triangular ``L``.

PolyBench category: linear-algebra/solvers.
"""

import numpy as np
import numpy.typing as npt

NAME = "trisolv"
SIZES = {
    "MINI": {"n": 40},
    "SMALL": {"n": 120},
    "MEDIUM": {"n": 400},
    "LARGE": {"n": 2000},
}
OUTPUTS = ("x",)


def FLOPS(n: int) -> int:
    return n * n


def init(n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    # The upper triangle (left uninitialised by PolyBench, never read) is zero.
    L = np.where(j <= i, (i + n - j + 1) * 2 / n, 0.0)
    return {
        "L": L.astype(dtype),
        "x": np.full(n, -999.0, dtype=dtype),
        "b": np.arange(n).astype(dtype),
    }


def kernel(L, x, b):
    n = L.shape[0]
    for i in range(n):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i, j] * x[j]
        x[i] = x[i] / L[i, i]


def numpy_version(L, x, b):
    x[:] = np.linalg.solve(np.tril(L), b)
