"""ludcmp in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/ludcmp.py``."""

NAME = "ludcmp"


def kernel(A, b, x, y):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]
    for i in range(n):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]
