"""Finding 015 (the oracle): a sum of constants, reassociated, then floor-divided.

Found by fuzz run P (seed 30, program 109), under ``schedule1`` and ``schedule2``
(``polyopt.schedule(kernel).parallelize('k@21')``)::

    s2 = 0.0
    for i ...:
        for j in range(m):
            A[0, j] = math.hypot(math.fabs(s2 // 1.5), ...)
            for k in range(n - 2, -1, -1):    # parallel: s2 a reduction
                s2 += (0.5 ** 2) * (0.1 * alpha)

After 15 rows of ``k``, ``s2`` is 6.0 give or take an ulp, and ``s2 // 1.5`` is 4 or 3
by the order of the additions: a jump that every later use of ``A`` carried.  The
user's request is legal (a sum reduction is reassociated, as documented); the shadow
run that gives each result its error bound missed it twice: a Python float scalar
argument (``alpha``) and float constants entered it as exact plain floats, so ``s2``
carried no bound, and ``//`` and ``%`` were treated as continuous near a jump.  Now
both are tracked, and a quotient within rounding of an integer gets an unbounded error.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from progen import matrix, oracle, reproducer, shadow
from progen.nodes import (
    ArrayArg,
    Assign,
    Bin,
    For,
    Index,
    Name,
    Num,
    Program,
    ScalarArg,
    SizeDef,
)


def test_floor_division_of_a_sum_of_constants_near_a_jump_is_unbounded() -> None:
    i, s = Name("i"), Name("s")
    body = (
        Assign(s, "", Num(0.0)),
        For("i", Num(0), Name("n"), 1, (
            Assign(Index("A", (i,)), "", Bin("//", s, Num(0.4))),
            For("k", Num(0), Num(8), 1, (Assign(s, "+", Num(0.05)),)),
        )),
    )
    p = Program((ArrayArg("A", "float64", ("n",)),), (), {"n": 8}, (SizeDef("n", "A", 0),),
                (), body)
    prep = oracle.prepare(p, Path(tempfile.mkdtemp()))
    assert prep is not None
    got = prep.expected.arrays[0]
    # s is 0.4 * i up to rounding, so s // 0.4 is i or i - 1 by the order of the sum
    assert all(v in (j, j - 1) for j, v in enumerate(got)), got
    assert all(b >= shadow.ANY for b in prep.errors[0][1:]), (got, prep.errors[0])


def test_a_python_float_argument_carries_rounding_into_the_shadow_run() -> None:
    """``A[i] = 0.1 * alpha``: the product rounds, so A's bound is not 0."""
    i = Name("i")
    a = Index("A", (i,))
    body = (For("i", Num(0), Name("n"), 1, (
        Assign(a, "", Bin("*", Num(0.1), Name("alpha"))),)),)
    p = Program((ArrayArg("A", "float64", ("n",)),), (ScalarArg("alpha", "float", 3.0),),
                {"n": 4}, (SizeDef("n", "A", 0),), (), body)
    prep = oracle.prepare(p, Path(tempfile.mkdtemp()))
    assert prep is not None
    assert all(b >= 0.3 for b in prep.errors[0])


def test_the_reproducer_names_a_schedule_loop_by_its_own_lines() -> None:
    """The finding's script called ``parallelize('k@21')``, a line of the module the run
    wrote, not of the script (whose docstring comes first): it raised 'no loop named'."""
    option = matrix.BY_NAME["schedule1"]
    detail = "schedule: polyopt.schedule(kernel).tile(['i@5', \"j@7\"], [2, 2]).parallelize('k@21')"
    assert reproducer._how(option, detail, 4) == (
        "(polyopt.schedule(kernel).tile(['i@9', \"j@11\"], [2, 2]).parallelize('k@25')).compile()")
