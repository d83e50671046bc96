"""adi in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/adi.py``: each sweep runs its
recurrence along one dimension, on whole rows (or columns) of the other at once."""

NAME = "adi"


def kernel(tsteps, u, v, p, q):
    n = u.shape[0]
    DX = 1.0 / n
    DY = 1.0 / n
    DT = 1.0 / tsteps
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for _t in range(1, tsteps + 1):
        # Column sweep.
        v[0, 1 : n - 1] = 1.0
        p[1 : n - 1, 0] = 0.0
        q[1 : n - 1, 0] = v[0, 1 : n - 1]
        for j in range(1, n - 1):
            p[1 : n - 1, j] = -c / (a * p[1 : n - 1, j - 1] + b)
            q[1 : n - 1, j] = (
                -d * u[j, 0 : n - 2] + (1.0 + 2.0 * d) * u[j, 1 : n - 1] - f * u[j, 2:n]
                - a * q[1 : n - 1, j - 1]
            ) / (a * p[1 : n - 1, j - 1] + b)
        v[n - 1, 1 : n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1 : n - 1] = p[1 : n - 1, j] * v[j + 1, 1 : n - 1] + q[1 : n - 1, j]
        # Row sweep.
        u[1 : n - 1, 0] = 1.0
        p[1 : n - 1, 0] = 0.0
        q[1 : n - 1, 0] = u[1 : n - 1, 0]
        for j in range(1, n - 1):
            p[1 : n - 1, j] = -f / (d * p[1 : n - 1, j - 1] + e)
            q[1 : n - 1, j] = (
                -a * v[0 : n - 2, j] + (1.0 + 2.0 * a) * v[1 : n - 1, j] - c * v[2:n, j]
                - d * q[1 : n - 1, j - 1]
            ) / (d * p[1 : n - 1, j - 1] + e)
        u[1 : n - 1, n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1 : n - 1, j] = p[1 : n - 1, j] * u[1 : n - 1, j + 1] + q[1 : n - 1, j]
