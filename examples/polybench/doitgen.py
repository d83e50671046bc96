"""doitgen: multi-resolution analysis kernel (MADNESS), ``A[r, q, :] := A[r, q, :] @ C4``.

PolyBench category: linear-algebra/kernels.
"""

# PolyBench names one size ``np``; init() takes it under that name, so NumPy is
# imported without its usual alias here.
import numpy
import numpy.typing as npt

NAME = "doitgen"
SIZES = {
    "MINI": {"nq": 8, "nr": 10, "np": 12},
    "SMALL": {"nq": 20, "nr": 25, "np": 30},
    "MEDIUM": {"nq": 40, "nr": 50, "np": 60},
    "LARGE": {"nq": 140, "nr": 150, "np": 160},
}
OUTPUTS = ("A",)


def FLOPS(nq: int, nr: int, np: int) -> int:
    return 2 * nr * nq * np * np


def init(nq: int, nr: int, np: int, dtype: npt.DTypeLike = numpy.float64) -> dict[str, object]:
    i, j, k = numpy.ogrid[:nr, :nq, :np]
    A = ((i * j + k) % np) / np
    i, j = numpy.ogrid[:np, :np]
    C4 = (i * j % np) / np
    return {
        "A": A.astype(dtype),
        "C4": C4.astype(dtype),
        "sum_": numpy.zeros(np, dtype=dtype),
    }


def kernel(A, C4, sum_):
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(np_):
                sum_[p] = 0.0
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(np_):
                A[r, q, p] = sum_[p]


def numpy_version(A, C4, sum_):
    A[:] = A @ C4
