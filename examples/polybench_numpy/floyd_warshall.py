"""floyd-warshall in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/floyd_warshall.py``."""

import numpy as np

NAME = "floyd-warshall"


def kernel(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, path[:, k : k + 1] + path[k : k + 1, :])
