"""mvt in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/mvt.py``."""

NAME = "mvt"


def kernel(x1, x2, y_1, y_2, A):
    x1 += A @ y_1
    x2 += y_2 @ A
