"""Finding 022 (the oracle): ``math.ceil`` of a float no int64 holds.

Found by fuzz run S (seed 35, program 2417) under the 11 jit and schedule option sets,
shrunk to::

    for i ...:
        for j ...:
            A[j] = s1 - 1.0
            s1 = A[j] * s2
            s2 = 0.5 + math.log(1.0 + abs(math.ceil(A[j])))

``A[j]`` reaches -2.4e21, and CPython's ``math.ceil`` gives a big int where polyopt's
gives an int64 and raises OverflowError, as the README's integer contract says of a
float no int64 holds.  The reference run applied that contract to ``int()`` only; now
also to ``math.floor``, ``ceil`` and ``trunc``, so such a program is tamed.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

import polyopt
from progen import oracle
from progen.nodes import ArrayArg, Assign, Bin, Call, For, Index, Name, Num, Program, SizeDef


def grows(A):
    n = A.shape[0]
    s1 = 0.0
    s2 = 0.0
    for i in range(n - 1, -1, -1):  # noqa: B007 - the fuzzer's program, as found
        for j in range(n - 2, 0, -1):
            A[j] = s1 - 1.0
            s1 = A[j] * s2
            s2 = 0.5 + math.log(1.0 + abs(math.ceil(A[j])))


ARGS = (np.array([0.258, -1.88, 1.46, 1.07, 1.30, 0.88]),)


def test_polyopt_raises_the_documented_overflow() -> None:
    grows(ARGS[0].copy())  # CPython: a big int, no error
    with pytest.raises(OverflowError):
        polyopt.jit(grows)(ARGS[0].copy())


def test_the_reference_run_keeps_the_int64_contract() -> None:
    with pytest.raises(OverflowError):
        oracle.run_python(grows, (ARGS[0].copy(),))
    # within int64 the reference is CPython's own
    assert oracle.run_python(lambda: math.ceil(2.5) + math.floor(-2.5) + math.trunc(7.9), ()
                             ).ret == 3 - 3 + 7


def test_such_a_program_is_tamed() -> None:
    """A program drawn with such a ceil is tamed (its values kept moderate), not lost."""
    i = Name("i")
    body = (For("i", Num(0), Name("n"), 1, (
        Assign(Index("A", (i,)), "", Bin("*", Call("ceil", (Index("A", (i,)),), "math"),
                                          Num(1e30))),
        Assign(Index("A", (i,)), "", Call("ceil", (Index("A", (i,)),), "math")),
    )),)
    p = Program((ArrayArg("A", "float64", ("n",)),), (), {"n": 4}, (SizeDef("n", "A", 0),),
                (), body)
    prep = oracle.prepare(p, Path(tempfile.mkdtemp()))
    assert prep is not None and prep.program != p  # tamed: math.tanh around each value
    assert all(abs(v) <= 1.0 for v in prep.expected.arrays[0])
