"""jacobi-1d: 1-D Jacobi stencil, 3-point average alternating between ``A`` and ``B``.

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "jacobi-1d"
SIZES = {
    "MINI": {"tsteps": 20, "n": 30},
    "SMALL": {"tsteps": 40, "n": 120},
    "MEDIUM": {"tsteps": 100, "n": 400},
    "LARGE": {"tsteps": 500, "n": 2000},
}
OUTPUTS = ("A",)


def FLOPS(tsteps: int, n: int) -> int:
    return 6 * tsteps * (n - 2)


def init(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i = np.arange(n)
    return {
        "tsteps": tsteps,
        "A": ((i + 2) / n).astype(dtype),
        "B": ((i + 3) / n).astype(dtype),
    }


def kernel(tsteps, A, B):
    n = A.shape[0]
    for _t in range(tsteps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


def numpy_version(tsteps, A, B):
    for _ in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
