"""Finding 038 (hostile session 41a, findings 06 and 07; polyopt, fixed): a local
assigned a Python scalar, and NumPy values of two types depending on the path, was
compiled in one type: a silent wrong value.

    s = 1
    for i in range(4):
        if i == 2:
            s -= B[i]       # int64
        else:
            s -= A[i]       # uint8 while s still holds the Python int 1

CPython computes ``1 - A[0]`` in uint8 (and wraps), then in int64 from ``i == 2`` on:
241.  polyopt typed ``s`` int64 from the branch it read first, so ``s - A[i]`` was an
int64 too: -15.  The refusal of two NumPy types caught two assignments in a row, not
two branches.  The float form (``s = 0.1``, ``s -= C64[i]`` in a branch that never
runs, ``s += B32[i]``) summed in float64 where CPython sums in float32.

Fixed: each assignment is converted again with such locals typed as their Python
scalars (``frontends/python.py``, ``_path_types``); a second NumPy type there is
refused as two assignments in a row are.  A local that takes one NumPy type on every
path (``s = 0; s += B64[i]``) is not.  Only int locals are checked: a float local
computed in float64 where CPython's is a float32 on some path (the float form above)
is as precise or more, as the README documents for choices; the fuzzer's programs mix
such floats all the time.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def int_branches(A, B):
    s = 1
    for i in range(4):
        if i == 2:
            s -= B[i]
        else:
            s -= A[i]
    return s


def test_an_int_local_of_two_numpy_types_on_two_paths_is_refused() -> None:
    A, B = np.array([3, 4, 5, 6], np.uint8), np.array([1, 2, 3, 4])
    assert int_branches(A, B) == 241  # CPython: uint8 first (wrapped), then int64
    with pytest.raises(polyopt.UnsupportedError, match="`s` holding a uint8 here and a int64"):
        polyopt.jit(int_branches)(A, B)


def int_one_type_on_every_path(A, B):
    s = 0
    for i in range(A.shape[0]):
        if i % 2 == 0:
            s += B[i]
        else:
            s -= B[i] * 2
        s = s % 1000
    return s


def test_an_int_local_of_one_numpy_type_on_every_path_is_compiled() -> None:
    A, B = np.zeros(7), np.arange(7) * 300
    assert polyopt.jit(int_one_type_on_every_path)(A, B) == int_one_type_on_every_path(A, B)


def max_of_uint64_and_a_negative_int(a, c):
    for i in range(a.shape[0]):
        c[i] = max(a[i], -100)


def test_max_of_a_uint64_and_a_negative_python_int_is_refused() -> None:
    """Hostile session 41a, finding 01: CPython compares them by value and returns
    ``a[i]``; polyopt converted -100 to uint64 (a wrong maximum), then raised
    OverflowError on every call.  ``max`` compares as ``<`` does, which the README
    refuses for a uint64 and a Python int that may be negative."""
    a = np.array([0, 5, 2**63], dtype=np.uint64)
    with pytest.raises(polyopt.UnsupportedError, match="comparison of a uint64 with a Python int"):
        polyopt.jit(max_of_uint64_and_a_negative_int)(a, np.zeros(3, np.uint64))
