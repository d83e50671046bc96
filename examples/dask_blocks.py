"""Data larger than one machine: a Dask array whose blocks each run a polyopt kernel.

``map_blocks`` hands each block to a kernel that writes its own block; a stencil reads a
halo of its neighbours, which ``map_overlap`` adds around each block (``depth``) and cuts
off afterwards.  Dask ships the kernels to its workers by pickling them: a kernel goes as
its source and options, and each worker compiles it at most once per signature (from the
disk cache, when the workers share it).  Run it as a script: it starts a local cluster of
two worker processes and checks both results against NumPy on the whole array.
"""

from __future__ import annotations

import numpy as np

import polyopt


@polyopt.jit
def scale_shift(x, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = 2.0 * x[i, j] + 1.0


@polyopt.jit
def blur(x, out):
    """The mean of each interior point's 3 x 3 neighbourhood (the border is copied)."""
    n, m = x.shape
    for i in range(n):
        for j in range(m):
            out[i, j] = x[i, j]
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1]
                         + x[i, j] + x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j]
                         + x[i + 1, j + 1]) / 9.0


def per_block(kernel: polyopt.Kernel):  # type: ignore[no-untyped-def]
    """A block function for Dask: the kernel writes a new array shaped like its block."""
    def run(block: np.ndarray) -> np.ndarray:
        out = np.empty_like(block)
        kernel(np.ascontiguousarray(block), out)
        return out
    return run


def blur_numpy(x: np.ndarray) -> np.ndarray:
    out = x.copy()
    out[1:-1, 1:-1] = sum(x[1 + di:x.shape[0] - 1 + di, 1 + dj:x.shape[1] - 1 + dj]
                          for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
    return out


def main() -> None:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    rng = np.random.default_rng(0)
    data = rng.random((400, 300))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        x = da.from_array(data, chunks=(100, 150))
        y = x.map_blocks(per_block(scale_shift), dtype=x.dtype).compute()
        # depth=1: each block sees one row and column of its neighbours; "none" leaves
        # the array's own border alone (the kernel copies it), as on one machine
        z = x.map_overlap(per_block(blur), depth=1, boundary="none",
                          dtype=x.dtype).compute()
    np.testing.assert_allclose(y, 2.0 * data + 1.0)
    np.testing.assert_allclose(z, blur_numpy(data))
    print(f"map_blocks and map_overlap over {x.npartitions} blocks on 2 workers: "
          "same as on one array")


if __name__ == "__main__":
    main()
