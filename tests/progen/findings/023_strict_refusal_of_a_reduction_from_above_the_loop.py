"""Finding 023: isl's assertion instead of strict_fp's refusal of a parallel reduction.

Found by fuzz run S (seed 35, program 2764) under ``schedule1`` and ``schedule2``, once
the matrix compiled that program with ``strict_fp`` (finding 021), shrunk to::

    s1 = 0.0
    for i in range(m):
        s1 += 3.0              # S4, above the j loop
        for j in range(n):
            s1 += 1.0          # S6, inside it

    polyopt.schedule(polyopt.jit(kernel, strict_fp=True)).parallelize("j")

``strict_fp`` refuses the parallel float reduction, and its message names the
reduction dependences the loop carries; one of them runs from ``S4``, which is not
inside ``j``, and comparing the two statements' time vectors down to ``j`` made isl
assert (``isl_map_apply_range``) instead.  A loop carries no dependence from or to a
statement it does not run.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def kernel(A, B):
    n = len(A)
    m = B.shape[0]
    s1 = 0.0
    for i in range(m):  # noqa: B007 - the fuzzer's program, as shrunk
        s1 += 3.0
        for j in range(n):  # noqa: B007
            s1 += 1.0
    B[2, 2] = s1


def test_strict_fp_refuses_the_parallel_reduction_cleanly() -> None:
    k = polyopt.jit(kernel, strict_fp=True)
    with pytest.raises(polyopt.IllegalTransformationError,
                       match="reassociate the floating-point reduction into s1") as info:
        polyopt.schedule(k).parallelize("j")
    assert info.value.violated  # S6's own reduction, carried by j
    assert all(d.source.statement == d.sink.statement for d in info.value.violated)


def test_without_strict_fp_the_reduction_runs_in_parallel() -> None:
    args = (np.zeros(5), np.zeros((5, 5)))
    want = [a.copy() for a in args]
    kernel(*want)
    got = [a.copy() for a in args]
    polyopt.schedule(kernel).parallelize("j").compile()(*got)
    np.testing.assert_allclose(got[1], want[1])
