"""``len()`` of an array value: ``len(A[0])``, ``len(A.T)``, ``len(x[k:3])``.

It was taken for an elementwise call of ``len`` and refused as "assigns a 1-D value to
one element" (hostile session 44a, 03), also inside a helper (``def f(a): return len(a)``
called with a row).  It is the value's first extent, an int, and never negative: an
empty slice's extent may be (``x[k:3]`` with ``k = 5``).  The view is still checked as
CPython evaluates it: ``len(A[5])`` of a 3-row ``A`` raises ``IndexError``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python

import polyopt


def lengths(A, x, out, k):
    out[0] = len(A[0])
    out[1] = len(A.T)
    out[2] = len(x[k:3])
    out[3] = len(x[::2])
    out[4] = len(A[1:, 2:]) * 10 + len(A[1:, 2:][0])


def row_len(a):
    return len(a)


def through_a_helper(A, out):
    for i in range(A.shape[0]):
        out[i] = row_len(A[i]) + i


def past_the_rows(A, out, i):
    out[0] = len(A[i])


@pytest.mark.parametrize("k", [0, 2, 5])
def test_len_of_array_values(k):
    check_against_python(polyopt.jit(lengths), np.zeros((3, 4)), np.zeros(7), np.zeros(5), k)


def test_len_of_a_row_in_a_helper():
    check_against_python(polyopt.jit(through_a_helper), np.zeros((3, 4)), np.zeros(3))


def test_len_of_a_row_past_the_array_raises_as_cpython_does():
    check_against_python(polyopt.jit(past_the_rows), np.zeros((3, 4)), np.zeros(1), 7)


def len_of_a_number(x):
    return len(x[0])


def test_len_of_a_number_is_refused_as_cpython_raises():
    """CPython raises TypeError; the refusal said "unknown function" (hostile session 46)."""
    with pytest.raises(polyopt.UnsupportedError, match="a scalar has no len"):
        polyopt.jit(len_of_a_number)(np.zeros(3))
