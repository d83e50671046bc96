"""Finding 029 (polyopt, open): a narrow-int local holding a Python int raises at a read
that meets no narrow type.

Found by fuzz run Z (seed 77, program 43, on 992d9a4) under 11 option sets, and the
same on 0552e49; shrunk by hand to::

    s = A[0]                    # A uint16: s's static type is uint16
    for i in range(2):
        s = min(s, 1 - q)       # q = 3: the first iteration stores the Python int -2

CPython returns ``-2``: the first ``min`` compares ``np.uint16(65527)`` with ``-2``
(NumPy 2 compares an out-of-range Python int without converting it) and returns the
Python int; the second is ``min(-2, -2)``, no NumPy type at all.  The README says such
a local "holds them as they are" and raises only where the int meets the narrow type
(``s + u8[i]``).  polyopt raises ``OverflowError`` at the second iteration's read of
``s``, though ``min`` with a Python int converts nothing.  One assignment (no loop)
gives ``-2`` as it should.

Open: the read check of a narrow local (the flag set where its held int does not fit)
has to follow the use, not the read: a ``min``/``max`` or comparison with a Python int
keeps the value as it is.  Strict xfail until fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A, q):
    s = A[0]
    for _ in range(2):
        s = min(s, 1 - q)
    return s


def once(A, q):
    s = A[0]
    s = min(s, 1 - q)
    return s


def test_one_choice_of_a_narrow_int_and_a_python_int_is_the_python_int() -> None:
    a = np.array([65527], dtype=np.uint16)
    assert once(a, 3) == polyopt.jit(once)(a, 3) == -2


@pytest.mark.xfail(strict=True, raises=OverflowError,
                   reason="finding 029: the narrow local's read check raises for min(s, -2)")
def test_the_held_python_int_is_read_as_it_is() -> None:
    a = np.array([65527], dtype=np.uint16)
    assert kernel(a, 3) == -2
    assert polyopt.jit(kernel)(a, 3) == -2
