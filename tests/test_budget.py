"""isl's operation budgets: every isl computation of planning runs under one; past the
analysis's the call fails with TooComplexError, past any later one it falls back to a
simpler legal schedule (a RuntimeWarning and a note say so) and still computes the
right answer; an isl failure that is not the budget is reported as what it is."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
import polyopt.scheduler.pipeline
from polyopt.analysis import dependences as deps
from polyopt.analysis.timeline import Timeline
from polyopt.model import isl_budget
from polyopt.model.options import Options
from polyopt.model.schedule_tree import loops
from polyopt.scheduler import auto
from polyopt.scheduler.pipeline import plan
from polyopt.scheduler.steps import Parallelize
from polyopt.transforms import mark_parallel


def triangle(A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] += A[j, i]


def stencil_with_temporary(A, B):
    n = A.shape[0]
    T = np.zeros((n, n))
    for t in range(3):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                T[i, j] = A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1]
                B[i, j] = T[i, j] * 0.25 + t
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = B[i, j]


def row_sums_then_scale(A, out):
    """The temporary `rs` is contracted, and the contracted program analysed again."""
    n, m = A.shape
    rs = np.zeros(n)
    for i in range(n):
        for j in range(m):
            rs[i] += A[i, j]
    for i in range(n):
        for j in range(m):
            out[i, j] = A[i, j] * rs[i]


def strided_accumulation(A):
    """A loop of stride -3 around a `max`/`min`-bounded one: isl's dataflow fails on the
    read of `s` ("affine expression involves some of the domain dimensions")."""
    n = A.shape[0]
    m = A.shape[1]
    s = 0.0
    for i in range(n - 1, -1, -3):
        t = s
        for _j in range(n):
            for k in range(max(0, i - 1), min(m, i + 2)):
                s += A[i, k]
                s += t * 0.125
    return s


def test_analysis_over_budget_is_too_complex(monkeypatch):
    monkeypatch.setattr(polyopt.scheduler.pipeline, "ANALYSIS_OPS", 200)
    with pytest.raises(polyopt.TooComplexError, match="dependence analysis of triangle"):
        polyopt.jit(triangle)(np.ones((4, 4)))
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0


def test_normal_budget_compiles():
    A = np.arange(16.0).reshape(4, 4)
    expected = A.copy()
    triangle(expected)
    polyopt.jit(triangle)(A)
    np.testing.assert_array_equal(A, expected)


def test_scheduling_over_budget_keeps_the_source_order(monkeypatch, rng):
    monkeypatch.setattr(polyopt.scheduler.pipeline, "SCHEDULING_OPS", 2000)
    with pytest.warns(RuntimeWarning, match="scheduling stencil_with_temporary.*source loop order"):
        p = plan(parse_function(stencil_with_temporary), Options())
    assert len(p.notes) == 1 and "budget" in p.notes[0]
    assert p.scop is p.source and any(d.mark.parallel for d, _ in loops(p.tree))
    kernel = polyopt.jit(stencil_with_temporary, cache=False)
    with pytest.warns(RuntimeWarning, match="source loop order"):
        check_against_python(kernel, rng.random((9, 9)), rng.random((9, 9)))
    assert "note: scheduling stencil_with_temporary() is too complex" in kernel.report()


def test_marking_over_budget_runs_the_source_order_sequentially(monkeypatch, rng):
    """Contraction, the re-analysis of the contracted program and the loop marks all
    run under a budget; past it, even the source order's marks, the loops run as written."""
    monkeypatch.setattr(polyopt.scheduler.pipeline, "MARKING_OPS", 500)  # the source order's marks need ~1,000 now
    with pytest.warns(RuntimeWarning, match="running the source loop order sequentially"):
        p = plan(parse_function(row_sums_then_scale), Options())
    assert p.tree is p.source.schedule and len(p.notes) == 2
    with pytest.warns(RuntimeWarning):
        check_against_python(polyopt.jit(row_sums_then_scale, cache=False),
                             rng.random((9, 7)), rng.random((9, 7)))


def test_user_schedule_over_budget_keeps_the_source_order(monkeypatch):
    monkeypatch.setattr(polyopt.scheduler.pipeline, "SCHEDULING_OPS", 200)
    steps = (Parallelize("L1"),)
    with pytest.warns(RuntimeWarning, match="source loop order"):
        p = plan(parse_function(stencil_with_temporary), Options(), steps)
    assert p.notes


def test_every_isl_computation_of_planning_runs_under_a_budget(monkeypatch):
    """The phases that call isl, the re-analysis after contraction and the lazy dataflow
    of parallel marking included, all find an operations ceiling set."""
    seen: list[str] = []

    def budgeted(name, fn):
        def wrapper(*args, **kwargs):
            assert isl.DEFAULT_CONTEXT.get_max_operations() > 0, f"{name} runs unbounded"
            seen.append(name)
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(polyopt.scheduler.pipeline, "analyze", budgeted("analyze", deps.analyze))
    monkeypatch.setattr(deps, "_dataflow", budgeted("dataflow", deps._dataflow))
    monkeypatch.setattr(auto, "schedule", budgeted("schedule", auto.schedule))
    monkeypatch.setattr(mark_parallel, "mark", budgeted("mark", mark_parallel.mark))
    p = plan(parse_function(row_sums_then_scale), Options())
    assert "rs" not in p.scop.arrays  # contracted
    assert {"analyze", "dataflow", "schedule", "mark"} <= set(seen)
    assert seen.count("analyze") >= 2  # the contracted program is analysed again


def test_an_isl_error_is_not_reported_as_a_budget_overrun(monkeypatch):
    def broken(scop):
        isl.Set("{ [i] }").apply(isl.Map("{ [i, j] -> [j] }"))  # incompatible spaces

    monkeypatch.setattr(polyopt.scheduler.pipeline, "analyze", broken)
    with pytest.raises(isl.Error, match="incompatible spaces") as info:
        plan(parse_function(triangle), Options())
    assert any("isl failed during the dependence analysis" in n for n in info.value.__notes__)
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0


def test_budget_overrun_is_recognised():
    with pytest.raises(polyopt.TooComplexError, match="budget of 10 operations"):  # noqa: SIM117
        with isl_budget.budget(10, "a test"):
            isl.Set("[n] -> { [i, j, k] : 0 <= i < n and 0 <= j < i and 0 <= k < j }").lexmax()


def test_isl_dataflow_failure_falls_back_to_the_same_answer(rng):
    """isl fails on `strided_accumulation`; the last-write fallback gives the flows, and
    on the corpus it agrees with isl exactly."""
    check_against_python(polyopt.jit(strided_accumulation), rng.random((8, 8)))
    from kernels import CASES  # noqa: PLC0415

    compared = 0
    for case in list(CASES.values())[:25]:
        scop = parse_function(case.fn)
        d = deps.analyze(scop)
        tl = Timeline(scop, scop.schedule)
        for s in scop.statements:
            for r in s.reads:
                into = [m for m in d.memory if m.kind is deps.DepKind.FLOW and m.sink is r]
                if not into:
                    continue
                a, b = deps._isl_dataflow(scop, tl, r, into), deps._last_writes(scop, tl, r, into)
                assert a[0].is_equal(b[0]) and a[1] == b[1], (case.fn.__name__, r.tag)
                compared += 1
    assert compared > 50


