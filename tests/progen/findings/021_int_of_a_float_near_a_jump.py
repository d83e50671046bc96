"""Finding 021 (the oracle): ``int()`` of a float that rounding may move across an integer.

Found by fuzz run S (seed 35, program 2225) under every option set but ``strict_fp``::

    for i ...:
        for j in range(n):
            A[j] = math.atan(alpha) + A[j] * A[j]      # float32, squared over and over
    ...
                A[n - 1 - k] /= 1.5 + abs(math.sin(A[k] / ...))
                B[i, k + k, j] = (B[i, k + k, j + 1] * 3 + (k - C[k]) - int(A[k])) % 17

The float32 ``A`` is chaotic: contraction and vector math move it by up to 2,821 on
values near 27,000, within the bound the shadow run gives it, and ``strict_fp`` is
bit-exact.  But ``int(A[k])`` then differs, and the shadow's ``int()`` dropped the bound,
so the oracle wanted the int64 ``B`` exact.  Now an int taken (or stored) of a value
whose bound reaches an integer (but 0, where truncation is continuous) leaves every
result of the run unbounded, and the matrix compiles such a program with ``strict_fp``
under every option set of the jit and of user schedules, to compare it bit for bit.
Values exact in every order (``i * 0.5``, sums of small constants) keep their ints exact.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from progen import matrix, oracle, shadow
from progen.nodes import ArrayArg, Assign, Bin, Call, For, Index, Name, Num, Program, SizeDef


def _program(value) -> Program:
    i, s = Name("i"), Name("s")
    body = (
        Assign(s, "", Num(0.0)),
        For("i", Num(0), Name("n"), 1, (
            Assign(Index("B", (i,)), "", Call("int", (value,))),
            For("k", Num(0), Num(8), 1, (Assign(s, "+", Num(0.05)),)),
        )),
    )
    return Program((ArrayArg("B", "int64", ("n",)),), (), {"n": 8},
                   (SizeDef("n", "B", 0),), (), body)


def _with_b(prep: oracle.Prepared, b: np.ndarray) -> oracle.Outcome:
    return oracle.Outcome((b,), prep.expected.ret)


def test_int_of_a_sum_near_an_integer_leaves_the_ints_unbounded() -> None:
    """``s`` is 0.4 * i up to rounding, so ``int(s * 2.5)`` is i or i - 1 by the order
    of the sum: only a bit-exact run can be compared."""
    prep = oracle.prepare(_program(Bin("*", Name("s"), Num(2.5))), Path(tempfile.mkdtemp()))
    assert prep is not None
    assert prep.errors[0] is not None and not np.any(np.isfinite(prep.errors[0]))
    moved = prep.expected.arrays[0].copy()
    moved[3] -= 1
    assert oracle.compare(prep, _with_b(prep, moved), strict=False) is None
    assert "bit-exact" in (oracle.compare(prep, _with_b(prep, moved), strict=True) or "")
    # so every transformation is checked bit-exact instead
    assert prep.int_jumps
    for name in ("default", "fuse_max", "tile23", "unroll_jam", "schedule1"):
        instead = matrix.bit_exact_instead(prep, matrix.BY_NAME[name])
        assert instead.strict and instead.name == name
    assert not matrix.bit_exact_instead(prep, matrix.BY_NAME["c_region"]).strict
    assert matrix.run_option(prep, matrix.BY_NAME["fuse_max"], tempfile.mkdtemp()).verdict == "ok"


def test_int_of_a_float_far_from_an_integer_stays_exact() -> None:
    """``int(i * 0.3 + 0.55)``: 0.55, 0.85, 1.15, ... are far from a jump: B is exact."""
    value = Bin("+", Bin("*", Name("i"), Num(0.3)), Num(0.55))
    prep = oracle.prepare(_program(value), Path(tempfile.mkdtemp()))
    assert prep is not None
    assert prep.errors[0] is None and not prep.int_jumps
    moved = prep.expected.arrays[0].copy()
    moved[3] -= 1
    assert "differ" in (oracle.compare(prep, _with_b(prep, moved), strict=False) or "")


def test_truncation_is_continuous_at_zero() -> None:
    """``int(x)`` of a rounded x near 0 (either sign) is 0: no jump, no flag."""
    with shadow.tracking_ints() as flag:
        assert int(shadow.EF(1e-17, 1.0)) == 0 and int(shadow.EF(-1e-17, 1.0)) == 0
    assert not flag[0]
    with shadow.tracking_ints() as flag:
        assert int(shadow.EF(2.0 - 1e-15, 8.0)) == 1
    assert flag[0]


def test_a_sum_of_small_constants_is_exact_in_every_order() -> None:
    """``s += 0.25`` eight times: 2.0 whatever the order, so ``int(s)`` is exact."""
    s = shadow.EF(0.0)
    for _ in range(8):
        s = s + 0.25
    assert s.v == 2.0 and s.m is not None
    with shadow.tracking_ints() as flag:
        assert int(s) == 2
    assert not flag[0]
    assert (shadow.lift(0.1) + 1).m is None  # 0.1 is not on the grid
