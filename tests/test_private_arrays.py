"""Per-thread copies of arrays.

Private arrays: a loop whose iterations each use an array as scratch space runs in
parallel with a copy of the array per thread, and the copy of the sequentially last
iteration becomes the array's final state.  Array reductions: each thread reduces into
its own copy, and the copies are combined into the array after the loop.

Differential tests compare with CPython, scratch array included (it is an argument,
so its final contents are part of the result).  Refusals: a read of a value written
before the loop or by another iteration, and a last iteration that leaves some
element to an earlier one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python

import polyopt
from polyopt.analysis import verdicts as parallel
from polyopt.analysis.dependences import DepKind

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt
from examples.polybench import KERNELS  # noqa: E402

doitgen = KERNELS["doitgen"].kernel  # A[r, q, :] = A[r, q, :] @ C4 through the scratch sum_


def row_scratch(A, B, tmp):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            tmp[j] = A[i, j] * 2.0
        for j in range(m):
            B[i, j] = tmp[j] + tmp[m - 1 - j]


def shrinking_scratch(A, B, tmp):
    # the last iteration writes tmp[0] only: earlier rows' values of tmp[1:] are final
    n = A.shape[0]
    for i in range(n):
        for j in range(n - i):
            tmp[j] = A[i, j] + 1.0
        for j in range(n - i):
            B[i, j] = tmp[j] * 3.0


def carried_scratch(A, B, tmp):
    # row i reads tmp[j] as row i - 1 left it
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            B[i, j] = tmp[j]
        for j in range(m):
            tmp[j] = A[i, j]


def partial_row(A, B, tmp):
    # tmp[j] for j >= 1 is read before this iteration writes it: the value from the
    # previous row (or from before the loop)
    n, m = A.shape
    for i in range(n):
        tmp[0] = A[i, 0]
        for j in range(m):
            B[i, j] = tmp[j] * 0.5


def bicg_like(A, r, p, s, q):
    # s[j] is reduced over i (an array reduction of the i loop), q[i] over j
    n, m = A.shape
    for i in range(n):
        q[i] = 0.0
        for j in range(m):
            s[j] = s[j] + r[i] * A[i, j]
            q[i] = q[i] + A[i, j] * p[j]


def column_extremes(A, lo, hi, q):
    n, m = A.shape
    for i in range(n):
        q[i] = 0
        for j in range(m):
            lo[j] = min(lo[j], A[i, j])
            hi[j] = max(A[i, j], hi[j])
            q[i] = q[i] + A[i, j]


def int_column_products(A, prod, q):
    n, m = A.shape
    for i in range(n):
        q[i] = 0
        for j in range(m):
            prod[j] *= A[i, j]
            q[i] += A[i, j]


def _args(rng, fn):
    if fn is doitgen:
        return (rng.random((7, 5, 9)), rng.random((9, 9)), rng.random(9))
    n = 11
    return (rng.random((n, n)), np.zeros((n, n)), rng.random(n))


def _verdict(fn, loop: str, *args):
    k = polyopt.jit(fn)
    p = k.plan(k._sig_for(args, {}))
    v = parallel.verdicts(p.source, p.source_deps, p.source.schedule)
    (out,) = [x for x in v.values() if x.label == loop]
    return out


@pytest.mark.parametrize("fn", [doitgen, row_scratch])
def test_scratch_array_is_private_and_results_equal_python(rng, fn):
    args = _args(rng, fn)
    k = polyopt.jit(fn)
    c = k.c_source(*args)
    assert "lastprivate(polyopt_last_" in c and "memcpy(" in c, c
    scratch = "sum_" if fn is doitgen else "tmp"
    loop = "r" if fn is doitgen else "i"
    v = _verdict(fn, loop, *args)
    assert v.kind == parallel.PARALLEL and v.private_arrays == (scratch,), v
    check_against_python(k, *args)


def test_private_copies_off_the_team_and_without_openmp_threads(rng, monkeypatch):
    # with POLYOPT_PARALLEL_MIN above the work, the loop runs on one thread in the
    # array itself; results are the same
    monkeypatch.setenv("POLYOPT_PARALLEL_MIN", str(1 << 40))
    k = polyopt.jit(row_scratch)
    args = _args(rng, row_scratch)
    check_against_python(k, *args)


def test_doitgen_inner_loop_runs_unit_stride_once_r_is_parallel(rng):
    c = polyopt.jit(doitgen).c_source(*_args(rng, doitgen))
    # the reduction over s is outside the vectorized p loop: C4[s, p] is read along rows
    body = c[c.index("sum_[p] += A[r, q, s] * C4[s, p]") - 600:]
    assert "#pragma omp simd\n" in body[:700], body[:700]


@pytest.mark.parametrize("fn", [shrinking_scratch, carried_scratch, partial_row])
def test_scratch_array_that_cannot_be_private_keeps_the_loop_in_order(rng, fn):
    args = _args(rng, fn)
    v = _verdict(fn, "i", *args)
    assert v.kind == parallel.SEQUENTIAL, v
    assert any(d.array == "tmp" for d in v.blocking), v
    k = polyopt.jit(fn)
    assert "lastprivate(polyopt_last_" not in k.c_source(*args)
    check_against_python(k, *args)


@pytest.mark.parametrize("fn", [shrinking_scratch, carried_scratch, partial_row])
def test_parallelize_refuses_a_scratch_array_that_cannot_be_private(fn):
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        polyopt.schedule(fn).parallelize("i")
    err = info.value
    assert err.violated and all(d.array == "tmp" for d in err.violated), str(err)
    assert "tmp" in str(err)


def test_parallelize_accepts_a_private_scratch_array(rng):
    s = polyopt.schedule(row_scratch).parallelize("i")
    args = _args(rng, row_scratch)
    check_against_python(s.compile(), *args)


def test_carried_flow_is_named_in_the_refusal():
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        polyopt.schedule(carried_scratch).parallelize("i")
    kinds = {d.kind for d in info.value.violated}
    assert DepKind.FLOW in kinds or DepKind.ANTI in kinds, info.value


def _reduction_args(rng, fn, n=37, m=29, ints=False):
    A = rng.random((n, m)) - 0.5
    if fn is bicg_like:
        return (A, rng.random(n), rng.random(m), rng.random(m), np.zeros(n))
    if fn is column_extremes and not ints:
        return (A, rng.random(m), rng.random(m) - 1.0, np.zeros(n))
    Ai = rng.integers(-2, 3, size=(n, m)).astype(np.int64)
    if fn is column_extremes:  # ints: min/max exact, an array reduction on copies
        return (Ai, np.full(m, 9), np.full(m, -9), np.zeros(n, dtype=np.int64))
    return (Ai, rng.integers(1, 3, size=m).astype(np.int64), np.zeros(n, dtype=np.int64))


@pytest.mark.parametrize("fn, ints", [(bicg_like, False), (column_extremes, True),
                                      (int_column_products, False)])
def test_array_reduction_runs_on_copies_and_results_equal_python(rng, fn, ints):
    args = _reduction_args(rng, fn, ints=ints)
    k = polyopt.jit(fn)
    c = k.c_source(*args)
    assert "polyopt_pool_" in c and "omp_get_num_threads()" in c, c
    assert "reduction(+:s[0:" not in c  # never OpenMP's array sections (on the stack)
    check_against_python(k, *args)


def test_float_builtin_extremes_keep_their_order(rng):
    """A float max()/min() reduction is not run on copies unasked: with a NaN, CPython's
    answer depends on the order of the updates (test_nan_minmax.py)."""
    A, lo, hi, q = _reduction_args(rng, column_extremes)
    A[5, 3] = A[20, 7] = np.nan
    k = polyopt.jit(column_extremes)
    assert "polyopt_pool_lo" not in k.c_source(A, lo, hi, q)
    check_against_python(k, A, lo, hi, q)


def test_array_reduction_copies_are_not_used_under_strict_fp(rng):
    args = _reduction_args(rng, bicg_like)
    c = polyopt.jit(bicg_like, strict_fp=True).c_source(*args)
    assert "polyopt_pool_" not in c and "reduction(" not in c


def test_array_reduction_off_the_team_runs_in_the_array(rng, monkeypatch):
    monkeypatch.setenv("POLYOPT_PARALLEL_MIN", str(1 << 40))
    args = _reduction_args(rng, bicg_like)
    check_against_python(polyopt.jit(bicg_like), *args)


_ZERO_TRIP = '''
import numpy as np, polyopt

def kern(B, x, n):
    for i in range(n):
        for j in range(1, n):
            x[i] = B[i, i] + B[j, i]

k = polyopt.jit(kern, num_threads=4)
src = k.c_source(np.ones((4, 4)), np.zeros(4), 0)
assert "firstprivate(polyopt_last_x) lastprivate(polyopt_last_x)" in src, src
for rep in range(20):
    x = np.arange(1.0, 5.0)
    k(np.ones((4, 4)), x, 0)
    assert np.array_equal(x, np.arange(1.0, 5.0)), x
'''


def test_a_private_array_loop_of_no_iteration_copies_nothing_back(tmp_path):
    """Hostile finding 03: with ``n == 0`` the parallel loop has no last iteration, and
    gcc copied out an uninitialized ``lastprivate`` pointer, from which the array was
    copied back: garbage in ``x``, or a crash.  In a child process, which a wild copy
    may kill."""
    import os
    import subprocess

    script = tmp_path / "zero_trip.py"
    script.write_text(_ZERO_TRIP)
    env = dict(os.environ, POLYOPT_PARALLEL_MIN="0", POLYOPT_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def earlier_run_covers(A, B, tmp):
    # in the second run of the i loop, tmp[j] holds what the first run's last row left:
    # no iteration of that run writes it, and each copy starts as the array
    n, m = A.shape
    for t in range(2):
        for i in range(n):
            if t == 0:
                for j in range(m):
                    tmp[j] = A[i, j] + 1.0
            for j in range(m):
                B[t, i, j] = tmp[j] * 0.5


def test_a_private_array_may_read_what_an_earlier_run_of_the_loop_left(rng):
    """The memory-based test of the first condition (each read has a write of its
    element earlier in its iteration) fails here; isl's dataflow still proves it."""
    args = (rng.random((6, 5)), np.zeros((2, 6, 5)), np.zeros(5))
    v = _verdict(earlier_run_covers, "i", *args)
    assert v.kind == parallel.PARALLEL and v.private_arrays == ("tmp",), v
    check_against_python(polyopt.schedule(earlier_run_covers).parallelize("i").compile(),
                         *args)
