"""gemm in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/gemm.py``."""

NAME = "gemm"


def kernel(alpha, beta, C, A, B):
    C[:] = alpha * A @ B + beta * C
