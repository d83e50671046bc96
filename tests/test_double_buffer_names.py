"""A double buffer's second copy is named as the source names it, with a prime.

``A, B = B, A`` unrolls its loop by two (frontends/python_swap.py); the copies'
loops were labelled by their ids (``L1``, ``L2``), ``"i"`` named no loop and
``"i@line"`` named both, and the second copy's statement showed the first copy's
text (hostile session 37, finding 04)."""

from __future__ import annotations

import numpy as np

import polyopt
from polyopt import prange


def jacobi(A, B, T):
    n = A.shape[0]
    for _t in range(T):
        for i in range(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) // 3
        A, B = B, A


def jacobi_prange(A, B, T):
    n = A.shape[0]
    for _t in range(T):
        for i in prange(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) // 3
        A, B = B, A


def _args() -> tuple[np.ndarray, np.ndarray, int]:
    return np.arange(30) * 7 % 11, np.arange(30) % 5, 5


def _python(fn, args):
    A, B, T = (a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn(A, B, T)
    return A, B


def test_the_copies_loops_are_i_and_i_prime() -> None:
    kernel = polyopt.jit(jacobi)
    assert [lp.label for lp in kernel.dependences(*_args()).loops] == ["_t", "i", "i'"]
    assert polyopt.schedule(kernel).loops() == ["_t", "i", "i'"]


def test_each_copy_is_named_alone_and_runs_as_cpython() -> None:
    line = jacobi.__code__.co_firstlineno + 3  # `for i in ...`
    for name in ("i", f"i@{line}", "i'", f"i'@{line}"):
        fast = polyopt.schedule(polyopt.jit(jacobi)).parallelize(name).compile()
        A, B, T = _args()
        fast(A, B, T)
        want = _python(jacobi, _args())
        np.testing.assert_array_equal(A, want[0])
        np.testing.assert_array_equal(B, want[1])


def test_the_second_copys_statement_shows_its_own_names() -> None:
    deps = polyopt.jit(jacobi).dependences(*_args())
    texts = sorted(s.source for s in deps.statements)
    assert texts == ["A[i] = (B[i - 1] + B[i] + B[i + 1]) // 3",
                     "B[i] = (A[i - 1] + A[i] + A[i + 1]) // 3"]


def test_a_prange_in_a_double_buffer_runs_both_copies_in_parallel() -> None:
    kernel = polyopt.jit(jacobi_prange)
    A, B, T = _args()
    kernel(A, B, T)
    want = _python(jacobi_prange, _args())
    np.testing.assert_array_equal(A, want[0])
    np.testing.assert_array_equal(B, want[1])
    assert kernel.c_source(*_args()).count("omp parallel for") + \
        kernel.c_source(*_args()).count("omp for") >= 2
