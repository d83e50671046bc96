"""3mm: three matrix multiplications, ``E := A*B; F := C*D; G := E*F``.

PolyBench category: linear-algebra/kernels.
"""

import numpy as np
import numpy.typing as npt

NAME = "3mm"
SIZES = {
    "MINI": {"ni": 16, "nj": 18, "nk": 20, "nl": 22, "nm": 24},
    "SMALL": {"ni": 40, "nj": 50, "nk": 60, "nl": 70, "nm": 80},
    "MEDIUM": {"ni": 180, "nj": 190, "nk": 200, "nl": 210, "nm": 220},
    "LARGE": {"ni": 800, "nj": 900, "nk": 1000, "nl": 1100, "nm": 1200},
}
OUTPUTS = ("G",)


def FLOPS(ni: int, nj: int, nk: int, nl: int, nm: int) -> int:
    return 2 * (ni * nj * nk + nj * nl * nm + ni * nl * nj)


def init(
    ni: int, nj: int, nk: int, nl: int, nm: int, dtype: npt.DTypeLike = np.float64
) -> dict[str, object]:
    i, j = np.ogrid[:ni, :nk]
    A = ((i * j + 1) % ni) / (5 * ni)
    i, j = np.ogrid[:nk, :nj]
    B = ((i * (j + 1) + 2) % nj) / (5 * nj)
    i, j = np.ogrid[:nj, :nm]
    C = (i * (j + 3) % nl) / (5 * nl)
    i, j = np.ogrid[:nm, :nl]
    D = ((i * (j + 2) + 2) % nk) / (5 * nk)
    return {
        "E": np.zeros((ni, nj), dtype=dtype),
        "A": A.astype(dtype),
        "B": B.astype(dtype),
        "F": np.zeros((nj, nl), dtype=dtype),
        "C": C.astype(dtype),
        "D": D.astype(dtype),
        "G": np.zeros((ni, nl), dtype=dtype),
    }


def kernel(E, A, B, F, C, D, G):
    ni, nj = E.shape
    nk = A.shape[1]
    nl = F.shape[1]
    nm = C.shape[1]
    # E := A*B
    for i in range(ni):
        for j in range(nj):
            E[i, j] = 0.0
            for k in range(nk):
                E[i, j] += A[i, k] * B[k, j]
    # F := C*D
    for i in range(nj):
        for j in range(nl):
            F[i, j] = 0.0
            for k in range(nm):
                F[i, j] += C[i, k] * D[k, j]
    # G := E*F
    for i in range(ni):
        for j in range(nl):
            G[i, j] = 0.0
            for k in range(nj):
                G[i, j] += E[i, k] * F[k, j]


def numpy_version(E, A, B, F, C, D, G):
    E[:] = A @ B
    F[:] = C @ D
    G[:] = E @ F
