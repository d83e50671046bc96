"""2mm: two chained matrix multiplications, ``D := alpha*A*B*C + beta*D``.

PolyBench category: linear-algebra/kernels.
"""

import numpy as np
import numpy.typing as npt

NAME = "2mm"
SIZES = {
    "MINI": {"ni": 16, "nj": 18, "nk": 22, "nl": 24},
    "SMALL": {"ni": 40, "nj": 50, "nk": 70, "nl": 80},
    "MEDIUM": {"ni": 180, "nj": 190, "nk": 210, "nl": 220},
    "LARGE": {"ni": 800, "nj": 900, "nk": 1100, "nl": 1200},
}
OUTPUTS = ("D",)


def FLOPS(ni: int, nj: int, nk: int, nl: int) -> int:
    return 3 * ni * nj * nk + 2 * ni * nl * nj + ni * nl


def init(
    ni: int, nj: int, nk: int, nl: int, dtype: npt.DTypeLike = np.float64
) -> dict[str, object]:
    i, j = np.ogrid[:ni, :nk]
    A = ((i * j + 1) % ni) / ni
    i, j = np.ogrid[:nk, :nj]
    B = (i * (j + 1) % nj) / nj
    i, j = np.ogrid[:nj, :nl]
    C = ((i * (j + 3) + 1) % nl) / nl
    i, j = np.ogrid[:ni, :nl]
    D = (i * (j + 2) % nk) / nk
    return {
        "alpha": 1.5,
        "beta": 1.2,
        "tmp": np.zeros((ni, nj), dtype=dtype),
        "A": A.astype(dtype),
        "B": B.astype(dtype),
        "C": C.astype(dtype),
        "D": D.astype(dtype),
    }


def kernel(alpha, beta, tmp, A, B, C, D):
    ni, nj = tmp.shape
    nk = A.shape[1]
    nl = D.shape[1]
    for i in range(ni):
        for j in range(nj):
            tmp[i, j] = 0.0
            for k in range(nk):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(ni):
        for j in range(nl):
            D[i, j] *= beta
            for k in range(nj):
                D[i, j] += tmp[i, k] * C[k, j]


def numpy_version(alpha, beta, tmp, A, B, C, D):
    tmp[:] = alpha * A @ B
    D *= beta
    D += tmp @ C
