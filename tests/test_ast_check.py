"""isl's AST is checked against the domains it was built for (backend_c/ast_check.py).

Hostile-user finding (stop 34, session a, 02): with no bound on ``n``, isl printed one
piece of ``range(n // 2, -1, -2)`` under ``if i <= 1`` and the calls with
``n % 4 in (0, 1)`` did nothing.
"""

from __future__ import annotations

import islpy as isl
import numpy as np
from polyopt.backend_c.ast_check import mismatch

import polyopt
from polyopt.model import names

#: the domain of the finding (``S0[i]``: 0 <= i <= 1, 2i <= n, i of n // 2's parity)
DOMAIN = "[n] -> { S0[i] : 0 <= i <= 1 and 2i <= n and 4*floor((-1 - n + 2i)/4) <= -3 - n + 2i }"


def _ast(domain: str, schedule: str, context: isl.Set) -> isl.AstNode:
    d = isl.UnionSet(domain)
    sched = isl.Schedule.from_domain(d).insert_partial_schedule(isl.MultiUnionPwAff(schedule))
    build = isl.AstBuild.from_context(context).set_iterators(names.id_list(["c0", "c1"]))
    return build.node_from_schedule(sched)


def _check(ast: isl.AstNode, domain: str, context: isl.Set) -> str | None:
    return mismatch(ast, {"S0": isl.Set(domain)}, context, ["c0", "c1"])


def test_the_piece_isl_drops_is_found() -> None:
    free = isl.Set("[n] -> { : }")
    ast = _ast(DOMAIN, "[n] -> [{ S0[i] -> [(-i)] }]", free)
    assert "S0(1)" in ast.to_C_str() and "S0(0)" not in ast.to_C_str()  # isl's bug
    why = _check(ast, DOMAIN, free)
    assert why is not None and "skip" in why and "i = 0" in why
    bounded = isl.Set("[n] -> { : -1000 <= n <= 1000 }")  # what build_ast tries next
    assert _check(_ast(DOMAIN, "[n] -> [{ S0[i] -> [(-i)] }]", bounded), DOMAIN, bounded) is None


def test_instances_beyond_the_domain_are_found() -> None:
    free = isl.Set("[n] -> { : }")
    wide = "[n] -> { S0[i] : 0 <= i < n }"
    ast = _ast(wide, "[n] -> [{ S0[i] -> [(i)] }]", free)
    assert _check(ast, wide, free) is None
    why = _check(ast, "[n] -> { S0[i] : 0 <= i < n - 1 }", free)
    assert why is not None and "beyond its domain" in why
    why = _check(ast, "[n] -> { S0[i] : 0 <= i <= n }", free)
    assert why is not None and "skip" in why


def test_a_statement_no_node_runs_is_found() -> None:
    free = isl.Set("[n] -> { : }")
    ast = _ast("[n] -> { S0[i] : 0 <= i < n }", "[n] -> [{ S0[i] -> [(i)] }]", free)
    why = mismatch(ast, {"S0": isl.Set("[n] -> { S0[i] : 0 <= i < n }"),
                         "S1": isl.Set("[n] -> { S1[i] : 0 <= i < n }")}, free, ["c0"])
    assert why is not None and "S1" in why


def _stepped(B, n):
    for i in range(n // 2, -1, -2):
        if i <= 1:
            B[i] += 1


def test_a_negative_step_from_half_a_size_runs_every_instance() -> None:
    kernel = polyopt.jit(_stepped)
    for n in range(-3, 12):
        want, got = np.zeros(4, np.int64), np.zeros(4, np.int64)
        _stepped(want, n)
        kernel(got, n)
        assert np.array_equal(want, got), n
