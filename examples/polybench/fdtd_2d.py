"""fdtd-2d: 2-D finite-difference time-domain kernel (Yee scheme for Maxwell's equations).

PolyBench category: stencils.
"""

import numpy as np
import numpy.typing as npt

NAME = "fdtd-2d"
SIZES = {
    "MINI": {"tmax": 20, "nx": 20, "ny": 30},
    "SMALL": {"tmax": 40, "nx": 60, "ny": 80},
    "MEDIUM": {"tmax": 100, "nx": 200, "ny": 240},
    "LARGE": {"tmax": 500, "nx": 1000, "ny": 1200},
}
OUTPUTS = ("ex", "ey", "hz")


def FLOPS(tmax: int, nx: int, ny: int) -> int:
    return 11 * tmax * nx * ny


def init(tmax: int, nx: int, ny: int, dtype: npt.DTypeLike = np.float64) -> dict[str, object]:
    i, j = np.ogrid[:nx, :ny]
    return {
        "ex": ((i * (j + 1)) / nx).astype(dtype),
        "ey": ((i * (j + 2)) / ny).astype(dtype),
        "hz": ((i * (j + 3)) / nx).astype(dtype),
        "_fict_": np.arange(tmax).astype(dtype),
    }


def kernel(ex, ey, hz, _fict_):
    tmax = _fict_.shape[0]
    nx, ny = ex.shape
    for t in range(tmax):
        for j in range(ny):
            ey[0, j] = _fict_[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


def numpy_version(ex, ey, hz, _fict_):
    for t in range(_fict_.shape[0]):
        ey[0, :] = _fict_[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (
            ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]
        )
