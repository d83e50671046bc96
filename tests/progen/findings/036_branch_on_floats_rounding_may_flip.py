"""Finding 036 (the oracle): a branch on floats that rounding may move across each other.

Found by fuzz run seed 3304 (program 55) under every option set but ``strict_fp``::

    for i ...:
        for j ...:
            for k ...:
                t3 = np.cos(s2 * s2 + B[i, n - 1 - j, k])
                s2 += t3
                B[i, j, k] = B[i, j, j] if t3 < 0.37 else 1.0

gcc contracts ``s2 * s2 + B`` into one fused multiply-add (the README allows it without
``strict_fp``), the chaotic recurrence grows the last bit, and ``t3 < 0.37`` goes the
other way: 56 of 288 elements differ.  The shadow run bounds ``t3``'s error, but took the
branch as CPython did.  Now a comparison whose operands rounding may move across each
other is noted, and a difference beyond the bounds in such a program is ``unstable``, not
``wrong`` (a bit-exact comparison, under ``strict_fp``, still says ``wrong``).  ``min``
and ``max`` are continuous: their operands may cross without a jump, so the shadow's
``min``/``max`` note nothing and take the larger bound.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from progen import matrix, oracle, shadow
from progen.nodes import ArrayArg, Assign, Call, Cmp, For, IfExp, Index, Name, Num, Program, SizeDef


def _program(value) -> Program:
    """``s += 0.1`` then ``B[i] = value`` in each of 8 iterations."""
    i, s = Name("i"), Name("s")
    body = (
        Assign(s, "", Num(0.0)),
        For("i", Num(0), Name("n"), 1, (
            Assign(s, "+", Num(0.1)),
            Assign(Index("B", (i,)), "", value),
        )),
    )
    return Program((ArrayArg("B", "float64", ("n",)),), (), {"n": 8},
                   (SizeDef("n", "B", 0),), (), body)


def _prepared(value) -> oracle.Prepared:
    prep = oracle.prepare(_program(value), Path(tempfile.mkdtemp()))
    assert prep is not None
    return prep


def _moved(prep: oracle.Prepared, k: int, to: float) -> oracle.Outcome:
    b = prep.expected.arrays[0].copy()
    b[k] = to
    return oracle.Outcome((b,), prep.expected.ret)


def test_a_branch_rounding_may_flip_makes_a_difference_unstable() -> None:
    """0.1 + 0.1 + 0.1 is 0.30000000000000004: a sum in another order gives 0.3, and
    ``s < 0.3`` another arm."""
    prep = _prepared(IfExp(Cmp("<", Name("s"), Num(0.3)), Num(1.0), Num(2.0)))
    assert prep.unsure_branches and not prep.int_jumps
    flipped = _moved(prep, 2, 1.0)
    assert oracle.compare(prep, flipped, strict=False) is not None
    assert matrix.difference(prep, exact=False) == "unstable"
    assert matrix.difference(prep, exact=True) == "wrong"  # strict_fp: no rounding differs


def test_a_branch_far_from_its_threshold_stays_sure() -> None:
    prep = _prepared(IfExp(Cmp("<", Name("s"), Num(0.35)), Num(1.0), Num(2.0)))
    assert not prep.unsure_branches
    assert oracle.compare(prep, _moved(prep, 2, 2.0), strict=False) is not None
    assert matrix.difference(prep, exact=False) == "wrong"


def test_min_and_max_are_continuous_and_note_nothing() -> None:
    """``min(s, 0.3)`` at s = 0.30000000000000004: either operand, nearly the same value."""
    prep = _prepared(Call("min", (Name("s"), Num(0.3))))
    assert not prep.unsure_branches
    with shadow.tracking_branches() as flag:
        a, b = shadow.EF(0.3, 4.0), shadow.EF(0.3 + 2**-54, 8.0)
        low = shadow.namespace()["min"](a, b)
        high = shadow.namespace()["max"](a, b)
    assert not flag[0]
    assert (low.v, low.e) == (0.3, 8.0) and (high.v, high.e) == (b.v, 8.0)
    with shadow.tracking_branches() as flag:
        assert a < b
    assert flag[0]


def test_comparisons_of_values_exact_in_every_order_are_sure() -> None:
    """``s += 0.25`` is exact in any order, so ``s < 1.0`` cannot flip."""
    s = shadow.EF(0.0)
    for _ in range(4):
        s = s + 0.25
    with shadow.tracking_branches() as flag:
        assert not s < 1.0 and s <= 1.0
    assert not flag[0]
