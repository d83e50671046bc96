"""Finding 012: a local assigned a Python float, then a float64, beside float32 arrays.

Found by the long fuzz run H (seed 25, program 32), under ``strict_fp`` only::

    s = 0.0
    for ...:
        t = C32[0, j] * (C32[i, j] - s)
        s = t - np.sqrt(abs(s))

CPython's first ``C32[i, j] - s`` subtracts in float32 (``s`` is still the Python float
0.0, a weak scalar); from then on ``s`` is a float64 and everything computes in float64.
polyopt gives ``s`` one static type in the whole function (README, "one type in the
whole function": NumPy's promotion of 0.0 and a float64, so float64) and computes the
first subtraction in float64 as well.  The first result differs from CPython's by a
float32 rounding, and the recurrence grows it far beyond an ulp.

Not a polyopt bug: the documented rule, which the fuzzer's oracle did not yet know.  The
oracle now compares such programs within the error bound, also under ``strict_fp``
(``oracle.computes_on_weak_then_float64``), as it already did for a local holding a
choice of two types; this test pins the rule itself: polyopt computes as CPython does
when ``s`` is a float64 from the start.
"""

from __future__ import annotations

import numpy as np

import polyopt
from progen import oracle
from progen.nodes import (
    ArrayArg,
    Assign,
    Bin,
    For,
    Index,
    Name,
    Num,
    Program,
    SizeDef,
)


def weak_then_float64(C):
    s = 0.0
    for i in range(C.shape[0]):
        t = C[i, 0] * (C[i, 1] - s)
        s = t - np.sqrt(abs(s))
        C[i, 2] = s


def float64_from_the_start(C):
    s = np.float64(0.0)
    for i in range(C.shape[0]):
        t = C[i, 0] * (C[i, 1] - s)
        s = t - np.sqrt(abs(s))
        C[i, 2] = s


def test_the_local_has_its_one_static_type_from_the_first_statement():
    C = np.random.default_rng(12).uniform(-2.0, 2.0, (40, 3)).astype(np.float32)
    want, got = C.copy(), C.copy()
    float64_from_the_start(want)
    polyopt.jit(weak_then_float64, strict_fp=True)(got)
    assert np.array_equal(got, want)


def test_the_oracle_compares_such_a_program_within_the_error_bound():
    i = Name("i")

    def program(*body):
        loop = For("i", Num(0), Name("n"), 1, tuple(body))
        return Program((ArrayArg("C", "float32", ("n",)), ArrayArg("B", "float64", ("n",))),
                       (), {"n": 8}, (SizeDef("n", "C", 0),), (),
                       (Assign(Name("s"), "", Num(0.0)), loop))

    x32, x64 = Index("C", (i,)), Index("B", (i,))
    retyped = program(  # t = C[i] * (C[i] - s); s = t - B[i]; C[i] = s
        Assign(Name("t"), "", Bin("*", x32, Bin("-", x32, Name("s")))),
        Assign(Name("s"), "", Bin("-", Name("t"), x64)),
        Assign(x32, "", Name("s")))
    accumulated = program(Assign(Name("s"), "+", x32), Assign(x32, "", Bin("*", Name("s"),
                                                                          Num(0.5))))
    assert oracle.computes_on_weak_then_float64(retyped)
    assert not oracle.bit_exact_possible(retyped)
    # s = 0.0; s += C32[i]: a float32 from the first addition on, in CPython as in polyopt
    assert oracle.bit_exact_possible(accumulated)
