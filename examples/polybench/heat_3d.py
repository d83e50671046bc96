"""heat-3d: 3-D heat equation, explicit 7-point stencil alternating between ``A`` and ``B``.

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "heat-3d"
SIZES = {
    "MINI": {"tsteps": 20, "n": 10},
    "SMALL": {"tsteps": 40, "n": 20},
    "MEDIUM": {"tsteps": 100, "n": 40},
    "LARGE": {"tsteps": 500, "n": 120},
}
OUTPUTS = ("A",)


def FLOPS(tsteps: int, n: int) -> int:
    return 30 * tsteps * (n - 2) ** 3


def init(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j, k = np.ogrid[:n, :n, :n]
    grid = ((i + j + (n - k)) * 10 / n).astype(dtype)
    return {"tsteps": tsteps, "A": grid, "B": grid.copy()}


def init_nondegenerate(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    """Inputs on which the kernel does observable work, for correctness testing.

    PolyBench's initial field is linear in ``i, j, k``, so every stencil sweep
    reproduces it (up to rounding) and the kernel leaves ``A`` unchanged. This
    adds a non-linear term to the same field.
    """
    args = init(tsteps, n, dtype)
    i, j, k = np.ogrid[:n, :n, :n]
    grid = (args["A"] + ((i * i + 2 * j * k + 3 * k) % 7) / 7.0).astype(dtype)
    args["A"] = grid
    args["B"] = grid.copy()
    return args


def kernel(tsteps, A, B):
    n = A.shape[0]
    for _t in range(1, tsteps + 1):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = (
                        0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                        + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                        + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1])
                        + A[i, j, k]
                    )
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = (
                        0.125 * (B[i + 1, j, k] - 2.0 * B[i, j, k] + B[i - 1, j, k])
                        + 0.125 * (B[i, j + 1, k] - 2.0 * B[i, j, k] + B[i, j - 1, k])
                        + 0.125 * (B[i, j, k + 1] - 2.0 * B[i, j, k] + B[i, j, k - 1])
                        + B[i, j, k]
                    )


def _step(src, dst):
    c = src[1:-1, 1:-1, 1:-1]
    dst[1:-1, 1:-1, 1:-1] = (
        0.125 * (src[2:, 1:-1, 1:-1] - 2.0 * c + src[:-2, 1:-1, 1:-1])
        + 0.125 * (src[1:-1, 2:, 1:-1] - 2.0 * c + src[1:-1, :-2, 1:-1])
        + 0.125 * (src[1:-1, 1:-1, 2:] - 2.0 * c + src[1:-1, 1:-1, :-2])
        + c
    )


def numpy_version(tsteps, A, B):
    for _ in range(tsteps):
        _step(A, B)
        _step(B, A)
