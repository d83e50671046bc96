"""syr2k in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/syr2k.py``."""

NAME = "syr2k"


def kernel(alpha, beta, C, A, B):
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += A[: i + 1, k] * alpha * B[i, k] + B[: i + 1, k] * alpha * A[i, k]
