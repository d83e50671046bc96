"""Finding 019: the oracle refused the documented type of a returned unsigned choice.

Found by fuzz run T (3bb8ea7, seed 36, program 60), under every option set, shrunk to::

    return 1 if (not (n >= m)) else B[2, 0, 2]      # B uint16

CPython returns the operand chosen, ``np.uint16(9)``; polyopt returns one static type, the
README's Python int for an integer narrower than 64 bits with a Python int, holding the
same value.  polyopt behaved as documented for every narrow integer type; the oracle
accepted that only for the signed ones.  Not a polyopt bug: the oracle and the README's
wording now cover unsigned types, and this test pins both the behaviour and the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from progen.oracle import _compare_return


def kernel(A, B):
    n = A.shape[0]
    m = A.shape[1]
    return 1 if (not (n >= m)) else B[2, 0, 2]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int8, np.int16,
                                   np.int32])
@pytest.mark.parametrize("shape", [(7, 3, 3), (3, 7, 3)])
def test_a_returned_narrow_int_choice_is_the_python_int_of_its_value(dtype, shape) -> None:
    A = np.zeros(shape)
    B = np.full((3, 3, 7), 9, dtype=dtype)
    want = kernel(A, B)
    got = polyopt.jit(kernel)(A, B)
    assert type(got) is int and got == int(want)
    assert _compare_return(want, got, None, 0.0, strict=True) is None


def test_the_oracle_still_refuses_another_type_or_value() -> None:
    assert _compare_return(np.uint16(9), np.int64(9), None, 0.0, strict=True) is not None
    assert _compare_return(np.uint16(9), 8, None, 0.0, strict=True) is not None
    assert _compare_return(np.uint64(9), 9, None, 0.0, strict=True) is not None
