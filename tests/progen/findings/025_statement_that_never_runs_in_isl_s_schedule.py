"""Finding 025: the C written for a program depended on what the process compiled before.

Found by fuzz run S (seed 35, program 4235) under ``cli_py``: ``polyopt opt`` wrote other
C than ``@polyopt.jit`` had built for the same program earlier in the process (both
correct).  The program has a statement that never runs, beside a stencil nest that
isl's scheduler reschedules::

    for i in range(n):
        if n > n + n:          # never, for n >= 0
            s4 = 0.5 * s4 - C[i] * s1
        A[i, i] *= ...
        for j in range(i):
            A[0:n, j] += ...

isl leaves out of its schedule the empty domains it happens to know are empty, and
whether it knows depends on what was asked of the same cached isl objects before: the
statement was rescheduled in one compile and left out in the other, and the loop marks
(``firstprivate(s4) lastprivate(s4)``) followed.  The statements that never run are now
decided by polyopt (``is_empty``) before isl's scheduler sees the nest.
"""

from __future__ import annotations

import dataclasses

import islpy as isl
import numpy as np
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.scheduler.isl_schedule import isl_schedule


def kernel(A, C, s1):
    n = A.shape[0]
    s4 = 0.0
    for i in range(n):
        if n > (n + n):
            s4 = (0.5 * s4) + (-(C[i] * s1))
        A[i, i] *= np.cos((A[((n - 1) - i), ((n - 1) - i)] ** 2) - abs(A[(-2), i]))
        for j in range(i):
            A[0:n, j] += (A[0:n, j] - A[0:n, j]) + s1
    return s4 + s1


ARGS = (np.arange(9.0).reshape(3, 3) / 7, np.array([0.5, -1.0, 2.0]), 0.25)


def _with_fresh_domain(scop, name):
    """``scop`` with statement ``name``'s domain read again from its text: an isl object
    on which nothing has been computed yet."""
    stmts = tuple(dataclasses.replace(s, domain=isl.Set.read_from_str(s.domain.get_ctx(),
                                                                      str(s.domain)))
                  if s.name == name else s for s in scop.statements)
    return dataclasses.replace(scop, statements=stmts)


def test_a_statement_that_never_runs_is_scheduled_alike_whatever_isl_knew() -> None:
    k = polyopt.jit(kernel)
    scop = parse_function(kernel, k._sig_for(ARGS, {}))
    never = [s.name for s in scop.statements if s.domain.is_empty()]
    assert never  # the `if n > n + n` statement
    nest = [s.name for s in scop.statements if s.name not in ("S0",)]
    trees = []
    for checked in (True, False):
        s = scop if checked else _with_fresh_domain(scop, never[0])
        trees.append(isl_schedule(s, analyze(s), nest, prefix="t"))
    assert trees[0] == trees[1]


def test_the_program_gives_cpythons_result() -> None:
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in ARGS]
    r_want = kernel(*want)
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in ARGS]
    r_got = polyopt.jit(kernel)(*got)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert r_got == r_want
