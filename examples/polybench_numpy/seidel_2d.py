"""seidel-2d in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/seidel_2d.py``."""

NAME = "seidel-2d"


def python_iterations(tsteps: int, n: int) -> int:
    """Iterations of the Python loop over ``j`` (the bench does not time NumPy past 10^8)."""
    return tsteps * (n - 2) ** 2


def kernel(tsteps, A):
    n = A.shape[0]
    for _t in range(tsteps):
        for i in range(1, n - 1):
            A[i, 1:-1] += A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:]
            for j in range(1, n - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
