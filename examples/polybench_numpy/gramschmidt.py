"""gramschmidt in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/gramschmidt.py``."""

import numpy as np

NAME = "gramschmidt"


def kernel(A, R, Q):
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
