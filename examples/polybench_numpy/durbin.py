"""durbin in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/durbin.py``."""

import numpy as np

NAME = "durbin"


def kernel(r, y):
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(r[k - 1 :: -1], y[:k])) / beta
        y[:k] += alpha * y[k - 1 :: -1]
        y[k] = alpha
