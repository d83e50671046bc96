"""Generated C that must be right whatever the schedule: scalars shared with outlined
parallel bodies, `restrict` and gcc, and expressions too deep to print recursively."""

from __future__ import annotations

import re

import pytest
from conftest import check_against_python

import polyopt


def time_tiled_sum(u, A):
    n = len(A)
    total = 0.0
    for i in range(n):  # noqa: B007 (the issue's program, as found)
        for j in range(n):
            total += A[1, 1]
            for k in range(n):
                A[k, k] = u[j]
    return total


@pytest.mark.parametrize("n", [2, 11, 40])
def test_scalar_sum_in_a_parallel_time_tiled_nest_is_not_lost(rng, n):
    """`total` was passed by value to the outlined tile body: the result was 0.0."""
    kernel = polyopt.jit(time_tiled_sum)
    u, A = rng.standard_normal(n), rng.standard_normal((n, n))
    assert check_against_python(kernel, u, A) != 0.0
    src = kernel.c_source(u, A)
    assert "parallel for" in src  # the wavefront's tiles still run in parallel
    for helper in re.findall(r"static void \w+\(([^)]*)\)", src):
        assert not re.search(r"\bdouble total\b", helper), helper
