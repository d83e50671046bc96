"""Finding 007: two reductions into one array with different operators, run in parallel.

Found by the program generator (``make fuzz``, option sets ``schedule1``/``schedule2``
and ``auto=False`` on two threads): in ::

    for i in range(0, n, 3):
        for j in range(i, n):
            A[j, 0] -= 3.0          # a + reduction, carried by i
        A[i, 1] *= c                # a * reduction, on elements the first never touches

loop ``i`` ran in parallel as an array ``+`` reduction on ``A``: each thread's copy of
``A`` started at 0, so the ``*=`` multiplied 0 and the product was lost.  The check that
every access to a reduced array is the reduction's own update accepted the ``*=``
because it is *a* reduction; it must be one with the same operator.
"""

from __future__ import annotations

import numpy as np

import polyopt


def mixed_operators(A, c):
    n = A.shape[0]
    for i in range(0, n, 3):
        for j in range(i, n):
            A[j, 0] -= 3.0
        A[i, 1] *= c


def test_a_product_beside_a_sum_on_one_array_is_not_a_parallel_sum():
    A = np.random.default_rng(0).standard_normal((8, 8))
    expected, got = A.copy(), A.copy()
    mixed_operators(expected, 0.5)
    kernel = polyopt.jit(mixed_operators, auto=False)
    kernel(got, 0.5)
    assert np.array_equal(got, expected)
    assert "polyopt_pool_A" not in kernel.c_source(got, 0.5)
