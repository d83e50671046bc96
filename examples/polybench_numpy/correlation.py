"""correlation in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/correlation.py``."""

import numpy as np

NAME = "correlation"


def kernel(float_n, data, corr, mean, stddev):
    m = data.shape[1]
    mean[:] = np.mean(data, axis=0)
    stddev[:] = np.sqrt(np.mean((data - mean) * (data - mean), axis=0))
    stddev[:] = np.where(stddev <= 0.1, 1.0, stddev)
    data -= mean
    data /= np.sqrt(float_n) * stddev
    for i in range(m - 1):
        corr[i, i] = 1.0
        corr[i, i + 1:] = data[:, i] @ data[:, i + 1:]
        corr[i + 1:, i] = corr[i, i + 1:]
    corr[m - 1, m - 1] = 1.0
