"""bicg in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/bicg.py``."""

NAME = "bicg"


def kernel(A, s, q, p, r):
    s[:] = r @ A
    q[:] = A @ p
