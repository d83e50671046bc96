"""Finding 005: the last write of a loop that only overwrites one element, run in parallel.

Found by the program generator (``make fuzz``) under every option set but ``parallel=False``:
``for i: B[2] = A[0, 6, i]`` has no reads, so the loop runs in parallel with ``B`` as a
private array (a copy per thread, the last iteration's copied back).  LICM then kept
``B[2]`` in one register shared by every thread, with no copy back, and ``omp simd`` ran
the lanes on one copy: ``B[2]`` ended with whichever thread wrote last.  Now an
accumulator that lives in a private array is not kept in a register, and a loop with
private arrays is not vectorized.
"""

from __future__ import annotations

import numpy as np

import polyopt


def last_write(A, B):
    p = A.shape[2]
    for i in range(p):
        B[2] = A[0, 6, i]


def test_last_write_of_a_parallel_loop_survives():
    A = np.random.default_rng(0).standard_normal((5, 7, 301))
    expected, got = np.zeros(7), np.zeros(7)
    last_write(A, expected)
    kernel = polyopt.jit(last_write)
    kernel(A, got)
    assert np.array_equal(got, expected)
    assert "B_acc" not in kernel.c_source(A, got)
