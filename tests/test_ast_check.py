"""isl's AST is checked against the domains it was built for (backend_c/ast_check.py).

Hostile-user finding (stop 34, session a, 02): with no bound on ``n``, isl printed one
piece of ``range(n // 2, -1, -2)`` under ``if i <= 1`` and the calls with
``n % 4 in (0, 1)`` did nothing.
"""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from polyopt.backend_c.ast_check import _condition, _value, mismatch
from polyopt.backend_c.isl_ast import op_type

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


#: loops bounded by a min or max of several expressions (a tile's bounds), with the
#: domains that are one instance short or long at each bound
BOUNDED = {
    "min above": ("[n, m] -> { S0[i] : 0 <= i < n and i < m }",
                  ["[n, m] -> { S0[i] : 0 <= i < n }",
                   "[n, m] -> { S0[i] : 0 <= i < n and i < m - 1 }"]),
    "max below": ("[n, m] -> { S0[i] : i >= n and i >= m and i < 40 }",
                  ["[n, m] -> { S0[i] : i >= n and i >= m - 1 and i < 40 }",
                   "[n, m] -> { S0[i] : i > n and i >= m and i < 40 }"]),
    "max above": ("[n, m] -> { S0[i] : 0 <= i < n or 0 <= i < m }",
                  ["[n, m] -> { S0[i] : 0 <= i <= n or 0 <= i < m }",
                   "[n, m] -> { S0[i] : 0 <= i < n or 0 <= i < m - 1 }"]),
    "min of a strided tile": ("[n, m] -> { S0[i, j] : 0 <= i < n and 32i <= j < 32i + 32 "
                              "and j < m and j < n + 5 }",
                              ["[n, m] -> { S0[i, j] : 0 <= i < n and 32i <= j < 32i + 32 "
                               "and j < m and j < n + 4 }",
                               "[n, m] -> { S0[i, j] : 0 <= i < n and 32i <= j < 32i + 31 "
                               "and j < m and j < n + 5 }"]),
}


@pytest.mark.parametrize("case", sorted(BOUNDED))
def test_a_min_or_max_bound_is_checked_on_each_side(case: str) -> None:
    """A min or max in a loop's bound is taken apart by the check (``x <= min(a, b)`` is
    ``x <= a`` and ``x <= b``): the right domain passes, one off at any bound does not."""
    domain, wrong = BOUNDED[case]
    free = isl.Set("[n, m] -> { : }")
    dims = isl.Set(domain).dim(isl.dim_type.set)
    sched = "[n, m] -> [{ S0[i] -> [(i)] }]" if dims == 1 else "[n, m] -> [{ S0[i, j] -> [(j)] }]"
    ast = _ast(domain, sched, free)
    assert "min(" in ast.to_C_str() or "max(" in ast.to_C_str()
    assert _check(ast, domain, free) is None
    for other in wrong:
        why = _check(ast, other, free)
        assert why is not None and ("skip" in why or "beyond" in why), other


def _bound(domain: str, upper: bool) -> isl.AstExpr:
    """The min or max expression isl writes in a loop's bound over ``domain``."""
    ast = _ast(domain, "[n, m, k] -> [{ S0[i] -> [(i)] }]", isl.Set("[n, m, k] -> { : }"))
    return ast.for_get_cond().get_op_arg(1) if upper else ast.for_get_init()


@pytest.mark.parametrize("op", ["le", "lt", "ge", "gt"])
@pytest.mark.parametrize("extreme", ["min", "max"])
@pytest.mark.parametrize("left", [True, False])
def test_a_comparison_with_a_min_or_max_is_the_set_of_its_functions(op, extreme, left):
    """``_condition`` takes ``x <= min(a, b)`` apart (both, or either, by the side and the
    extreme): the set must be the one isl gives for the piecewise functions."""
    bound = (_bound("[n, m, k] -> { S0[i] : 0 <= i < n and i < m }", True) if extreme == "min"
             else _bound("[n, m, k] -> { S0[i] : i >= n and i >= m and i < 9 }", False))
    assert op_type(bound) is getattr(isl.ast_expr_op_type, extreme)
    other = isl.AstExpr.from_id(isl.Id("k"))
    compared = getattr(bound, op)(other) if left else getattr(other, op)(bound)
    universe = names.counter_set(isl.Set("[n, m, k] -> { : }"), ["c0"])
    a, b = (bound, other) if left else (other, bound)
    want = getattr(_value(a, universe), f"{op}_set")(_value(b, universe))
    assert _condition(compared, universe).is_equal(want)
