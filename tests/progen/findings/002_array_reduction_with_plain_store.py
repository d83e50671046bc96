"""Finding 002: a loop run in parallel as an array reduction also stores plainly into the
reduced array, and those stores are summed into the result instead of assigned.

Found by the program generator (hypothesis, default options), shrunk to::

    for i in range(m):
        for j in range(n):
            for k in range(n):
                A[0, j, 1] += 0.5     # a reduction into A over i
                A[0, i, 0] = 0.5      # a plain store into A

The `i` loop runs in parallel with a private, zero-initialized copy of `A` per thread,
combined by `A[e] = A[e] + sum of the copies`: `A[0, i, 0]` ends as its old value plus
0.5 instead of 0.5.  A loop is an array reduction of `A` only when every access to `A`
in it is the reduction's update.  Right with `parallel=False` or `strict_fp=True`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np


def reduction_beside_store(A):
    n = A.shape[0]
    m = A.shape[1]
    for i in range(m):
        for j in range(n):
            for _k in range(n):
                A[0, j, 1] += 0.5
                A[0, i, 0] = 0.5


def main() -> None:
    import polyopt

    A = np.random.default_rng(0).uniform(-2.0, 2.0, (3, 3, 3))
    expected, got = A.copy(), A.copy()
    reduction_beside_store(expected)
    polyopt.jit(reduction_beside_store)(got)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_array_reduction_leaves_plain_stores_alone():
    # in a fresh process with a team of 4: with one thread the reduction runs in place
    env = {**os.environ, "OMP_NUM_THREADS": "4", "POLYOPT_PARALLEL_MIN": "0"}
    r = subprocess.run([sys.executable, str(Path(__file__).resolve())], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


if __name__ == "__main__":
    main()
