"""seidel-2d: 2-D Gauss-Seidel stencil, in-place 9-point average.

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "seidel-2d"
SIZES = {
    "MINI": {"tsteps": 20, "n": 40},
    "SMALL": {"tsteps": 40, "n": 120},
    "MEDIUM": {"tsteps": 100, "n": 400},
    "LARGE": {"tsteps": 500, "n": 2000},
}
OUTPUTS = ("A",)


def FLOPS(tsteps: int, n: int) -> int:
    return 9 * tsteps * (n - 2) * (n - 2)


def init(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    return {"tsteps": tsteps, "A": ((i * (j + 2) + 2) / n).astype(dtype)}


def kernel(tsteps, A):
    n = A.shape[0]
    for _t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (
                    A[i - 1, j - 1]
                    + A[i - 1, j]
                    + A[i - 1, j + 1]
                    + A[i, j - 1]
                    + A[i, j]
                    + A[i, j + 1]
                    + A[i + 1, j - 1]
                    + A[i + 1, j]
                    + A[i + 1, j + 1]
                ) / 9.0
