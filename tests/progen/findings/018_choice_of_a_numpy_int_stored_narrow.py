"""Finding 018: a choice that holds a NumPy int raised where NumPy wraps it.

Found by fuzz run R (seed 34, program 639), under every jit option set::

    B[4] = max(j // 3, 2 - j) if j % 2 == 0 else (q + q) + A[j]    # B uint8, A int32

The choice is typed as a Python int (README: a choice of a Python int and an int32 is a
Python int), and the run-time check of 6e65877 (a Python int stored into a narrower int
must fit) checked both branches; but ``(q + q) + A[j]`` is an ``np.int32``, which NumPy
wraps into uint8 silently.  Its shrunk form showed the same for a float branch (``1.0 if
... else A[j]``: the float conversion's check). A choice converted to an int type now
converts each branch as what it is, and a value that may be a NumPy int of a wider type
(``min(A[j], 5) + 1``) is not checked, since C cannot tell it apart.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyopt


def ints(A, B, q):
    for j in range(A.shape[0]):
        B[j] = max(j // 3, 2 - j) if j % 2 == 0 else (q + q) + A[j]


def float_or_int(A, B, q):
    for j in range(A.shape[0]):
        B[j] = 1.0 if j % 2 == 0 else A[j] + q


def chosen_then_added(A, B, q):
    for j in range(A.shape[0]):
        B[j] = min(A[j], 5) + q


def large_float_or_int(A, B, q):
    for j in range(A.shape[0]):
        B[j] = 300.0 if j % 2 == 0 else A[j]


def large_python_int_or_int(A, B, q):
    for j in range(A.shape[0]):
        B[j] = (j * 100) if j % 2 == 0 else A[j]


@pytest.mark.parametrize("fn", [ints, float_or_int, chosen_then_added, large_float_or_int,
                                large_python_int_or_int])
def test_a_choice_stored_into_a_narrow_int_raises_only_where_numpy_does(fn) -> None:
    A = np.array([0, -3, 6, 300, 9, -7], dtype=np.int32)
    want, got = np.zeros(6, np.uint8), np.zeros(6, np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(A, want, 1)
        except OverflowError:
            with pytest.raises(OverflowError):
                polyopt.jit(fn)(A, got, 1)
            return
    polyopt.jit(fn)(A, got, 1)
    assert got.tolist() == want.tolist()
