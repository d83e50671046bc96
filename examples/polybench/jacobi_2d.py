"""jacobi-2d: 2-D Jacobi stencil, 5-point average alternating between ``A`` and ``B``.

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "jacobi-2d"
SIZES = {
    "MINI": {"tsteps": 20, "n": 30},
    "SMALL": {"tsteps": 40, "n": 90},
    "MEDIUM": {"tsteps": 100, "n": 250},
    "LARGE": {"tsteps": 500, "n": 1300},
}
OUTPUTS = ("A",)


def FLOPS(tsteps: int, n: int) -> int:
    return 10 * tsteps * (n - 2) * (n - 2)


def init(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    return {
        "tsteps": tsteps,
        "A": ((i * (j + 2) + 2) / n).astype(dtype),
        "B": ((i * (j + 3) + 3) / n).astype(dtype),
    }


def kernel(tsteps, A, B):
    n = A.shape[0]
    for _t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, 1 + j] + A[1 + i, j] + A[i - 1, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, 1 + j] + B[1 + i, j] + B[i - 1, j])


def numpy_version(tsteps, A, B):
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (
            A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]
        )
        A[1:-1, 1:-1] = 0.2 * (
            B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]
        )
