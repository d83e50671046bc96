"""Finding 014 (the oracle): a C region's allocated temporary was compared without its
error bound.

Found by fuzz run L (seed 27, programs 22 and 31), under ``c_region`` only::

    T = np.zeros((n, n))
    for i ...: for j ...: for k ...:
        T[j, k] -= tanh(T[n - 1 - j, n - 1 - k] if i % 2 == 0 else sin(0.1))

The C harness passes ``T`` to the region as an argument, so ``T`` is an output compared
with the ``-O0`` build; the shadow run gave error bounds only to the function's arguments
and its result, so ``T`` was compared relative to its own value (6.5e-4), although its
elements are sums of terms near 0.1 that cancel: one ulp of those terms (libm's ``sin``,
folded by gcc at ``-O0``, called in the optimized build) was a "wrong" result.  The
shadow run now records its allocations, and each gets its bound
(``Prepared.alloc_errors``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from progen import oracle
from progen.nodes import Alloc, ArrayArg, Assign, Bin, For, Index, Name, Num, Program, SizeDef


def test_an_allocated_temporary_gets_the_bound_of_its_terms():
    i = Name("i")
    t, a = Index("T", (i,)), Index("A", (i,))
    body = (For("i", Num(0), Name("n"), 1, (
        Assign(t, "", Bin("-", Bin("+", a, Num(1.0)), Num(1.0))),
        Assign(a, "", Bin("*", t, Num(2.0))),
    )),)
    p = Program((ArrayArg("A", "float64", ("n",)),), (), {"n": 8}, (SizeDef("n", "A", 0),),
                (Alloc("T", "float64", ("n",), "zeros"),), body)
    prep = oracle.prepare(p, Path(tempfile.mkdtemp()))
    assert prep is not None
    bound, values = prep.alloc_errors["T"], prep.args[0]
    # (A + 1) - 1 cancels: the bound counts the terms (1 and A + 1), not only the result
    assert all(b >= 1.0 + abs(v) for b, v in zip(bound, values, strict=True))
