"""deriche: Deriche recursive edge-detection filter on a 2-D image (single precision).

Causal and anti-causal first-order recursive filters run along rows, then along
columns, each pair summed into ``imgOut``.

PolyBench category: medley.
"""

import math

import numpy as np
import numpy.typing as npt

NAME = "deriche"
SIZES = {
    "MINI": {"w": 64, "h": 64},
    "SMALL": {"w": 192, "h": 128},
    "MEDIUM": {"w": 720, "h": 480},
    "LARGE": {"w": 4096, "h": 2160},
}
OUTPUTS = ("imgOut",)


def FLOPS(w: int, h: int) -> int:
    return 32 * w * h


def init(w: int, h: int, dtype: npt.DTypeLike = np.float32) -> dict[str, object]:
    i, j = np.ogrid[:w, :h]
    # Grayscale pixels in [0, 1]; divided in the target precision, as in C.
    img_in = np.asarray((313 * i + 991 * j) % 65536, dtype=dtype) / 65535.0
    return {
        "alpha": 0.25,  # parameter of the filter
        "imgIn": img_in.astype(dtype),
        "imgOut": np.zeros((w, h), dtype=dtype),
        "y1": np.zeros((w, h), dtype=dtype),
        "y2": np.zeros((w, h), dtype=dtype),
    }


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

    for i in range(w):
        ym1 = 0.0
        ym2 = 0.0
        xm1 = 0.0
        for j in range(h):
            y1[i, j] = a1 * imgIn[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = imgIn[i, j]
            ym2 = ym1
            ym1 = y1[i, j]

    for i in range(w):
        yp1 = 0.0
        yp2 = 0.0
        xp1 = 0.0
        xp2 = 0.0
        for j in range(h - 1, -1, -1):
            y2[i, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2 = xp1
            xp1 = imgIn[i, j]
            yp2 = yp1
            yp1 = y2[i, j]

    for i in range(w):
        for j in range(h):
            imgOut[i, j] = c1 * (y1[i, j] + y2[i, j])

    for j in range(h):
        tm1 = 0.0
        ym1 = 0.0
        ym2 = 0.0
        for i in range(w):
            y1[i, j] = a5 * imgOut[i, j] + a6 * tm1 + b1 * ym1 + b2 * ym2
            tm1 = imgOut[i, j]
            ym2 = ym1
            ym1 = y1[i, j]

    for j in range(h):
        tp1 = 0.0
        tp2 = 0.0
        yp1 = 0.0
        yp2 = 0.0
        for i in range(w - 1, -1, -1):
            y2[i, j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
            tp2 = tp1
            tp1 = imgOut[i, j]
            yp2 = yp1
            yp1 = y2[i, j]

    for i in range(w):
        for j in range(h):
            imgOut[i, j] = c2 * (y1[i, j] + y2[i, j])
