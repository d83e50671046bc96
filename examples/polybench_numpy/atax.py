"""atax in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/atax.py``."""

NAME = "atax"


def kernel(A, x, y, tmp):
    y[:] = (A @ x) @ A
