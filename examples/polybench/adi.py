"""adi: alternating direction implicit solver for 2-D heat diffusion (column then row sweeps).

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "adi"
SIZES = {
    "MINI": {"tsteps": 20, "n": 20},
    "SMALL": {"tsteps": 40, "n": 60},
    "MEDIUM": {"tsteps": 100, "n": 200},
    "LARGE": {"tsteps": 500, "n": 1000},
}
OUTPUTS = ("u",)


def FLOPS(tsteps: int, n: int) -> int:
    return 30 * tsteps * (n - 2) * (n - 2)


def init(tsteps: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    return {
        "tsteps": tsteps,
        "u": ((i + n - j) / n).astype(dtype),
        "v": np.zeros((n, n), dtype=dtype),
        "p": np.zeros((n, n), dtype=dtype),
        "q": np.zeros((n, n), dtype=dtype),
    }


def kernel(tsteps, u, v, p, q):
    n = u.shape[0]

    DX = 1.0 / n
    DY = 1.0 / n
    DT = 1.0 / tsteps
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)

    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d

    for _t in range(1, tsteps + 1):
        # Column sweep.
        for i in range(1, n - 1):
            v[0, i] = 1.0
            p[i, 0] = 0.0
            q[i, 0] = v[0, i]
            for j in range(1, n - 1):
                p[i, j] = -c / (a * p[i, j - 1] + b)
                q[i, j] = (
                    -d * u[j, i - 1] + (1.0 + 2.0 * d) * u[j, i] - f * u[j, i + 1] - a * q[i, j - 1]
                ) / (a * p[i, j - 1] + b)
            v[n - 1, i] = 1.0
            for j in range(n - 2, 0, -1):
                v[j, i] = p[i, j] * v[j + 1, i] + q[i, j]
        # Row sweep.
        for i in range(1, n - 1):
            u[i, 0] = 1.0
            p[i, 0] = 0.0
            q[i, 0] = u[i, 0]
            for j in range(1, n - 1):
                p[i, j] = -f / (d * p[i, j - 1] + e)
                q[i, j] = (
                    -a * v[i - 1, j] + (1.0 + 2.0 * a) * v[i, j] - c * v[i + 1, j] - d * q[i, j - 1]
                ) / (d * p[i, j - 1] + e)
            u[i, n - 1] = 1.0
            for j in range(n - 2, 0, -1):
                u[i, j] = p[i, j] * u[i, j + 1] + q[i, j]
