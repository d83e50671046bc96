"""floyd-warshall: all-pairs shortest path lengths in a weighted graph (integer weights).

PolyBench category: medley.
"""

import numpy as np
import numpy.typing as npt

NAME = "floyd-warshall"
SIZES = {
    "MINI": {"n": 60},
    "SMALL": {"n": 180},
    "MEDIUM": {"n": 500},
    "LARGE": {"n": 2800},
}
OUTPUTS = ("path",)


def FLOPS(n: int) -> int:
    return 2 * n * n * n


def init(n: int, dtype: npt.DTypeLike = np.int32) -> dict[str, object]:
    i, j = np.ogrid[:n, :n]
    path = i * j % 7 + 1
    no_edge = ((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)
    return {"path": np.where(no_edge, 999, path).astype(dtype)}


def kernel(path):
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                path[i, j] = (
                    path[i, j] if path[i, j] < path[i, k] + path[k, j] else path[i, k] + path[k, j]
                )


def numpy_version(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, path[:, k, None] + path[None, k, :])
