"""Statements that can never run (a guard such as ``if i < 0``, an unreachable
``elif``, an empty inner range) go through scheduling, marking and emission like
any other: every kernel matches CPython under every option set.

isl's scheduler leaves statements with empty domains out of the schedule it
returns; the time-tiling path (a sequential outer loop around a stencil) used to
fail on them with ``KeyError: 'S0'``.
"""

from __future__ import annotations

import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.model.options import Options
from polyopt.model.schedule_tree import loops, statements
from polyopt.scheduler.pipeline import plan


def dead_first(A, B):
    n = A.shape[0]
    for _t in range(3):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                if i < 0:
                    A[i, j] = 5.0
                B[i, j] = (A[i - 1, j] + A[i, j] + A[i + 1, j] + A[i, j - 1]) * 0.25
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = B[i, j]


def dead_elif(A, B):
    n = A.shape[0]
    for _t in range(3):
        for i in range(1, n - 1):
            if i > 3:
                B[i] = A[i - 1] + A[i + 1]
            elif i > 5:
                B[i] = 7.0
            else:
                B[i] = A[i]
        for i in range(1, n - 1):
            A[i] = B[i] * 0.5


def dead_under_parameter_guard(A, B):
    n = A.shape[0]
    for _t in range(2):
        for i in range(1, n - 1):
            if n < 0:
                A[i] = 1.0
            B[i] = A[i - 1] + A[i + 1]
        for i in range(1, n - 1):
            A[i] = B[i] * 0.25


def dead_accumulator(A):
    n = A.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(n):
            if i + j < 0:
                s += A[i, j]
            A[i, j] = A[i, j] * 2.0
    return s


def dead_whole_nest(A, B):
    n = A.shape[0]
    for i in range(n):
        for j in range(i, i):
            A[i, j] = 1.0
    for i in range(n):
        for j in range(n):
            B[i, j] = A[j, i] + 1.0


def dead_last(A, B):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j] * 3.0
            if j > n:
                B[i, j] = 0.0


def dead_in_matmul(A, B, C):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]
                if k > n + 2:
                    C[i, j] = 0.0


def dead_only(A):
    n = A.shape[0]
    for i in range(n):
        if i >= n:
            A[i] = 0.0


def dead_temporary(A, B):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            x = A[i, j] * 2.0
            if j < 0:
                x = 0.0
            B[i, j] = x + A[j, i]


KERNELS = {
    dead_first: [(12, 12), (12, 12)],
    dead_elif: [(12,), (12,)],
    dead_under_parameter_guard: [(12,), (12,)],
    dead_accumulator: [(7, 7)],
    dead_whole_nest: [(6, 6), (6, 6)],
    dead_last: [(6, 6), (6, 6)],
    dead_in_matmul: [(9, 9)] * 3,
    dead_only: [(5,)],
    dead_temporary: [(6, 6), (6, 6)],
}

OPTION_SETS = {
    "default": {},
    "fuse-max": {"fuse": "max"},
    "fuse-none": {"fuse": "none"},
    "small-tiles": {"tile": (2, 3)},
    "strict-fp": {"strict_fp": True},
    "serial": {"parallel": False, "vectorize": False},
    "source-order": {"auto": False},
    "plain": {"licm": False, "unroll_jam": False, "interchange": False},
}


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_never_running_statements_match_python(kernel, options, rng) -> None:
    args = [rng.random(shape) for shape in KERNELS[kernel]]
    check_against_python(polyopt.jit(kernel, **options), *args)


def test_time_tiling_keeps_a_never_running_statement() -> None:
    """The stencil is still time-tiled (isl's band), the dead statement riding along."""
    p = plan(parse_function(dead_first), Options())
    assert set(statements(p.tree)) == {"S0", "S1", "S2"}
    assert any(".band." in d.loop_id for d, _ in loops(p.tree))
