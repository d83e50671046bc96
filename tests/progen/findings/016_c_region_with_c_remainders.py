"""Finding 016 (the harness): the C region of a program computed C's ``%``, not Python's.

Found by fuzz run P (seed 30, program 483), under ``c_region`` only::

    T[i] = ... if A[n - 1 - i] < 0.37 else (T[i] if n != 2 else alpha) % 2.5
    t5 = int(alpha) % (-3)

The C file wrote ``fmod`` (the sign of the dividend) and C's ``%`` and ``/`` (truncating),
so its ``T`` grew to 1.5e10 where the Python program's stayed near 200.  The C region is
checked against the same file at ``-O0``, so the verdict still compared like with like,
but with the Python program's error bounds, which did not hold for those values: two
builds 136 ulps apart were "wrong".  The C file now writes Python's ``%`` and ``//``
(macros) where C's differ.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from progen import frontends, oracle, render_c
from progen.nodes import ArrayArg, Assign, Bin, Call, For, Index, Name, Num, Program, SizeDef


def test_the_c_region_computes_pythons_remainders_and_quotients() -> None:
    i = Name("i")
    a, b = Index("A", (i,)), Index("B", (i,))
    body = (For("i", Num(0), Name("n"), 1, (
        Assign(a, "", Bin("%", a, Num(2.5))),
        Assign(b, "", Bin("+", Bin("%", Call("int", (a,)), Num(-3)),
                          Bin("//", Bin("-", b, Num(7)), Num(5)))),
        Assign(b, "%", Num(4)),
    )),)
    p = Program((ArrayArg("A", "float64", ("n",)), ArrayArg("B", "int64", ("n",))), (),
                {"n": 8}, (SizeDef("n", "A", 0),), (), body)
    work = Path(tempfile.mkdtemp())
    prep = oracle.prepare(p, work)
    assert prep is not None
    src, exe = work / "region.c", work / "region"
    src.write_text(render_c.c_file(p))
    assert frontends._compile(src, exe, ["-O0"]).returncode == 0
    arrays, _ = frontends._parse(frontends._run(exe).stdout)
    want_a, want_b = prep.expected.arrays
    assert np.array_equal(arrays["A"], want_a)
    assert np.array_equal(arrays["B"], want_b)
    assert (prep.args[0] < 0).any() and (prep.args[1] < 7).any()  # signs where C differs
