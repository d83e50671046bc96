"""jacobi-1d in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/jacobi_1d.py``."""

NAME = "jacobi-1d"


def kernel(tsteps, A, B):
    for _t in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
