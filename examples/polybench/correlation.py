"""correlation: Pearson correlation matrix of the ``m`` columns of an ``n x m`` data set.

PolyBench category: datamining.
"""

import math

import numpy as np
import numpy.typing as npt

NAME = "correlation"
SIZES = {
    "MINI": {"m": 28, "n": 32},
    "SMALL": {"m": 80, "n": 100},
    "MEDIUM": {"m": 240, "n": 260},
    "LARGE": {"m": 1200, "n": 1400},
}
OUTPUTS = ("corr",)


def FLOPS(m: int, n: int) -> int:
    return m * (m - 1) * n + 7 * m * n


def init(m: int, n: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:n, :m]
    return {
        "float_n": float(n),
        "data": ((i * j) / m + i).astype(dtype),
        "corr": np.zeros((m, m), dtype=dtype),
        "mean": np.zeros(m, dtype=dtype),
        "stddev": np.zeros(m, dtype=dtype),
    }


def kernel(float_n, data, corr, mean, stddev):
    n, m = data.shape
    eps = 0.1

    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= float_n

    for j in range(m):
        stddev[j] = 0.0
        for i in range(n):
            stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
        stddev[j] /= float_n
        stddev[j] = math.sqrt(stddev[j])
        # Near-zero standard deviations would cause a division by zero below.
        stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]

    # Center and reduce the column vectors.
    for i in range(n):
        for j in range(m):
            data[i, j] -= mean[j]
            data[i, j] /= math.sqrt(float_n) * stddev[j]

    # The m x m correlation matrix.
    for i in range(m - 1):
        corr[i, i] = 1.0
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(n):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]
    corr[m - 1, m - 1] = 1.0


def numpy_version(float_n, data, corr, mean, stddev):
    eps = 0.1
    mean[:] = data.sum(axis=0) / float_n
    stddev[:] = np.sqrt(((data - mean) ** 2).sum(axis=0) / float_n)
    stddev[stddev <= eps] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr[:] = data.T @ data
    np.fill_diagonal(corr, 1.0)
