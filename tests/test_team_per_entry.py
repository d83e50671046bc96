"""A short parallel loop asks for a team by its own work, not only the call's.

The call's work can pass the threshold while one entry of a loop of straight
statements (an initialization before the real work, or a loop in a time loop, which
forks and joins at every step) is far too short for a team (``AstWalker._team_for``).
The in-order copy computes the same results.
"""

from __future__ import annotations

import re

import numpy as np
from polyopt.backend_c.work import entry_instances, parallel_min_fixed, parallel_min_instances

import polyopt


def atax(A, x, y, tmp):  # PolyBench's: y is zeroed before the real work
    m, n = A.shape
    for i in range(n):
        y[i] = 0.0
    for i in range(m):
        tmp[i] = 0.0
        for j in range(n):
            tmp[i] = tmp[i] + A[i, j] * x[j]
        for j in range(n):
            y[j] = y[j] + A[i, j] * tmp[i]


def test_the_threshold_per_entry_is_a_fraction_of_the_calls() -> None:
    assert entry_instances(1 << 20) == 16384
    assert entry_instances(0) == 0


def test_a_short_loop_asks_for_its_own_work() -> None:
    threshold = 1 << 16  # per entry: 1,024 instances
    v = np.zeros(4)
    with parallel_min_fixed(threshold):
        assert parallel_min_instances() == threshold
        src = polyopt.jit(atax).c_source(np.zeros((4, 4)), v, v.copy(), v.copy())
        assert re.search(r"if \(polyopt_team && \(\(double\)\(n\) - \(double\)\(0\)\) "
                         r">= 1024\.0\) \{", src), src
        f = polyopt.jit(atax)
        rng = np.random.default_rng(0)
        # m x n = 100 x 700: the call passes the threshold, zeroing y does not (in order);
        # 30 x 4,000: both pass (a team); 3 x 3: neither
        for m, n in ((100, 700), (30, 4000), (3, 3)):
            A, x = rng.random((m, n)), rng.random(n)
            want, got = (np.full(n, 9.0), np.zeros(m)), (np.full(n, 9.0), np.zeros(m))
            atax(A, x, *want)
            f(A, x, *got)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(g, w, rtol=1e-12)
