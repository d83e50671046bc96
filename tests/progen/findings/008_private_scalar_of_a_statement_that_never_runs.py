"""Finding 008: an outlined parallel body whose inner loop names a private scalar that no
printed statement uses.

Found by the program generator (``make fuzz``, user schedules that parallelize a loop):
in ::

    for i in range(n):             # parallelized: its body becomes a helper function
        for j in range(n):         # omp simd private(t)
            if n + j < j:          # never true: the statement is not printed
                t = A[i, j] * 2.0  # noqa: F841 - the statement under test
            B[i, j] = A[i, j] + 1.0

the helper declared the locals its printed statements mention, but the inner loop's
``private(t)`` names ``t`` too: gcc refused the generated C (``'t' undeclared``).  A
scalar a pragma clause names now counts as used by the body.
"""

from __future__ import annotations

import numpy as np

import polyopt


def never_runs(A, B):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            if n + j < j:
                t = A[i, j] * 2.0  # noqa: F841 - the statement under test
            B[i, j] = A[i, j] + 1.0


def test_a_parallel_body_declares_the_private_scalar_its_pragma_names():
    A = np.random.default_rng(0).standard_normal((6, 6))
    expected, got = np.zeros((6, 6)), np.zeros((6, 6))
    never_runs(A, expected)
    kernel = polyopt.schedule(never_runs).parallelize("i").compile()
    kernel(A, got)
    assert np.array_equal(got, expected)
    assert "never_runs_body0" in kernel.c_source(A, got)  # the body is outlined
