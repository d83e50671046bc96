"""Finding 003: a scalar whose last value outlives a parallel loop is passed by value into
the loop's outlined body, and the function returns the value it had before the loop.

Found by the program generator (`fuse="max"`, and two random user schedules), shrunk to
the kernel below.  With `fuse="max"` the `i` and `j` loops run as one parallel loop over
tiles; `s2` is an argument of `polyopt_kernel_body0` (by value), so the
`return s2` sees an uninitialized float (0.0 here).  Right with `parallel=False`.  It may
share its root cause with issue 13's "scalar total lost in a parallel time-tiled nest",
but no time tiling is involved: a loop that writes a live-out scalar is parallel only if
the last iteration's value is copied out (or it must stay sequential).
"""

from __future__ import annotations

import numpy as np

import polyopt


def last_value(A, C, q):
    n = len(A)
    m = A.shape[1]
    for i in range(m):
        for j in range(max(0, i - 1), min(m, i + 2)):
            for k in range(min(n, q)):
                if i == 0:
                    s2 = A[j, m - 1 - k]
            t5 = C[2, i]  # noqa: F841 - a second statement, so fusion has work to do
    return s2


def test_last_value_of_a_scalar_written_in_a_parallel_loop():
    A = np.random.default_rng(0).uniform(-2.0, 2.0, (11, 3)).astype(np.float32)
    C = np.random.default_rng(1).uniform(-2.0, 2.0, (11, 3))
    kernel = polyopt.jit(last_value, fuse="max")
    assert kernel(A, C, 3) == last_value(A, C, 3)
    assert "parallel for" in kernel.c_source(A, C, 3)  # the loop that writes s2 runs in parallel
