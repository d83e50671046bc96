"""3mm in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/three_mm.py``."""

NAME = "3mm"


def kernel(E, A, B, F, C, D, G):
    G[:] = A @ B @ (C @ D)
