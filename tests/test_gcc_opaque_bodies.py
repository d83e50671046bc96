"""gcc 12.2 deleted the calls to an outlined loop body (hostile session 43a, findings 04
and 05): its late pure-const analysis took the body, whose stores ivopts had rewritten
through an IV of another base, for one without side effects, at -O1 and above.  A
plain nest wrote nothing, and an array statement read a temporary nobody filled.
Outlined bodies are now opaque to their callers (``noipa``)."""

from __future__ import annotations

import numpy as np

import polyopt


def two_reversed_reads(A, T):
    n = A.shape[1]
    for i in range(5):
        for j in range(4):
            T[i, j] = A[i, n - 2 * j - 1] + A[i, 6 - j]


def reversed_operands(A):
    A[1:, 2:6] = A[0:5, ::-2] + A[0:5, 6:2:-1]


def test_a_nest_of_two_reversed_reads_writes_its_results() -> None:
    A = np.arange(42.0).reshape(6, 7)
    want, got = np.full((5, 4), -1.0), np.full((5, 4), -1.0)
    two_reversed_reads(A, want)
    polyopt.jit(two_reversed_reads)(A, got)
    np.testing.assert_array_equal(got, want)


def test_an_array_statement_reads_the_temporary_it_filled() -> None:
    want = np.arange(42.0).reshape(6, 7)
    got = want.copy()
    kernel = polyopt.jit(reversed_operands)
    for _ in range(2):  # the second call's temporary held the first call's data
        reversed_operands(want)
        kernel(got)
        np.testing.assert_array_equal(got, want)


def test_outlined_bodies_are_opaque_to_their_callers() -> None:
    A = np.arange(42.0).reshape(6, 7)
    c = polyopt.jit(two_reversed_reads).c_source(A, np.zeros((5, 4)))
    assert "__attribute__((noipa))\n#else\n__attribute__((noinline))" in c
