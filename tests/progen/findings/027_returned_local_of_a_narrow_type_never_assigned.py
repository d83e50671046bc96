"""Finding 027 (the oracle): a returned local whose narrow-int assignment never ran.

Found by fuzz run S (seed 35, program 4529) under every jit and schedule option set::

    s1 = 0
    for i in range(1, n - 2):            # no iteration for n = 3
        for j in range(i + 1):
            for k in range(j, -1, -1):
                s1 = A[i + 2]            # A uint16
    return s1

CPython returns the Python int ``0``; polyopt gives the local one static type, NumPy's
promotion of the values assigned to it (README), ``np.uint16(0)``: the same value.  The
oracle accepted that type difference between an int and a float, not between two
integer kinds.
"""

from __future__ import annotations

import math

import numpy as np

import polyopt
from progen import oracle


def kernel(A):
    n = A.shape[0]
    s1 = 0
    for i in range(1, n - 2):
        for j in range(i + 1):
            for k in range(j, -1, -1):  # noqa: B007 - the fuzzer's program, as shrunk
                s1 = A[i + 2]
    return s1


def test_polyopt_returns_the_locals_static_type_with_cpythons_value() -> None:
    a = np.array([0, 65533, 7], dtype=np.uint16)
    want, got = kernel(a), polyopt.jit(kernel)(a)
    assert type(want) is int and want == 0
    assert isinstance(got, np.uint16) and int(got) == 0


def test_the_oracle_accepts_the_documented_type_and_nothing_else() -> None:
    compare = oracle._compare_return
    assert compare(0, np.uint16(0), None, math.inf, True, reassigned=True) is None
    assert compare(0, np.uint16(1), None, math.inf, True, reassigned=True) is not None
    assert compare(0, np.uint16(0), None, math.inf, True, reassigned=False) is not None
    assert compare(0, np.float32(0.5), None, math.inf, True, reassigned=True) is not None
