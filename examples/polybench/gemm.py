"""gemm: general matrix multiply, ``C := alpha*A*B + beta*C``.

PolyBench category: linear-algebra/blas.
"""

import numpy as np
import numpy.typing as npt

NAME = "gemm"
SIZES = {
    "MINI": {"ni": 20, "nj": 25, "nk": 30},
    "SMALL": {"ni": 60, "nj": 70, "nk": 80},
    "MEDIUM": {"ni": 200, "nj": 220, "nk": 240},
    "LARGE": {"ni": 1000, "nj": 1100, "nk": 1200},
}
OUTPUTS = ("C",)


def FLOPS(ni: int, nj: int, nk: int) -> int:
    return 2 * ni * nj * nk + ni * nj


def init(ni: int, nj: int, nk: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:ni, :nj]
    C = ((i * j + 1) % ni) / ni
    i, j = np.ogrid[:ni, :nk]
    A = (i * (j + 1) % nk) / nk
    i, j = np.ogrid[:nk, :nj]
    B = (i * (j + 2) % nj) / nj
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "C": C.astype(dtype),
        "A": A.astype(dtype),
        "B": B.astype(dtype),
    }


def kernel(alpha, beta, C, A, B):
    ni, nj = C.shape
    nk = A.shape[1]
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
        for k in range(nk):
            for j in range(nj):
                C[i, j] += alpha * A[i, k] * B[k, j]


def numpy_version(alpha, beta, C, A, B):
    C *= beta
    C += alpha * A @ B
