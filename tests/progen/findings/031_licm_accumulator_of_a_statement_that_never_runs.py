"""Finding 031 (polyopt, fixed): a register accumulator for a statement that licm never
checked.

Found by ``tests/fuzz_run.py --n 250 --seed 2611`` (program 137, on ef75b57; older than
this stop: 9ce909a gives the same) under every option set but ``cli_py``::

    for i in range(n // 2):
        for j in range(2, n - 1):
            for k in range(n):
                T[j - 2] = 1.0 + T[0]      # S1: T[0] is T[j - 2] when j == 2
                if n < k:
                    T[k] = 0.1             # S2: never runs

CPython gives ``T[0] == 56``; polyopt gave 6.  The loop ``k`` has two statements, so
licm (``_accumulator_among``) looked for one that writes a single element, and found S2:
its domain is empty, so "every pair of its instances writes the same element" held
vacuously.  The C printer saw one statement in the loop (S2 is never printed) and kept
*that* statement's element, ``T[j - 2]``, in a register, so each ``k`` read a stale
``T[0]``.

Fixed twice: licm skips a statement that never runs, and the printer keeps only the
elements of the statements the mark names (``backend_c/accumulators.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A):
    n = A.shape[0]
    T = np.ones((n,), np.float32)
    for i in range((n + 0) // 2):  # noqa: B007 - the fuzzer's program, as found
        for j in range(2, n - 1):
            for k in range(n):
                T[(j - 2)] = 1.0 + T[0]
                if n < k:
                    T[k] = 0.1
    return T


def live_twin(A):
    """The same with a second statement that runs: licm must refuse both."""
    n = A.shape[0]
    T = np.ones((n,), np.float32)
    for j in range(2, n - 1):
        for _k in range(n):
            T[(j - 2)] = 1.0 + T[0]
            T[n - 1] = T[n - 1] + 0.5
    return T


@pytest.mark.parametrize("options", [{}, {"parallel": False, "vectorize": False},
                                     {"strict_fp": True}, {"tile": (4, 4, 4)}])
def test_a_statement_that_never_runs_keeps_no_register(options) -> None:
    a = np.zeros(11)
    f = polyopt.jit(kernel, **options)
    np.testing.assert_array_equal(f(a), kernel(a))
    assert "T_acc" not in f.c_source(a)


def test_the_live_twin_matches_cpython() -> None:
    a = np.zeros(9)
    np.testing.assert_array_equal(polyopt.jit(live_twin)(a), live_twin(a))
