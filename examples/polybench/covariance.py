"""covariance: sample covariance matrix of the ``m`` columns of an ``n x m`` data set.

PolyBench category: datamining.
"""

import numpy as np
import numpy.typing as npt

NAME = "covariance"
SIZES = {
    "MINI": {"m": 28, "n": 32},
    "SMALL": {"m": 80, "n": 100},
    "MEDIUM": {"m": 240, "n": 260},
    "LARGE": {"m": 1200, "n": 1400},
}
OUTPUTS = ("cov",)


def FLOPS(m: int, n: int) -> int:
    return m * (m + 1) * n + 2 * m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :m]
    return {
        "float_n": float(n),
        "data": ((i * j) / m).astype(dtype),
        "cov": np.zeros((m, m), dtype=dtype),
        "mean": np.zeros(m, dtype=dtype),
    }


def kernel(float_n, data, cov, mean):
    n, m = data.shape

    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= float_n

    for i in range(n):
        for j in range(m):
            data[i, j] -= mean[j]

    for i in range(m):
        for j in range(i, m):
            cov[i, j] = 0.0
            for k in range(n):
                cov[i, j] += data[k, i] * data[k, j]
            cov[i, j] /= float_n - 1.0
            cov[j, i] = cov[i, j]


def numpy_version(float_n, data, cov, mean):
    mean[:] = data.sum(axis=0) / float_n
    data -= mean
    cov[:] = (data.T @ data) / (float_n - 1.0)
