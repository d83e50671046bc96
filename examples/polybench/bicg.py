"""bicg: the BiCG sub-kernel of BiCGStab, ``s := A^T*r; q := A*p``.

PolyBench category: linear-algebra/kernels.
"""

import numpy as np
import numpy.typing as npt

NAME = "bicg"
SIZES = {
    "MINI": {"m": 38, "n": 42},
    "SMALL": {"m": 116, "n": 124},
    "MEDIUM": {"m": 390, "n": 410},
    "LARGE": {"m": 1900, "n": 2100},
}
OUTPUTS = ("s", "q")


def FLOPS(m: int, n: int) -> int:
    return 4 * m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :m]
    return {
        "A": ((i * (j + 1) % n) / n).astype(dtype),
        "s": np.zeros(m, dtype=dtype),
        "q": np.zeros(n, dtype=dtype),
        "p": ((np.arange(m) % m) / m).astype(dtype),
        "r": ((np.arange(n) % n) / n).astype(dtype),
    }


def kernel(A, s, q, p, r):
    n, m = A.shape
    for i in range(m):
        s[i] = 0.0
    for i in range(n):
        q[i] = 0.0
        for j in range(m):
            s[j] = s[j] + r[i] * A[i, j]
            q[i] = q[i] + A[i, j] * p[j]


def numpy_version(A, s, q, p, r):
    s[:] = r @ A
    q[:] = A @ p
