"""Dependence analysis and loop verdicts against answers derived by hand.

Loop verdicts are checked on the source order (``auto=False``), where the hand
derivation is simplest; the dependences themselves are properties of the
source program, the same whatever schedule the automatic scheduler picks.
Statements are found by their source text and loops by their label (the
iterator, with ``@line`` where the name repeats), never by position.
"""

from __future__ import annotations

import inspect

import kernels
import numpy as np
import pytest
from polyopt.frontends.c import parse_c_file

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.analysis.describe import DependenceInfo
from polyopt.model import names
from polyopt.report.analysis import Analysis


def analyse(fn, *args, **options) -> Analysis:
    options.setdefault("auto", False)
    return polyopt.jit(fn, **options).dependences(*args)


def stmt(a: Analysis, source: str) -> str:
    """The name of the statement whose source text is ``source``."""
    names = [s.name for s in a.statements if s.source == source]
    assert len(names) == 1, f"{source!r} in {[s.source for s in a.statements]}"
    return names[0]


def deps(a: Analysis, *, kind: str | None = None, value_based: bool | None = None,
         source: str | None = None, sink: str | None = None, array: str | None = None,
         sink_access: str | None = None) -> list[DependenceInfo]:
    """The dependences matching every given field (statements given by source text)."""
    out = []
    for d in a.dependences:
        if kind is not None and d.kind != kind:
            continue
        if value_based is not None and d.value_based != value_based:
            continue
        if source is not None and d.source != stmt(a, source):
            continue
        if sink is not None and d.sink != stmt(a, sink):
            continue
        if array is not None and d.array != array:
            continue
        if sink_access is not None and d.sink_access != sink_access:
            continue
        out.append(d)
    return out


def one(found: list[DependenceInfo]) -> DependenceInfo:
    assert len(found) == 1, found
    return found[0]


