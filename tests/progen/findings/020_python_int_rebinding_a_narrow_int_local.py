"""Finding 020 (open): rebinding a narrow-int local to a Python int that does not fit.

Found by fuzz run T2 (2afe7f5, seed 37, program 58) under the 11 jit option sets,
shrunk to::

    s1 = B[0]          # B uint8: s1 is np.uint8
    for i in range(n):
        s1 = (-1)      # CPython rebinds s1 to the int -1; nothing converts it

A local has one static type (README): NumPy's promotion of the values assigned to it,
uint8 here.  Storing -1 into it trips the run-time check of a Python int meeting a
narrower int (6e65877), so the call raises OverflowError where CPython raises nothing,
even though ``s1`` is never read.  Widening the local to int64 whenever a constant does
not fit would fix this program but hide the OverflowError CPython does raise in
``s = -1; s += u8[i]`` (NumPy converts -1 to uint8 there).  What would fix both: raise
where CPython combines the value with a narrow int, not where it is stored in the
local, i.e. keep a local's Python-int values in int64 and check at each use that
meets a narrow type.  Strict xfails until then.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def dead_rebinding(A, B):
    n = A.shape[0]
    s1 = B[0]
    for i in range(n):  # noqa: B007 - the fuzzer's program, as found
        s1 = (-1)  # noqa: F841


def returned_rebinding(A, B):
    n = A.shape[0]
    s1 = B[0]
    for i in range(n):
        s1 = -1 - i
    return s1


ARGS = (np.array([5, -4, 3, -9], dtype=np.int16), np.array([2, 7, 9, 249], dtype=np.uint8))


@pytest.mark.xfail(strict=True, raises=OverflowError,
                   reason="finding 020: the store into the uint8 local is checked")
@pytest.mark.parametrize("fn", [dead_rebinding, returned_rebinding])
def test_rebinding_a_narrow_local_to_a_python_int_runs_as_cpython(fn) -> None:
    want = fn(*ARGS)
    got = polyopt.jit(fn)(*ARGS)
    assert got == want


def test_cpython_raises_where_the_value_meets_the_narrow_int() -> None:
    """The case a plain widening would get wrong: NumPy converts -1 to uint8 and raises."""
    def mixes(B):
        s = -1
        for i in range(B.shape[0]):
            s += B[i]
        return s

    with pytest.raises(OverflowError):
        mixes(ARGS[1])
    with pytest.raises(OverflowError):
        polyopt.jit(mixes)(ARGS[1])
