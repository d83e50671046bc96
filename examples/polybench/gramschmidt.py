"""gramschmidt: QR decomposition by modified Gram-Schmidt, ``A = Q*R`` (``A`` is overwritten).

PolyBench category: linear-algebra/solvers.
"""

import math

import numpy as np
import numpy.typing as npt

NAME = "gramschmidt"
SIZES = {
    "MINI": {"m": 20, "n": 30},
    "SMALL": {"m": 60, "n": 80},
    "MEDIUM": {"m": 200, "n": 240},
    "LARGE": {"m": 1000, "n": 1200},
}
OUTPUTS = ("R", "Q")


def FLOPS(m: int, n: int) -> int:
    return 3 * m * n + 2 * m * n * (n - 1)


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:m, :n]
    return {
        "A": ((((i * j) % m) / m) * 100 + 10).astype(dtype),
        "R": np.zeros((n, n), dtype=dtype),
        "Q": np.zeros((m, n), dtype=dtype),
    }


def init_nondegenerate(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    """Well-posed inputs of the same sizes, for correctness testing.

    PolyBench's ``A`` is ``m x n`` with more columns than rows (``n > m`` in every
    dataset) and is rank deficient, so from some column on the orthogonalised
    residuals are pure rounding noise: ``R[k, k]`` is ~1e-14 and ``Q[:, k]`` is
    the noise normalised (or 0/0 = NaN). Any legal reassociation of the sums
    changes those outputs completely. This returns a tall ``max(m, n) x min(m, n)``
    matrix built with PolyBench's formula plus ``100`` on the diagonal: full
    column rank and well conditioned (condition number below 100).
    """
    rows, cols = max(m, n), min(m, n)
    args = init(rows, cols, dtype)
    args["A"] = (args["A"] + 100.0 * np.eye(rows, cols)).astype(dtype)
    return args


def kernel(A, R, Q):
    m, n = A.shape
    for k in range(n):
        nrm = 0.0
        for i in range(m):
            nrm += A[i, k] * A[i, k]
        R[k, k] = math.sqrt(nrm)
        for i in range(m):
            Q[i, k] = A[i, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = 0.0
            for i in range(m):
                R[k, j] += Q[i, k] * A[i, j]
            for i in range(m):
                A[i, j] = A[i, j] - Q[i, k] * R[k, j]
