"""jacobi-2d in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/jacobi_2d.py``."""

NAME = "jacobi-2d"


def kernel(tsteps, A, B):
    for _t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
