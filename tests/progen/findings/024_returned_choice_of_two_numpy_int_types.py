"""Finding 024 (the oracle): a returned choice between two NumPy int types.

Found by fuzz run S (seed 35, program 3476) under the 11 jit and schedule option sets::

    return B[2, 0, 2] if (m + m) >= p else A[1]      # B int8, A int64

CPython returns the chosen operand with its own type, ``np.int8(2)``; polyopt gives a
returned choice one static type, NumPy's promotion of its operands (README: "other
mixes take NumPy's promotion"), an int64 holding the same value.  The oracle accepted
that for a local assigned several types, not for a choice returned directly.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import polyopt
from progen import oracle
from progen.nodes import ArrayArg, Cmp, IfExp, Index, Name, Num, Program, SizeDef


def kernel(A, B):
    n = A.shape[0]
    return B[2] if n >= 3 else A[1]


def test_polyopt_returns_the_promoted_type_with_the_chosen_value() -> None:
    a, b = np.arange(5, dtype=np.int64), np.array([7, 8, 9, 10], dtype=np.int8)
    want, got = kernel(a, b), polyopt.jit(kernel)(a, b)
    assert isinstance(want, np.int8) and int(got) == int(want) == 9
    assert np.asarray(got).dtype == np.int64


def test_the_oracle_accepts_the_documented_type_and_nothing_else() -> None:
    choice = IfExp(Cmp(">=", Name("n"), Num(3)), Index("B", (Num(2),)), Index("A", (Num(1),)))
    p = Program((ArrayArg("A", "int64", ("n",)), ArrayArg("B", "int8", ("m",))), (),
                {"n": 5, "m": 4}, (SizeDef("n", "A", 0), SizeDef("m", "B", 0)), (), (),
                ret=choice)
    assert oracle.returns_mixed_choice(p)
    prep = oracle.prepare(p, Path(tempfile.mkdtemp()))
    assert prep is not None
    e = prep.expected.ret
    same = oracle.Outcome(prep.expected.arrays, np.int64(int(e)))
    assert oracle.compare(prep, same, strict=True) is None
    other = oracle.Outcome(prep.expected.arrays, np.int64(int(e) + 1))
    assert oracle.compare(prep, other, strict=True) is not None
    floats = oracle.Outcome(prep.expected.arrays, np.float64(int(e)))
    assert oracle.compare(prep, floats, strict=True) is not None
