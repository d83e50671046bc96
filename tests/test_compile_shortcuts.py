"""Shortcuts that make planning and code generation cheaper must give the answers the
long way gives: verdicts asked one loop at a time, and isl's AST built over the sizes the
loops use only.  (That the generated C stays the same is what the golden tests check.)"""

from __future__ import annotations

import sys
from pathlib import Path

import islpy as isl
import pytest
from polyopt.backend_c.ast_walk import _loop_params

import polyopt
from polyopt.analysis.verdicts import LazyVerdicts, verdicts
from polyopt.model import names
from polyopt.model.aff import Lin
from polyopt.model.schedule_tree import Band, LoopDim, loops
from polyopt.scheduler.pipeline import Plan

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from examples.polybench import KERNELS  # noqa: E402


def _plan(name: str) -> Plan:
    mod = KERNELS[name]
    fn = polyopt.jit(mod.kernel)
    inputs = mod.init(**mod.SIZES["MINI"])
    fn.c_source(**inputs)
    return fn.plan()


@pytest.mark.parametrize("name", ["gemm", "trmm", "doitgen", "adi", "correlation"])
def test_lazy_verdicts_are_the_verdicts(name: str) -> None:
    plan = _plan(name)
    every = verdicts(plan.scop, plan.deps, plan.tree)
    lazy = LazyVerdicts(plan.scop, plan.deps, plan.tree)
    assert list(lazy) == list(every) and len(lazy) == len(every) > 0
    for loop_id in reversed(list(every)):  # another order than verdicts' own
        assert lazy[loop_id] == every[loop_id]
        assert lazy.innermost(loop_id) == every[loop_id].innermost
    with pytest.raises(KeyError):
        lazy["no such loop"]


def test_keep_params_projects_out_only_unused_sizes() -> None:
    s = isl.Set("[n, A_shape0, m] -> { S[i, j] : 0 <= i < n and 0 <= j < m and i < 2j }")
    assert names.involved_params(s) == {"n", "m"}
    kept = names.keep_params(s, ("n", "m"))
    assert names.param_names(kept) == ["n", "m"]
    assert kept.is_equal(s.project_out(isl.dim_type.param, 1, 1))
    # a size that a constraint mentions is projected out too when asked: an overestimate
    assert names.keep_params(s, ("n",)).is_equal(
        isl.Set("[n] -> { S[i, j] : 0 <= i < n and j >= 0 and i < 2j }"))
    assert names.keep_params(s, ("n", "A_shape0", "m")) is s


def test_loop_params_keep_a_size_that_only_a_schedule_names() -> None:
    plan = _plan("gemm")
    scop = plan.scop
    assert set(_loop_params(scop, plan.tree)) == {"ni", "nj", "nk"}
    assert len(scop.params) > 3  # the extents of A, B and C, for the bounds checks
    extent = next(p for p in scop.params if p not in ("ni", "nj", "nk"))
    stmt = scop.statements[0]
    odd = Band((LoopDim("x", "x", ((stmt.name, Lin.var(extent) - Lin.var(stmt.iterators[0])),)),),
               plan.tree)
    assert extent in _loop_params(scop, odd)
    assert any(d.loop_id == "x" for d, _ in loops(odd))
