"""2mm in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/two_mm.py``."""

NAME = "2mm"


def kernel(alpha, beta, tmp, A, B, C, D):
    D[:] = alpha * A @ B @ C + beta * D
