"""gesummv in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/gesummv.py``."""

NAME = "gesummv"


def kernel(alpha, beta, A, B, tmp, x, y):
    y[:] = alpha * A @ x + beta * B @ x
