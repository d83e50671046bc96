"""Finding 033 (polyopt, OPEN): a float32 local that also holds a Python float.

Found by ``tests/fuzz_run.py --n 300 --seed 2901`` (program 139, on 5b89c82; older than
this stop: d34e697 gives the same) under every option set::

    s1 = T[0, 0]                 # np.float32
    for i in range(1, n):
        for j in range(1, m - 1):
            s1 = max(s1, 0.1)    # CPython: the Python float 0.1, unconverted
    A[0, 2] = s1                 # A float64: CPython stores 0.1
    return s1                    # CPython: the Python float 0.1

polyopt keeps ``s1`` as a float32: ``A[0, 2]`` becomes 0.10000000149011612 and the
return value an ``np.float32``.  Which type such a local holds depends on the path the
program took: the float analogue of finding 029's narrow ints, which
``frontends/python_held.py`` solves by storing the local wide and checking each use.
The same is needed here (a float32 local that is assigned Python floats held as a
double, its reads converted to float32 where NumPy converts a Python float, and kept
where CPython keeps it: stores into float64 arrays, float64 arithmetic, ``return``).

Refusing every assignment of a Python float that float32 would round was tried
and not kept: the fuzzer's own programs write ``s = max(s, math.tanh(...))`` on
float32 data (``tests/test_fuzz_programs.py``, seed 9), which that refusal turned away.
The generator would have to learn the refusal first.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A):
    n = A.shape[0]
    m = A.shape[1]
    T = np.zeros((n, m), np.float32)
    s1 = T[0, 0]
    for _i in range(1, n):
        for _j in range(1, m - 1):
            s1 = max(s1, 0.1)
    A[0, 2] = s1
    return s1


@pytest.mark.xfail(strict=True, reason="finding 033 is open: float32 locals are not held wide")
def test_python_float_kept_as_cpython_keeps_it() -> None:
    mine, theirs = np.zeros((4, 9)), np.zeros((4, 9))
    got = polyopt.jit(kernel, strict_fp=True)(mine)
    expected = kernel(theirs)
    assert np.array_equal(mine, theirs)
    assert type(got) is type(expected) and got == expected
