"""Finding 029 (polyopt, fixed): a narrow-int local holding a Python int raises at a read
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

Fixed: the read of a held-wide local is checked only where it meets the narrow type;
where it is used in int64 or a float (a ``min``/``max`` choice, a comparison, float
arithmetic, ``float(s)``) it is taken as it is held
(``FunctionScope.held_as_is``).
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


def test_the_held_python_int_is_read_as_it_is() -> None:
    a = np.array([65527], dtype=np.uint16)
    assert kernel(a, 3) == -2
    assert polyopt.jit(kernel)(a, 3) == -2


def wider_uses(A, B, q):
    s = A[0]
    for i in range(3):
        # a comparison is exact, a float product and float(max(...)) convert nothing
        B[i] = s * 0.5 if s < q else float(max(s, q)) + 1.0
        s = min(s, 1 - q)       # holds -2 from the first iteration on
    return s


@pytest.mark.parametrize("q", [3, -70000, 70000])
def test_comparisons_floats_and_choices_take_the_held_int(q: int) -> None:
    a = np.array([65527], dtype=np.uint16)
    want_b, got_b = np.zeros(3), np.zeros(3)
    want = wider_uses(a, want_b, q)
    got = polyopt.jit(wider_uses)(a, got_b, q)
    assert got == want
    np.testing.assert_array_equal(got_b, want_b)


def narrow_use(A, C, q):
    s = A[0]
    s = min(s, 1 - q)
    C[0] = s + C[1]             # -2 meets uint8: NumPy raises
    return s


def test_the_held_python_int_still_raises_where_it_meets_the_narrow_type() -> None:
    a = np.array([65527], dtype=np.uint16)
    c = np.array([0, 1], dtype=np.uint8)
    with pytest.raises(OverflowError):
        narrow_use(a, c.copy(), 3)
    with pytest.raises(OverflowError):
        polyopt.jit(narrow_use)(a, c.copy(), 3)
