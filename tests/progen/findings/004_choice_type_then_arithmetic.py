"""Finding 004: a choice between a float32 and a Python float, used in more arithmetic.

Found by the program generator (``make fuzz``), under every option set: CPython's
``a if c else b``, ``max`` and ``min`` return the chosen operand with its own type, so
``1.5 + (0.1 if c else C[i])`` is a float32 addition when ``C[i]`` (float32) is chosen
and a float64 one otherwise.  polyopt gives the choice one static type (the README's weak
float64, which holds either value exactly) and adds in float64: stored into a float64
array, the result differs from CPython's at float32's precision.

Fixed by hoisting such a choice out of the arithmetic around it, to the point where its
value is stored, converted or compared (``c ? 1.5 + 0.1 : 1.5f + C[i]``), so that each
branch computes in the type CPython would (``frontends/python_choices.py``); more than
three such choices in one statement are refused (``tests/test_choice_types.py``).
"""

from __future__ import annotations

import numpy as np

import polyopt


def choice_then_add(A, C):
    for i in range(A.shape[0]):
        A[i] = 1.5 + (0.1 if i < 0 else C[i])


def test_choice_of_float32_then_arithmetic_follows_cpython():
    C = np.random.default_rng(0).uniform(-2.0, 2.0, 64).astype(np.float32)
    expected, got = np.zeros(64), np.zeros(64)
    choice_then_add(expected, C)
    polyopt.jit(choice_then_add, strict_fp=True)(got, C)
    assert np.array_equal(got, expected)
