"""covariance in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/covariance.py``."""

import numpy as np

NAME = "covariance"


def kernel(float_n, data, cov, mean):
    m = data.shape[1]
    mean[:] = np.mean(data, axis=0)
    data -= mean
    for i in range(m):
        cov[i:m, i] = data[:, i] @ data[:, i:m] / (float_n - 1.0)
        cov[i, i:m] = cov[i:m, i]
