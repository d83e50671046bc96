"""Finding 032 (polyopt, fixed): an int cell updated by float values was run as an
OpenMP reduction, and reordered as an exact one.

Found by a hostile helper while testing the reduction interchange (the first case is
older: 043115f gives the same)::

    for j in range(n):
        for k in range(n):
            T[j] += w[k] * 0.5          # T int32: each partial sum is truncated

NumPy adds in float64 and truncates back to int32 at every update, so starting from
``T[0] == -1`` four additions of 0.5 give -1 + 0.5 -> 0 (truncated), then 0.5 -> 0...:
0.  The C kept ``T[j]`` in an int32 accumulator under ``omp simd reduction(+:T_acc)``:
each lane starts at 0 and truncates on its own, and the result was -1.  The same
statement beside an exact integer update of the cell (``T[i, j] += T[i, j - 1]``) was
also let through the reduction interchange, which checked only one end of each
dependence for exactness.

Fixed: a float-valued update of an int target is not a reduction
(``reductions.recognize``), and a dependence is reorderable only when both of its
statements are exact reductions (``Dependences.reorderable``).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt.model.errors import IllegalTransformationError


def truncating_sum(T, w):
    n = T.shape[0]
    for j in range(n):
        for k in range(n):
            T[j] += w[k] * 0.5


def beside_an_exact_update(T):
    n = T.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            T[i, j] += T[i, j - 1]
            for k in range(i + 1, j):
                T[i, j] += T[k + 1, j] / 2


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}, {"licm": False},
                                     {"parallel": False}])
def test_truncating_sum_matches_cpython(options) -> None:
    for n in (4, 19):
        T = np.arange(-n, n, 2, dtype=np.int32)
        w = np.ones(n, np.int32)
        mine, theirs = T.copy(), T.copy()
        f = polyopt.jit(truncating_sum, **options)
        f(mine, w)
        truncating_sum(theirs, w)
        np.testing.assert_array_equal(mine, theirs)
        assert "reduction(+" not in f.c_source(T, w)


def test_beside_an_exact_update_keeps_its_order() -> None:
    for n in (3, 8, 17):
        T = np.random.default_rng(n).integers(-3, 3, (n, n)).astype(np.int32)
        f = polyopt.jit(beside_an_exact_update)
        mine, theirs = T.copy(), T.copy()
        f(mine)
        beside_an_exact_update(theirs)
        np.testing.assert_array_equal(mine, theirs)
        assert "[reduction interchange]" not in f.report()
    with pytest.raises(IllegalTransformationError, match="would reverse"):
        polyopt.schedule(f).reduction_interchange("j", "k")