def at(fn, header: str, occurrence: int = 0) -> str:
    """``"i@<line>"``: the label of the ``occurrence``-th loop ``header`` in ``fn``."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, text in enumerate(lines) if text.strip() == header]
    var = header.split()[1]
    return f"{var}@{hits[occurrence]}"


def _f(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape)


def signature_of(d: DependenceInfo) -> tuple:
    return (d.kind, d.value_based, d.source, d.sink, d.source_access, d.sink_access,
            d.carried_by, d.distance, d.direction, d.reduction)


# --- gemm ---------------------------------------------------------------------------------


def test_gemm():
    a = analyse(kernels.gemm, 1.5, 1.2, _f(4, 5), _f(4, 3), _f(3, 5))
    assert [lp.label for lp in a.loops] == ["i", "j", "k"]
    assert a.loop("i").verdict == "parallel"
    assert a.loop("j").verdict == "parallel"
    k = a.loop("k")
    assert k.verdict == "reduction"
    assert k.reductions == (("+", "C"),)
    assert k.blocking == () and k.reason == ""
    update = "C[i, j] += alpha * A[i, k] * B[k, j]"
    scale = "C[i, j] *= beta"
    acc = one(deps(a, kind="flow", value_based=True, source=update, sink=update))
    assert acc.array == "C"
    assert acc.loops == ("i", "j", "k")
    assert acc.carried_by == ("k",)
    assert acc.distance == (0, 0, 1)
    assert acc.direction == ("=", "=", "<")
    assert acc.reduction
    # the scaling feeds the first update of the same (i, j): loop-independent
    first = one(deps(a, kind="flow", value_based=True, source=scale, sink=update))
    assert first.carried_by == ()
    assert first.distance == (0, 0) and first.direction == ("=", "=")
    assert not first.reduction
    # nothing is carried by i or j
    assert all(not set(d.carried_by) & {"i", "j"} for d in a.dependences)
    # the memory-based self-dependences of the update are reductions carried by k
    for kind in ("flow", "anti", "output"):
        d = one(deps(a, kind=kind, value_based=False, source=update, sink=update))
        assert d.carried_by == ("k",) and d.reduction
        assert d.distance[:2] == (0, 0) and d.direction[2] == "<"


def test_dependences_do_not_depend_on_the_schedule():
    args = (1.5, 1.2, _f(4, 5), _f(4, 3), _f(3, 5))
    source_order = analyse(kernels.gemm, *args)
    scheduled = analyse(kernels.gemm, *args, auto=True)
    assert sorted(map(signature_of, source_order.dependences)) == sorted(
        map(signature_of, scheduled.dependences))


def test_matmul_with_a_scalar_accumulator():
    a = analyse(kernels.matmul_acc, _f(3, 4), _f(4, 5), _f(3, 5))
    for label in ("i", "j"):
        lp = a.loop(label)
        assert lp.verdict == "parallel", lp
        assert lp.private == ("s",)
    k = a.loop("k")
    assert k.verdict == "reduction" and k.reductions == (("+", "s"),)
    init, update, store = "s = 0.0", "s += A[i, k] * B[k, j]", "C[i, j] = s"
    assert one(deps(a, kind="flow", value_based=True, source=init, sink=update)).carried_by == ()
    acc = one(deps(a, kind="flow", value_based=True, source=update, sink=update))
    assert (acc.carried_by, acc.distance, acc.reduction) == (("k",), (0, 0, 1), True)
    # the store reads the last update of the same (i, j) (or the initial value when
    # the k loop is empty)
    assert one(deps(a, kind="flow", value_based=True, source=update, sink=store)).distance == (0, 0)
    assert one(deps(a, kind="flow", value_based=True, source=init, sink=store)).distance == (0, 0)
    # memory-based, s is one location: i and j carry dependences that privatization removes
    assert any("i" in d.carried_by for d in deps(a, value_based=False, array="s"))


# --- recurrences --------------------------------------------------------------------------


def test_prefix_sum_is_sequential_and_names_the_flow():
    a = analyse(kernels.prefix_sum, _f(6))
    lp = a.loop("i")
    assert lp.verdict == "sequential"
    assert lp.reductions == ()
    blocking = lp.blocking[0]
    assert blocking.kind == "flow" and blocking.array == "x"
    assert blocking.sink_access == "x[i - 1]" and blocking.distance == (1,)
    assert "flow (read after write) on x" in lp.reason
    assert "x[i - 1]" in lp.reason and "carried by loop i" in lp.reason
    line = inspect.getsourcelines(kernels.prefix_sum)[1] + 3
    assert f"line {line}" in lp.reason
    flow = one(deps(a, kind="flow", value_based=True))
    assert (flow.source_access, flow.sink_access) == ("x[i]", "x[i - 1]")
    assert (flow.carried_by, flow.distance, flow.direction) == (("i",), (1,), ("<",))


def test_scalar_running_sum_read_in_the_loop_is_sequential():
    def running(x, y):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i]
            y[i] = s

    a = analyse(running, _f(5), _f(5))
    lp = a.loop("i")
    assert lp.verdict == "sequential"
    assert lp.blocking[0].array == "s" and not lp.blocking[0].reduction


# --- stencils -----------------------------------------------------------------------------


def test_jacobi_1d_time_loop_is_sequential_space_loops_parallel():
    fn = kernels.jacobi_1d
    a = analyse(fn, 3, _f(8), _f(8))
    first, second = at(fn, "for i in range(1, n - 1):", 0), at(fn, "for i in range(1, n - 1):", 1)
    assert [lp.label for lp in a.loops] == ["t", first, second]
    assert a.loop("t").verdict == "sequential"
    assert "carried by loop t" in a.loop("t").reason
    assert a.loop(first).verdict == "parallel"
    assert a.loop(second).verdict == "parallel"
    to_b = "B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])"
    to_a = "A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])"
    # within a time step, B flows from the first nest to the second: not carried by t
    for d in deps(a, kind="flow", value_based=True, source=to_b, sink=to_a):
        assert d.carried_by == () and d.distance == (0,)
    assert len(deps(a, kind="flow", value_based=True, source=to_b, sink=to_a)) == 3
    # A flows from the second nest to the first of the next step: distance 1 in t
    back = deps(a, kind="flow", value_based=True, source=to_a, sink=to_b)
    assert sorted(d.sink_access for d in back) == ["A[i + 1]", "A[i - 1]", "A[i]"]
    for d in back:
        assert d.carried_by == ("t",) and d.distance == (1,)


def test_seidel_everything_sequential_with_exact_distances():
    a = analyse(kernels.seidel_2d, 2, _f(6, 6))
    for label in ("t", "i", "j"):
        assert a.loop(label).verdict == "sequential", label
    flows = deps(a, kind="flow", value_based=True)
    got = {d.sink_access: d.distance for d in flows}
    # A[i + di, j + dj] reads this sweep's value when (di, dj) < (0, 0), else the last sweep's
    expected = {}
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            name = "A[" + _offset("i", di) + ", " + _offset("j", dj) + "]"
            expected[name] = (0, -di, -dj) if (di, dj) < (0, 0) else (1, -di, -dj)
    assert got == expected
    for d in flows:
        first_nonzero = next(k for k, v in enumerate(d.distance) if v != 0)
        assert d.carried_by == (("t", "i", "j")[first_nonzero],)


def _offset(var: str, k: int) -> str:
    return var if k == 0 else f"{var} + {k}" if k > 0 else f"{var} - {-k}"


# --- chains of loops ----------------------------------------------------------------------


def test_row_sum_then_scale():
    fn = kernels.rowsum_scale
    a = analyse(fn, _f(3, 4), _f(3, 4))
    i1, j1 = at(fn, "for i in range(n):", 0), at(fn, "for j in range(m):", 0)
    i2, j2 = at(fn, "for i in range(n):", 1), at(fn, "for j in range(m):", 1)
    assert a.loop(i1).verdict == "parallel"
    assert a.loop(j1).verdict == "reduction" and a.loop(j1).reductions == (("+", "rs"),)
    assert a.loop(i2).verdict == "parallel"
    assert a.loop(j2).verdict == "parallel"
    # np.zeros is a statement of its own, in a loop of its own, and is parallel
    fill = [lp for lp in a.loops if lp.label not in (i1, j1, i2, j2)]
    assert len(fill) == 1 and fill[0].verdict == "parallel"
    red, use = "rs[i] += A[i, j]", "out[i, j] = A[i, j] * rs[i]"
    flow = one(deps(a, kind="flow", value_based=True, source=red, sink=use))
    assert flow.array == "rs" and flow.carried_by == () and flow.loops == ()
    zeros = [s.name for s in a.statements if s.source.startswith("rs = np.zeros")]
    assert len(zeros) == 1
    assert any(d.source == zeros[0] and d.sink == stmt(a, red)
               for d in deps(a, kind="flow", value_based=True))


def test_reduce_reduce_elementwise_chain():
    fn = kernels.reduce_reduce_map
    a = analyse(fn, _f(6), _f(6))
    first, second, third = (at(fn, "for i in range(n):", k) for k in range(3))
    assert a.loop(first).reductions == (("+", "total"),)
    assert a.loop(second).reductions == (("+", "sq"),)
    assert a.loop(first).verdict == a.loop(second).verdict == "reduction"
    assert a.loop(third).verdict == "parallel"
    total, sq, out = "total += x[i]", "sq += (x[i] - total) ** 2", "y[i] = (x[i] - total) * sq"
    for src, dst, var in ((total, sq, "total"), (total, out, "total"), (sq, out, "sq")):
        d = one(deps(a, kind="flow", value_based=True, source=src, sink=dst))
        assert d.array == var and d.carried_by == ()


def test_loop_independent_dependence():
    def two_statements(x, y, z):
        for i in range(x.shape[0]):
            y[i] = x[i] * 2.0
            z[i] = y[i] + 1.0

    a = analyse(two_statements, _f(4), _f(4), _f(4))
    assert a.loop("i").verdict == "parallel"
    d = one(deps(a, kind="flow", value_based=True))
    assert (d.array, d.carried_by, d.distance, d.direction) == ("y", (), (0,), ("=",))
    assert all(x.carried_by == () for x in a.dependences)


def test_value_based_flow_skips_overwritten_values():
    def overwrite(x, t, y):
        for i in range(x.shape[0]):
            t[i] = x[i]
            t[i] = x[i] * 2.0
            y[i] = t[i]

    a = analyse(overwrite, _f(4), _f(4), _f(4))
    value = one(deps(a, kind="flow", value_based=True))
    assert value.source == stmt(a, "t[i] = x[i] * 2.0")
    memory = deps(a, kind="flow", value_based=False)
    assert {d.source for d in memory} == {stmt(a, "t[i] = x[i]"), stmt(a, "t[i] = x[i] * 2.0")}


def test_affine_condition_removes_a_dependence():
    def parity(x):
        n = x.shape[0]
        for i in range(n - 1):
            if i % 2 == 0:
                x[i + 1] = x[i] * 2.0  # writes odd elements, reads even ones

    a = analyse(parity, _f(6))
    assert a.dependences == ()
    assert a.loop("i").verdict == "parallel"


def test_reads_in_a_branch_of_an_affine_conditional_happen_only_there():
    def running(x, y):
        n = x.shape[0]
        for i in range(n):
            x[i] = (x[i - 1] if i > 0 else 0.0) + y[i]

    a = analyse(running, _f(5), _f(5))
    flow = one(deps(a, kind="flow", value_based=True))
    assert (flow.sink_access, flow.distance, flow.carried_by) == ("x[i - 1]", (1,), ("i",))
    kernel = polyopt.jit(running)
    x, y = np.zeros(5), np.arange(5.0)
    kernel(x, y)  # x[-1] is never read: no IndexError
    np.testing.assert_array_equal(x, np.cumsum(y))


# --- negative steps -----------------------------------------------------------------------


def test_negative_step_recurrence():
    a = analyse(kernels.suffix_sum, _f(6))
    lp = a.loop("i")
    assert lp.verdict == "sequential"
    d = one(deps(a, kind="flow", value_based=True))
    # x[i + 1] is written one iteration earlier in execution order (i counts down)
    assert (d.source_access, d.sink_access) == ("x[i]", "x[i + 1]")
    assert (d.carried_by, d.distance, d.direction) == (("i",), (1,), ("<",))


def test_a_stepped_loop_counts_its_distance_in_iterations():
    """The schema's distance is "sink iteration minus source iteration": ``x[i - 2]`` in
    ``range(2, n, 2)`` reads the previous iteration's value, and ``x[i + 3]`` in a loop
    counting down by 3 too, where the iterator moved by 2 and 3 (these read 2 and 3)."""
    def up(x):
        n = x.shape[0]
        for i in range(2, n, 2):
            x[i] = x[i - 2] + 1.0

    def down(x):
        n = x.shape[0]
        for i in range(n - 4, -1, -3):
            x[i] = x[i + 3] * 0.5

    for fn in (up, down):
        a = analyse(fn, _f(9))
        d = one(deps(a, kind="flow", value_based=True))
        assert (d.carried_by, d.distance, d.direction) == (("i",), (1,), ("<",)), fn.__name__
        assert "one iteration of i later (distance 1)" in a.loop("i").why


def test_a_guard_on_the_iterator_does_not_stretch_the_loops_iterations():
    """``if i % 3 == 0: a[i] = a[i - 3]`` in a step-1 loop: the guard skips iterations,
    it does not make them longer, so ``a[3]`` written at i = 3 is read at i = 6, three
    iterations of i later (distance 3, as the relation says, not 1)."""
    def guard3(a):
        n = a.shape[0]
        for i in range(3, n):
            if i % 3 == 0:
                a[i] = a[i - 3] + 1.0
            else:
                a[i] = a[i - 1] * 0.5

    def guard2_alone(a):
        n = a.shape[0]
        for i in range(2, n):
            if i % 2 == 0:
                a[i] = a[i - 2] + 1.0

    def guard4_step2(a):  # stride 4 of a step-2 loop: 2 iterations
        n = a.shape[0]
        for i in range(0, n, 2):
            if i % 4 == 0:
                a[i + 4] = a[i] + 1.0

    for fn, src, k in ((guard3, "a[i] = a[i - 3] + 1.0", 3),
                       (guard2_alone, "a[i] = a[i - 2] + 1.0", 2),
                       (guard4_step2, "a[i + 4] = a[i] + 1.0", 2)):
        a = analyse(fn, _f(20))
        d = one(deps(a, kind="flow", value_based=True, source=src, sink=src))
        assert (d.carried_by, d.distance, d.direction) == (("i",), (k,), ("<",)), fn.__name__
        moved = d.dependence.relation.deltas()  # the iterator's moves: a single value
        assert names.single_value(moved, 0) == 2 * k if fn is guard4_step2 else k
        assert f"{k} iterations of i later (distance {k})" in a.loop("i").why, fn.__name__


def test_a_c_loop_guarded_on_its_iterator_counts_its_own_step(tmp_path) -> None:
    path = tmp_path / "k.c"
    path.write_text("void k(int n, double a[100]) {\n#pragma scop\n"
                    "  for (int i = 3; i < n; i++)\n    if (i % 3 == 0)\n"
                    "      a[i] = a[i - 3] + 1.0;\n#pragma endscop\n}\n")
    scop = parse_c_file(path).regions[0].scop
    d = one([d for d in analyze(scop).flow if d.value_based])
    assert d.distance == (3,)


def test_negative_step_without_dependence_is_parallel():
    fn = kernels.step_neg2
    a = analyse(fn, _f(7), _f(7))
    for lp in a.loops:
        assert lp.verdict == "parallel", lp


def test_back_substitution_counts_down_sequentially():
    a = analyse(kernels.back_substitution, _f(4, 4), _f(4), _f(4))
    i, j = a.loop("i"), a.loop("j")
    assert i.verdict == "sequential" and i.private == ("s",)
    assert i.blocking[0].array == "x" and i.blocking[0].kind == "flow"
    assert j.verdict == "reduction" and j.reductions == (("+", "s"),)
    d = one(deps(a, kind="flow", value_based=True, array="x"))
    assert d.source_access == "x[i]" and d.sink_access == "x[j]"
    assert d.carried_by == ("i",) and d.direction == ("<",) and d.distance == (None,)


def test_array_reduction_over_an_outer_loop():
    fn = kernels.element_reduction
    a = analyse(fn, _f(3, 4), _f(4))
    i1 = at(fn, "for i in range(n):", 0)
    j = a.loop("j")
    assert a.loop(i1).verdict == "sequential"  # acc[0] += and acc[1] = max(..) mix operators
    assert j.verdict == "sequential"
    # one operator per element alone is a reduction
    def column_sums(A, y):
        n, m = A.shape
        for i in range(n):
            for j in range(m):
                y[j] += A[i, j]

    b = analyse(column_sums, _f(3, 4), _f(4))
    assert b.loop("i").verdict == "reduction" and b.loop("i").reductions == (("+", "y"),)
    assert b.loop("j").verdict == "parallel"


# --- reports ------------------------------------------------------------------------------


def test_report_text():
    kernel = polyopt.jit(kernels.prefix_sum, auto=False)
    text = kernel.report(_f(5))
    lines, first = inspect.getsourcelines(kernels.prefix_sum)
    assert "prefix_sum()" in text and kernels.__file__ in text
    assert f"i (line {first + 2}): sequential" in text
    assert (f"a recurrence: the value written to x[i] at line {first + 3} is read as x[i - 1] "
            f"at line {first + 3} one iteration of i later (distance 1)") in text
    assert f"line {first + 3}: x[i] += x[i - 1]" in text
    assert "RAW" in text and "value" in text and "memory" in text

    gemm = polyopt.jit(kernels.gemm, auto=False).report(1.5, 1.2, _f(3, 3), _f(3, 3), _f(3, 3))
    assert "i (line" in gemm and "j (line" in gemm
    assert "k (line" in gemm and "parallel as a reduction (+:C)" in gemm
    assert "[reduction]" in gemm and "(0, 0, 1)" in gemm


def test_report_before_any_call_infers_types():
    kernel = polyopt.jit(kernels.jacobi_1d, auto=False)
    text = kernel.report()
    assert "t (line" in text and "sequential" in text


def test_report_follows_the_last_call():
    kernel = polyopt.jit(kernels.f32_weak, auto=False)
    x = _f(4).astype(np.float32)
    kernel(x, x.copy())
    a = kernel.dependences()
    assert a.loop("i").verdict == "reduction"
    assert a.loop("i").reductions == (("+", "s"),)


@pytest.mark.parametrize("name", ["gemm", "seidel_2d", "rowsum_scale", "floyd_warshall"])
def test_report_of_the_scheduled_kernel_names_source_loops(name):
    case = kernels.CASES[name]
    kernel = polyopt.jit(case.fn)
    args = case.make(np.random.default_rng(0), 4)
    text = kernel.report(*args)
    a = kernel.dependences(*args)
    for s in a.statements:
        assert f"line {s.line}: {s.source}" in text
    for lp in a.loops:
        assert lp.label in text
        if lp.verdict == "sequential":
            assert lp.reason and "carried by loop" in lp.reason


def _cond_private(x, y):
    n = x.shape[0]
    t = 0.0
    for i in range(n):
        if i > 2:
            t = x[i]
        y[i] = t


def test_a_scalar_some_iterations_read_first_is_listed_private():
    """Hostile-user finding (stop 34, session b, 01): the loop was parallel with
    ``private: []`` while dependences on ``t`` are carried by it; ``t`` is private to each
    thread, starting from its value before the loop (the C's ``firstprivate(t)``)."""
    a = analyse(_cond_private, np.zeros(6), np.zeros(6))
    (lp,) = a.loops
    assert lp.verdict == "parallel" and lp.private == ("t",)
