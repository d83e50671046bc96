"""Finding 035 (polyopt, fixed): a local holding ``min(C32[...], 1)`` stored into a uint16
array raised OverflowError where CPython wraps.

Found by ``tests/fuzz_run.py --n 350 --seed 3001`` (program 229, on 4352e1a; older than
this stop) under every jit option set::

    s1 = 0
    for i ...: for j ...:
        s1 = min(C[n - 1 - i, j, i], 1)     # C int32: CPython holds np.int32(-3)
    B[2, 1, 1] = s1                         # B uint16: NumPy wraps -3 to 65533

The README gives a stored choice between a narrow int and a Python int one static type,
a Python int, which holds either operand exactly; the local took that type, and a
Python int out of uint16's range raises, as NumPy raises for one.  But CPython's value
was the np.int32, which NumPy's item assignment wraps.

A local now takes the narrow type from a choice whose Python int operands are constants
0 to 127, as it does from those constants themselves (README, "The constants 0 to 127
keep the narrow type"): the narrow type holds both operands exactly, and a store wraps
what CPython's np.int32 would.  A choice with another Python int (``min(C32[i], 1000)``)
keeps the Python int type, and its store is still checked.

Still open, by the README's rule: the program as found (the shrinker kept the symptom,
not the cause) adds a choice with a non-constant Python int to the local::

    s1 = 0
    ... s1 += min(-C[n - 1 - i, j, i], B[-1, m - 1 - j, 4] if m == n else m)
    B[2, 1, 1] += s1

The choice's static type is a Python int (``m`` is one), so ``s1`` is a Python int and
``B16[...] + s1`` converts it to uint16, raising for a negative ``s1``; CPython's ``s1``
became an np.int32 at its first addition, and NumPy adds in int32 and wraps.  Following
CPython there needs the type each assignment leaves recorded at run time (a flag beside
such a local), which polyopt does not have.  ``tests/fuzz_run.py --n 230 --seed 3001``
still reports program 229 as an error.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A, B, C):
    n = A.shape[0]
    m = A.shape[1]
    s1 = 0
    for i in range(n):
        for j in range(max(0, i - 2), min(m, i + 3)):
            s1 = min(C[(n - 1) - i, j, i], 1)
    B[2, 1, 1] = s1


def clamp(out, img):
    """The image-processing clamp the fix keeps working: values in range either way."""
    for i in range(img.shape[0]):
        v = min(max(img[i], 0), 255)
        out[i] = v


def stored_per_element(B, C):
    for i in range(C.shape[0]):
        s = min(C[i], 1)
        B[i] = s
    return s


def large_constant(B, C):
    """1000 is no constant every narrow type holds: the local stays a Python int."""
    s = 0
    for i in range(C.shape[0]):
        s = min(C[i], 1000)
    B[0] = s


def _inputs():
    rng = np.random.default_rng(35)
    A = rng.uniform(-2, 2, (5, 8))
    B = rng.integers(0, 65535, (4, 8, 5)).astype(np.uint16)
    C = rng.integers(-9, 10, (5, 8, 8)).astype(np.int32)
    C[0, 6, 4] = -3  # the value the last iteration chooses
    return A, B, C


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}, {"parallel": False}])
def test_the_stored_local_wraps_as_numpy_wraps_the_int32(options) -> None:
    want, got = _inputs(), _inputs()
    kernel(*want)
    polyopt.jit(kernel, **options)(*got)
    assert want[1][2, 1, 1] == 65533
    np.testing.assert_array_equal(got[1], want[1])


def test_a_choice_stored_element_by_element_and_returned() -> None:
    C = np.array([-3, 5, -2, 0, -7], np.int32)
    want, got = np.zeros(5, np.uint16), np.zeros(5, np.uint16)
    r_want = stored_per_element(want, C)
    r_got = polyopt.jit(stored_per_element)(got, C)
    np.testing.assert_array_equal(got, want)
    assert r_got == r_want == -7


def test_the_clamp_still_matches() -> None:
    img = np.array([-40, 0, 17, 255, 300, 1000], np.int32)
    want, got = np.zeros(6, np.uint8), np.zeros(6, np.uint8)
    clamp(want, img)
    polyopt.jit(clamp)(got, img)
    np.testing.assert_array_equal(got, want)


def test_a_large_constant_keeps_the_checked_python_int() -> None:
    fine = np.array([5, 7, 3], np.int32)
    want, got = np.zeros(1, np.uint8), np.zeros(1, np.uint8)
    large_constant(want, fine)
    polyopt.jit(large_constant)(got, fine)
    np.testing.assert_array_equal(got, want)
    # CPython stores the Python int 1000 into uint8: NumPy raises, and so does polyopt
    big = np.array([5000], np.int32)
    with pytest.raises(OverflowError):
        large_constant(np.zeros(1, np.uint8), big)
    with pytest.raises(OverflowError):
        polyopt.jit(large_constant)(np.zeros(1, np.uint8), big)
