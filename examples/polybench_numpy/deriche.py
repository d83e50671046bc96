"""deriche in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/deriche.py``: each recursive filter
runs along one dimension, on whole columns (or rows) of the other at once.  The first
two steps of each recurrence, whose earlier terms are the loop version's zeros, are
written out (adding a zero changes no value)."""

import math

NAME = "deriche"


def kernel(alpha, imgIn, imgOut, y1, y2):
    w, h = imgIn.shape

    k = (
        (1.0 - math.exp(-alpha))
        * (1.0 - math.exp(-alpha))
        / (1.0 + 2.0 * alpha * math.exp(-alpha) - math.exp(2.0 * alpha))
    )
    a1 = k
    a5 = k
    a2 = k * math.exp(-alpha) * (alpha - 1.0)
    a6 = a2
    a3 = k * math.exp(-alpha) * (alpha + 1.0)
    a7 = a3
    a4 = -k * math.exp(-2.0 * alpha)
    a8 = a4
    b1 = math.pow(2.0, -alpha)
    b2 = -math.exp(-2.0 * alpha)
    c1 = 1.0
    c2 = 1.0

    # along each row: causal, then anti-causal
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, h):
        y1[:, j] = (a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] + b1 * y1[:, j - 1]
                    + b2 * y1[:, j - 2])
    y2[:, h - 1] = 0.0
    y2[:, h - 2] = a3 * imgIn[:, h - 1]
    for j in range(h - 3, -1, -1):
        y2[:, j] = (a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] + b1 * y2[:, j + 1]
                    + b2 * y2[:, j + 2])
    imgOut[:] = c1 * (y1 + y2)

    # along each column
    y1[0, :] = a5 * imgOut[0, :]
    y1[1, :] = a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :]
    for i in range(2, w):
        y1[i, :] = (a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] + b1 * y1[i - 1, :]
                    + b2 * y1[i - 2, :])
    y2[w - 1, :] = 0.0
    y2[w - 2, :] = a7 * imgOut[w - 1, :]
    for i in range(w - 3, -1, -1):
        y2[i, :] = (a7 * imgOut[i + 1, :] + a8 * imgOut[i + 2, :] + b1 * y2[i + 1, :]
                    + b2 * y2[i + 2, :])
    imgOut[:] = c2 * (y1 + y2)
