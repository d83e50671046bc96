"""Finding 020: rebinding a narrow-int local to a Python int that does not fit.

Found by fuzz run T2 (2afe7f5, seed 37, program 58) under the 11 jit option sets,
shrunk to::

    s1 = B[0]          # B uint8: s1 is np.uint8
    for i in range(n):
        s1 = (-1)      # CPython rebinds s1 to the int -1; nothing converts it

A local has one static type (README): NumPy's promotion of the values assigned to it,
uint8 here.  Storing -1 into it tripped the run-time check of a Python int meeting a
narrower int (6e65877), so the call raised OverflowError where CPython raises nothing,
even though ``s1`` is never read.  Widening the local to int64 would hide the
OverflowError CPython does raise in ``s = -1; s += u8[i]`` (NumPy converts -1 to uint8
there).  Now such a local (a narrow NumPy int also assigned Python ints) holds int64
values, and each read converts the value to its static type, checked as NumPy converts
a Python int: the error is raised where the value meets the narrow type.  The
conversion also keeps ``s += u8[i]`` from being taken for an int64 ``+`` reduction.
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


@pytest.mark.parametrize("fn", [dead_rebinding, returned_rebinding])
def test_rebinding_a_narrow_local_to_a_python_int_runs_as_cpython(fn) -> None:
    want = fn(*ARGS)
    got = polyopt.jit(fn)(*ARGS)
    assert got == want and type(got) is type(want)


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
    empty = np.zeros(0, np.uint8)
    assert polyopt.jit(mixes)(empty) == mixes(empty) == -1  # never meets a uint8


def test_a_wide_local_still_wraps_as_its_numpy_int() -> None:
    """``s`` holds a uint8 (from B) when it accumulates: it wraps at 256 in both, and the
    accumulation is no reduction (the int64 ``+`` of one would not wrap)."""
    def wraps(B):
        s = 0
        s = B[0]
        for i in range(B.shape[0]):
            s += B[i]
        return s

    b = np.arange(200, 256, dtype=np.uint8)
    with np.errstate(over="ignore"):
        want = wraps(b)
    got = polyopt.jit(wraps)(b)
    assert int(got) == int(want)


def test_a_small_python_int_start_keeps_a_narrow_sum_a_reduction() -> None:
    """``s = 0`` fits every narrow int type, so ``s`` stays an int8 local and ``s +=
    a[i]`` a reduction ``prange`` may run in parallel (storing the wide local's value
    through a checked conversion at each read made it none, and the request was
    refused: a hostile user's finding)."""
    def total(a):
        s = 0
        for i in polyopt.prange(a.shape[0]):
            s += a[i]
        return s

    a = np.array([100, 27, 3, -7], dtype=np.int8)
    with np.errstate(over="ignore"):
        want = total(a)
    assert int(polyopt.jit(total)(a)) == int(want)
