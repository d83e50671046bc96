"""Finding 037 (polyopt, fixed): a local that holds a Python int from ``s += m`` and a
uint8 only in a branch was compiled as a uint8: a wrong value, or a false
``OverflowError``.

Found by fuzz run 3803 (seed 3803, program 52, on ae5b438) under all 12 option sets:
``s1 = 0; s1 += int(A[i])`` in a loop, ``s1 = C[...]`` (uint8) in a branch that never
runs.  CPython keeps a Python int; polyopt raised ``OverflowError`` where ``int(A[i])``
was negative.  Shrunk by hand, a silent wrong value::

    s1 = 0
    for i in range(n):
        s1 += m             # m = 200, n = 3: CPython 600, polyopt 88 (uint8 wrapped)
        if i > n:
            s1 = C[i]       # uint8, never runs

The frontend's type passes meant to treat ``s1`` as a narrow local that also holds
Python ints (``python_held.py``). The first pass saw ``s1 + m`` as a Python int.
The next pass typed ``s1`` uint8, read ``s1 + m`` as a uint8 and dropped ``s1`` from the
locals assigned Python ints. The pass after that compiled a plain uint8.

Fixed: a local once seen assigned a Python int stays one across the passes
(``frontends/python.py``). ``s1 + m`` is then refused, naming the local and the fix, as
any use whose type depends on the path taken.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(C, m):
    n = C.shape[0]
    s1 = 0
    for i in range(n):
        s1 += m
        if i > n:
            s1 = C[i]
    return s1


def from_floats(A, C):
    n = A.shape[0]
    s1 = 0
    for i in range(n):
        s1 += int(A[i])
        if i > n:
            s1 = C[i]
    return s1


@pytest.mark.parametrize("fn, first", [(kernel, 200), (from_floats, np.array([-1.5, 0.5, 1.6]))])
def test_a_python_int_local_that_a_branch_may_make_narrow_is_refused(fn, first) -> None:
    c = np.array([1, 2, 3], np.uint8)
    args = (c, first) if fn is kernel else (first, c)
    with pytest.raises(polyopt.UnsupportedError, match="`s1` holding a NumPy uint8 or a Python int"):
        polyopt.jit(fn)(*args)


def accumulate(C):
    s = 0
    for i in range(C.shape[0]):
        s += C[i]           # a uint8 from the first iteration on: NumPy's arithmetic
    return s


def test_an_accumulator_started_at_zero_keeps_the_narrow_type() -> None:
    c = np.array([200, 100, 3], np.uint8)
    want = accumulate(c)
    got = polyopt.jit(accumulate)(c)
    assert got == want and type(got) is type(want)
