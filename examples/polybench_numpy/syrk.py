"""syrk in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/syrk.py``."""

NAME = "syrk"


def kernel(alpha, beta, C, A):
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += alpha * A[i, k] * A[: i + 1, k]
