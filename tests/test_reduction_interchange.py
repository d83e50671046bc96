"""Reduction interchange (polyopt/transforms/reduction_interchange.py): nussinov's ``k``
loop swapped with the ``j`` loop around it for its own statement, legal because integer
``max`` updates of one cell may run in any order; and the requests it must refuse."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.analysis.reductions import reductions
from polyopt.model.errors import IllegalTransformationError
from polyopt.model.options import Options
from polyopt.scheduler import auto
from polyopt.scheduler.nests import iterator_of, loops_around
from polyopt.transforms.reduction_interchange import interchange_reduction

ROOT = Path(__file__).resolve().parents[1]


def nussinov(seq, table):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < n:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < n:
                if i < j - 1:
                    table[i, j] = max(
                        table[i, j], table[i + 1, j - 1] + (1 if seq[i] + seq[j] == 3 else 0))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])


def float_max(table):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = max(table[i, j], table[i, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])


def reads_a_cell_too_early(table):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 2, n):
            table[i, j] = max(table[i, j], table[i + 1, j])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j] + table[i, j - 1])


def reads_between_updates(table, seen):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            seen[i, j] = table[i, j]  # before the k updates of the cell: they must stay after
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])


def int_sum_and_copy(table, out):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = table[i, j] + table[i, j - 1]
            for k in range(i + 1, j):
                table[i, j] += table[i, k] * table[k + 1, j]
            out[i, j] = table[i, j]  # after every update of the cell


def _ints(n: int, seed: int, dtype=np.int32) -> np.ndarray:
    return np.random.default_rng(seed).integers(-9, 9, (n, n)).astype(dtype)


def _inner(fn, *args):
    scop = parse_function(fn, polyopt.jit(fn)._sig_for(args, {}))
    red = next(s for s in scop.statements if len(s.iterators) == 3)
    j, k = (d for d in loops_around(scop.schedule, red.name) if d.name in ("j", "k"))
    return scop, analyze(scop), j.loop_id, k.loop_id, red.name


@pytest.mark.parametrize("n", [1, 2, 3, 4, 17, 40])
def test_nussinov_matches_python(n):
    seq = ((np.arange(n) + 1) % 4).astype(np.int32)
    check_against_python(polyopt.jit(nussinov), seq, _ints(n, n))


def test_nussinov_reduction_runs_along_rows():
    """The ``k`` statement's innermost loop is ``j`` (unit stride, vectorized), and the
    other statements stay in the loop that now runs ``k`` for it."""
    n = 12
    args = (np.zeros(n, np.int32), np.zeros((n, n), np.int32))
    scop, deps, *_ = _inner(nussinov, *args)
    new, _, tree = auto.schedule(scop, deps, Options())
    red = next(s for s in new.statements if len(s.iterators) == 3)
    around = loops_around(tree, red.name)
    assert [iterator_of(d, red.name) for d in around][-2:] == ["k", "j"]
    c = polyopt.jit(nussinov).c_source(*args)
    assert "table[(k + 1) * table_shape1 + j]" in c
    assert "#pragma omp simd\n" in c


def test_interchange_refused_for_a_float_max():
    """``max`` of floats is not exact: with a NaN, the first operand wins."""
    scop, deps, j, k, _ = _inner(float_max, np.zeros((5, 5)))
    assert not reductions(scop)[next(iter(reductions(scop)))].exact
    with pytest.raises(IllegalTransformationError, match="interchanging loops j and k"):
        interchange_reduction(scop, deps, scop.schedule, j, k)


@pytest.mark.parametrize("fn", [reads_a_cell_too_early, reads_between_updates])
def test_interchange_refused_where_a_cell_is_read_before_its_last_update(fn):
    args = (np.zeros((6, 6), np.int32),) + ((np.zeros((6, 6), np.int32),)
                                             if fn is reads_between_updates else ())
    scop, deps, j, k, _ = _inner(fn, *args)
    with pytest.raises(IllegalTransformationError, match="would reverse"):
        interchange_reduction(scop, deps, scop.schedule, j, k)


def test_interchange_of_an_integer_sum_is_legal_and_matches_python():
    args = (_ints(9, 1, np.int64), np.zeros((9, 9), np.int64))
    scop, deps, j, k, red = _inner(int_sum_and_copy, *args)
    new, tree = interchange_reduction(scop, deps, scop.schedule, j, k)
    assert [iterator_of(d, red) for d in loops_around(tree, red)][-2:] == ["k", "j"]
    assert new.schedule is tree
    for n in (1, 2, 5, 9, 23):
        check_against_python(polyopt.jit(int_sum_and_copy), _ints(n, n, np.int64),
                             np.zeros((n, n), np.int64))


@pytest.mark.parametrize("fn", [float_max, reads_a_cell_too_early])
def test_refused_programs_keep_their_order_and_match_python(fn):
    n = 13
    args = (np.random.default_rng(0).random((n, n)),) if fn is float_max else (_ints(n, 2),)
    check_against_python(polyopt.jit(fn), *args)
    scop, deps, *_ = _inner(fn, *args)
    _, _, tree = auto.schedule(scop, deps, Options())
    red = next(s for s in scop.statements if len(s.iterators) == 3)
    assert iterator_of(loops_around(tree, red.name)[-1], red.name) == "k"


def test_c_max_written_as_a_choice_is_a_reduction():
    """PolyBench/C's ``max_score(a, b)`` is ``a >= b ? a : b``: the C path swaps
    nussinov's loops too, and its output prints what the original prints."""
    proc = subprocess.run([sys.executable, "-m", "polyopt", "opt",
                           str(ROOT / "examples" / "c" / "nussinov.c"), "-o", "-"],
                          capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    region = proc.stdout[proc.stdout.index("optimized scop region"):]
    assert "#pragma omp simd" in region
    assert "table[c1 + 1][c2]" in region  # the column read is now a row read


def choice_forms(a, x):
    for i in range(a.shape[0]):
        x[0] = x[0] if x[0] >= a[i] else a[i]
        x[1] = a[i] if x[1] > a[i] else x[1]
        x[2] = a[i] if a[i] >= x[2] else x[2]
        x[3] = x[3] if a[i] > x[3] else a[i]


def test_choice_forms_recognized_on_ints_only():
    a = np.arange(5, dtype=np.int32)
    found = reductions(parse_function(choice_forms, polyopt.jit(choice_forms)._sig_for(
        (a, np.zeros(4, np.int32)), {})))
    assert sorted(r.op for r in found.values()) == ["max", "max", "min", "min"]
    floats = parse_function(choice_forms, polyopt.jit(choice_forms)._sig_for(
        (a.astype(float), np.zeros(4)), {}))
    assert not reductions(floats)
    for dtype in (np.int32, np.float64):
        check_against_python(polyopt.jit(choice_forms), np.array([3, -1, 7, 2], dtype),
                             np.array([0, 0, 9, 9], dtype))


# --- random programs of the nussinov family -------------------------------------------

_BESIDE = [
    "T[i, j] = {op}(T[i, j], T[i, j - 1])",
    "if i + 1 < n:\n                T[i, j] = {op}(T[i, j], T[i + 1, j])",
    "T[i, j] = {op}(T[i, j], w[j] + 1)",
    "seen[i, j] = T[i, j]",
    "T[i, j] = w[i]",
]
_INNER = [
    "T[i, j] = {op}(T[i, j], T[i, k] + T[k + 1, j])",
    "T[i, j] = {op}(T[i, j], T[k + 1, j] - w[k])",
    "T[i, j] = {op}(T[i, j], T[i, k] + T[k + 1, j] + T[i, j - 1])",
    "T[i, j] = {op}(T[i, j], T[k, j] + 1)",
    "T[i, j] = {op}(T[i, j], seen[i, k])",
]
_AFTER = ["seen[i, j] = T[i, j]", "T[i, j] = {op}(T[i, j], w[j])", ""]


def _random_program(rng: random.Random) -> str:
    ops = [rng.choice(["max", "min"]) for _ in range(3)]
    beside = [rng.choice(_BESIDE).format(op=ops[0]) for _ in range(rng.randint(0, 2))]
    inner = rng.choice(_INNER).format(op=ops[1])
    after = rng.choice(_AFTER).format(op=ops[2])
    body = "".join(f"            {s}\n" for s in beside)
    body += f"            for k in range(i + 1, j):\n                {inner}\n"
    body += f"            {after}\n" if after else ""
    start = rng.choice(["i + 1", "i + 2"])
    return (f"def k(T, w, seen):\n    n = T.shape[0]\n"
            f"    for i in range(n - 1, -1, -1):\n        for j in range({start}, n):\n{body}")


@pytest.mark.parametrize("seed", range(16))
def test_random_programs_of_the_nussinov_family_match_python(seed, tmp_path):
    """Generated variants, each against CPython: integer and float cells, statements
    beside the reduction loop and after it, reads that make the swap illegal."""
    rng = random.Random(seed)
    path = tmp_path / f"nussinov_variant_{seed}.py"
    path.write_text(_random_program(rng))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    n = rng.choice([1, 2, 3, 7, 19])
    dtype = rng.choice([np.int32, np.int64, np.float64])
    values = np.random.default_rng(seed)
    check_against_python(polyopt.jit(module.k), values.integers(-5, 5, (n, n)).astype(dtype),
                         values.integers(-5, 5, n).astype(dtype), np.zeros((n, n), dtype))


def test_report_names_the_swap_and_the_inner_loop():
    n = 9
    f = polyopt.jit(nussinov)
    f(np.zeros(n, np.int32), np.zeros((n, n), np.int32))
    text = f.report()
    assert "[reduction interchange] loops j and k swapped for S4 (line" in text
    assert ".vectorize('j.inner')" in text  # a name that steps resolve to that loop alone
    # the last call's types (int32) are the ones a schedule without arguments analyses
    auto_then_simd = polyopt.schedule(f, start="auto").vectorize("j.inner")
    check_against_python(auto_then_simd.compile(), np.zeros(n, np.int32), _ints(n, 3))


def test_user_step_swaps_and_later_steps_see_the_new_program():
    """``.reduction_interchange(j, k)`` from the source order; the ``parallelize`` after it
    is checked on the new program's dependences (``j.inner`` carries none there), and the
    schedule survives its JSON."""
    n = 11
    f = polyopt.jit(nussinov)
    seq = ((np.arange(n) + 1) % 4).astype(np.int32)
    f(seq, np.zeros((n, n), np.int32))
    sched = polyopt.schedule(f).reduction_interchange("j", "k").parallelize("j.inner")
    assert "j.inner" in sched.loops()
    for kernel in (sched.compile(),
                   polyopt.Schedule.from_json(f, sched.to_json()).compile()):
        check_against_python(kernel, seq, _ints(n, 5))
        assert "table[(k + 1) * table_shape1 + j]" in kernel.c_source(seq, _ints(n, 5))


def test_user_step_refused_for_a_float_max_and_for_loops_not_nested_so():
    f = polyopt.jit(float_max)
    f(np.zeros((4, 4)))
    with pytest.raises(IllegalTransformationError, match="interchanging loops j and k"):
        polyopt.schedule(f).reduction_interchange("j", "k")
    with pytest.raises(polyopt.PolyoptError, match="is not directly inside loop"):
        polyopt.schedule(f).reduction_interchange("i", "k")
    # a loop tiling made is named as schedule.loops() lists it, not by its id (L1.tile)
    tiled = polyopt.schedule(f).tile(["i", "j"], [2, 2])
    assert "j.tile" in tiled.loops()
    with pytest.raises(polyopt.PolyoptError, match=r"^loop j\.tile is not directly inside loop i$"):
        tiled.reduction_interchange("i", "j.tile")


def lu_lower(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]


def test_float_update_swapped_with_the_statement_after_it_moved_first():
    """lu's lower part: each element's updates keep their order (``k`` ascending becomes
    the outer loop), so floats are fine; the division after the ``k`` loop must now run
    before the swapped loop reads ``A[i, m]``, so the swapped loop goes last."""
    A = np.random.default_rng(0).random((7, 7)) + 7 * np.eye(7)
    scop, deps, j, k, red = _inner(lu_lower, A)
    _, tree = interchange_reduction(scop, deps, scop.schedule, j, k)
    assert [iterator_of(d, red) for d in loops_around(tree, red)][-2:] == ["k", "j"]
    division = next(s.name for s in scop.statements if len(s.iterators) == 2)
    from polyopt.model.schedule_tree import statements
    assert statements(tree).index(division) < statements(tree).index(red)
    for n in (1, 2, 3, 8, 21):
        A = np.random.default_rng(n).random((n, n)) + n * np.eye(n)
        exact = polyopt.jit(lu_lower, strict_fp=True)
        mine, theirs = A.copy(), A.copy()
        exact(mine)
        lu_lower(theirs)
        assert np.array_equal(mine, theirs)  # the same operations in the same order


def two_nests(T, U):
    n = T.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            T[i, j] = max(T[i, j], T[i, j - 1])
            for k in range(i + 1, j):
                T[i, j] = max(T[i, j], T[i, k] + T[k + 1, j])
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            U[i, j] = min(U[i, j], U[i, j - 1])
            for k in range(i + 1, j):
                U[i, j] = min(U[i, j], U[i, k] + U[k + 1, j])


def test_report_has_one_record_and_step_per_swap():
    """Two nests swapped in one phase: a record each, whose steps replayed on the source
    order give the same loops."""
    n = 7
    f = polyopt.jit(two_nests)
    f(_ints(n, 1), _ints(n, 2))
    records = [a for a in f.plan(f.analysed_signature).applied
               if a.phase == "reduction interchange"]
    assert len(records) == 2 and records[0].loops != records[1].loops
    sched = polyopt.schedule(f)
    for a in records:
        (step,) = a.steps
        sched = sched.reduction_interchange(*step.args)
    assert [x for x in sched.loops() if x.endswith(".inner")] == [
        f"{records[0].loops[0]}.inner", f"{records[1].loops[0]}.inner"]
    check_against_python(sched.compile(), _ints(n, 3), _ints(n, 4))
