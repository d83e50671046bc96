"""Finding 026: a ``KeyError`` from the time-tiling legality check.

Found by fuzz run S (seed 35, program 4445) under ``fuse_max``, shrunk to::

    for i in range(n - 1, -1, -1):
        t1 = T[1, i]
        for j in range(n):
            if (m + j) < (j - 1) and m <= n + i:      # m < -1: never, sizes are >= 0
                t3 = C[1, j, 4]
            for k in range(m):
                T[-1, k] = C[k, j, k] - T[4, i]
                C[3, j, k] = T[0, k + 2]

The guarded statement's domain is empty only under the context (sizes >= 0).  isl's
scheduler, which is given the context, kept it in its schedule's domain but in none of
its bands and filters, so the rescheduled nest lost the statement and the legality
check found no time for it.  Statements that never run are now decided against the
context before isl's scheduler sees the nest, and ride along at time 0.
"""

from __future__ import annotations

import copy

import numpy as np

import polyopt


def kernel(A, B, C):
    n = A.shape[0]
    m = A.shape[1]
    T = np.empty((m, n))
    for i in range(n - 1, (-1), -1):
        t1 = T[1, i]  # noqa: F841 - the fuzzer's program, as shrunk
        for j in range(n):
            if ((m + j) < (j - 1)) and (m <= (n + i)):
                t3 = C[1, j, 4]  # noqa: F841
            for k in range(m):
                T[(-1), k] = C[k, j, k] - T[4, i]
                C[3, j, k] = T[0, (k + 2)]


def _args() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(26)
    return (rng.integers(-9, 9, (12, 7, 7)).astype(np.int32),
            rng.integers(-9, 9, 12).astype(np.int64), rng.uniform(-2, 2, (12, 12, 7)))


def test_every_option_set_gives_cpythons_result() -> None:
    want = copy.deepcopy(_args())
    kernel(*want)
    for options in ({"fuse": "max"}, {}, {"fuse": "none"}, {"tile": (4, 4, 4)}):
        got = copy.deepcopy(_args())
        polyopt.jit(kernel, **options)(*got)
        for w, g in zip(want, got, strict=True):
            np.testing.assert_array_equal(g, w)
