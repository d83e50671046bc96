"""doitgen in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/doitgen.py``."""

NAME = "doitgen"


def kernel(A, C4, sum_):
    for r in range(A.shape[0]):
        A[r, :, :] = A[r, :, :] @ C4
