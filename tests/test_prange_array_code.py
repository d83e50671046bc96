"""``prange`` around NumPy array code: rows that read only themselves run in parallel
(the copy array code makes of an overlapping right-hand side is private to an
iteration), and a loop whose rows read the previous row is refused naming that flow
dependence on the user's array.  It named the output dependence on the copy (``tmp3``),
a name the user never wrote."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt import prange


def reverse_rows(A):
    for i in prange(A.shape[0]):
        A[i, :] = A[i, ::-1] * 2


def shift_within_rows(A):
    for i in prange(A.shape[0]):
        A[i, 1:] += A[i, :-1]


def rows_from_rows(A, B):
    for i in prange(A.shape[0]):
        B[i, :] = A[i, :] * 2 + A[i, ::-1]


def add_previous_row(A):
    for i in prange(1, A.shape[0]):
        A[i, :] += A[i - 1, :]


@pytest.mark.parametrize("fn", [reverse_rows, shift_within_rows])
def test_rows_that_read_themselves_run_in_parallel(fn, check, rng) -> None:
    kernel = polyopt.jit(fn)
    A = rng.random((6, 5))
    check(kernel, A)
    assert "#pragma omp parallel" in kernel.c_source(A)


def test_rows_into_another_array(check, rng) -> None:
    check(polyopt.jit(rows_from_rows), rng.random((6, 5)), np.zeros((6, 5)))


def test_a_row_recurrence_is_refused_naming_the_users_array(rng) -> None:
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        polyopt.jit(add_previous_row)(rng.random((4, 5)))
    msg = str(info.value)
    assert "flow (read after write) on A" in msg and "tmp" not in msg, msg
    assert all(d.array == "A" for d in info.value.violated[:1])
