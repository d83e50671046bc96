"""Why a sequential loop is sequential (polyopt.report.reasons), one sentence per cause,
and a scalar's dependences grouped into one row (polyopt.report.groups)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from kernels import trmm_like

import polyopt
from polyopt.report.analysis import Analysis, text_report
from polyopt.report.groups import ScalarGroup, id_ranges, rows


def analyse(fn: Callable[..., Any], *args: Any) -> Analysis:
    return polyopt.jit(fn).dependences(*args)


def line(fn: Callable[..., Any], text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, x in enumerate(lines) if text in x)


def prefix(x, y):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] + y[i]


def scaled(x, y):
    s = 1.0
    for i in range(x.shape[0]):
        s = s * 0.5 + x[i]
        y[i] = s


def running(x, y):
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j]
            y[i, j] = s


def shift(a):
    for i in range(a.shape[0] - 2):
        a[i] = a[i + 2] * 0.5


def spread(a, b, c):
    for i in range(b.shape[0]):
        b[i] = a[2 * i]
        a[i] = c[i]


def conv2d(img, w, out):
    n, m = out.shape
    kh, kw = w.shape
    for i in range(n):
        for j in range(m):
            s = 0.0
            for a in range(kh):
                for b in range(kw):
                    s += img[i + a, j + b] * w[a, b]
            out[i, j] = s


def test_recurrence_on_an_array() -> None:
    lp = analyse(prefix, np.ones(6), np.ones(6)).loop("i")
    at = line(prefix, "x[i] = x[i - 1]")
    assert (lp.verdict, lp.why_kind) == ("sequential", "recurrence")
    assert lp.why == (f"a recurrence: the value written to x[i] at line {at} is read as "
                      f"x[i - 1] at line {at} one iteration of i later (distance 1)")
    assert "carried by loop i" in lp.reason  # the dependence it is about, described


def test_recurrence_on_a_scalar_that_is_not_a_reduction() -> None:
    lp = analyse(scaled, np.ones(6), np.ones(6)).loop("i")
    at = line(scaled, "s = s * 0.5")
    assert lp.why_kind == "recurrence"
    assert lp.why.startswith(f"a recurrence: the value written to s at line {at} is read as s")


def test_running_value_names_the_read_not_the_parallel_outer_loop() -> None:
    a = analyse(running, np.ones((4, 5)), np.ones((4, 5)))
    assert a.loop("i").verdict == "parallel" and a.loop("i").why == ""
    lp = a.loop("j")
    acc, read = line(running, "s += x[i, j]"), line(running, "y[i, j] = s")
    assert (lp.verdict, lp.why_kind) == ("sequential", "running value")
    assert lp.why == (f"a running value: s is accumulated at line {acc} and read at line {read} "
                      "inside the loop, so each iteration of j needs the value so far (not a "
                      "plain reduction)")
    assert "loop i" not in lp.why
    assert f"      {lp.why}\n" in text_report(a)


def test_a_reduction_beside_another_read_of_its_array_names_that_read() -> None:
    """trmm's ``k`` loop carries only the reduction into ``B[i, j]``; it stays in order
    because it also reads ``B[k, j]``, which a copy of ``B`` per thread would hide.  The
    sentence said "the output dependence on B carried by k", a reduction's own."""
    lp = analyse(trmm_like, np.ones((5, 5)), np.ones((5, 4))).loop("k")
    at = line(trmm_like, "B[i, j] += A[k, i] * B[k, j]")
    assert (lp.verdict, lp.why_kind) == ("sequential", "reduced array read otherwise")
    assert lp.why == (f"a reduction into B that also reads B[k, j] at line {at}: in parallel, "
                      "each thread would reduce into its own copy of B, and that access would "
                      "see the copy, not B")
    with pytest.raises(polyopt.IllegalTransformationError, match="its own copy of B"):
        polyopt.jit(trmm_like, schedule=polyopt.schedule(trmm_like).parallelize("k")).compile(
            np.ones((5, 5)), np.ones((5, 4)))


def private_beside_a_recurrence(A, t, u):
    n = A.shape[0]
    for r in range(n):
        for p in range(n):
            t[p] = 0.0
            for s in range(n):
                t[p] += A[r, s]
        for p in range(1, n):
            u[p] = u[p - 1] + t[p]


def test_an_array_each_iteration_could_own_is_not_blamed() -> None:
    """Hostile session 47b, finding 02: ``r`` was sequential for "a running value: t is
    accumulated ... and also written", where ``t`` is reset in every iteration (the loop
    is parallel with ``t`` private once ``u`` is gone); ``u`` is what keeps it in order."""
    n = 5
    lp = analyse(private_beside_a_recurrence, np.ones((n, n)), np.ones(n), np.ones(n)).loop("r")
    assert lp.verdict == "sequential"
    assert lp.why.startswith("the output (write after write) dependence on u carried by r"), lp.why
    assert {d.array for d in lp.blocking} == {"u"}


def test_carried_anti_dependence_with_its_distance() -> None:
    lp = analyse(shift, np.ones(7)).loop("i")
    at = line(shift, "a[i] = a[i + 2]")
    assert lp.why_kind == "carried dependence"
    assert lp.why == (f"the anti (write after read) dependence on a carried by i: a[i + 2] read at "
                      f"line {at} is overwritten as a[i] at line {at} 2 iterations of i later "
                      "(distance 2)")


def test_carried_dependence_without_a_constant_distance() -> None:
    lp = analyse(spread, np.ones(8), np.ones(4), np.ones(4)).loop("i")
    read, write = line(spread, "b[i] = a[2 * i]"), line(spread, "a[i] = c[i]")
    assert lp.why_kind == "carried dependence"
    assert lp.why == (f"the anti (write after read) dependence on a carried by i: a[2 * i] read "
                      f"at line {read} is overwritten as a[i] at line {write} in a later "
                      "iteration of i")


def test_a_scalars_dependences_are_one_row() -> None:
    a = analyse(conv2d, np.ones((6, 6)), np.ones((3, 3)), np.zeros((4, 4)))
    assert sum(1 for d in a.dependences if d.array == "s") == 16
    (group,) = [r for r in rows(a.dependences) if isinstance(r, ScalarGroup)]
    assert group.scalar == "s" and len(group.ids) == 16
    assert group.counts == "8 RAW, 4 WAR, 4 WAW" and group.value_based == 4
    assert group.statements == ("S0", "S1", "S2") and group.carried_by == ("i", "j", "a", "b")
    text = text_report(a)
    assert text.count("\n  s (scalar): 16 dependences (8 RAW, 4 WAR, 4 WAW; 4 value-based") == 1
    assert "S0:s" not in text  # no row of its own any more
    # every array dependence keeps its row
    arrays = [r for r in rows(a.dependences) if not isinstance(r, ScalarGroup)]
    assert [k for k, _ in arrays] == [k for k, d in enumerate(a.dependences) if d.array != "s"]


def test_grouped_rows_in_the_html_table() -> None:
    k = polyopt.jit(conv2d)
    html = k.report(np.ones((6, 6)), np.ones((3, 3)), np.zeros((4, 4)))._repr_html_()
    assert "<details><summary>16 relations</summary>" in html
    assert html.count("<td>(scalar)</td>") == 1


def test_id_ranges() -> None:
    assert id_ranges((0, 2, 3, 4, 7)) == "#0, #2-#4, #7"
    assert id_ranges((5,)) == "#5"
