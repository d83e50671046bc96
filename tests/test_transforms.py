"""User-directed schedules: every primitive, legal and illegal.

Legal uses must compute exactly what CPython computes.  Exactly means bit for
bit: the schedules are compiled with ``strict_fp=True`` (no reduction is run in
parallel or in SIMD lanes, so no floating-point sum is reassociated) and with
``-ffp-contract=off`` added to ``CFLAGS`` (otherwise ``-march=native`` lets the
C compiler fuse ``a * b + c`` into one FMA, which rounds once instead of twice:
a compiler choice that has nothing to do with the schedule).  Where a
primitive's point *is* to reassociate a reduction (``parallelize`` or
``vectorize`` of a loop that reduces into ``s += ...``), the result is compared
within the tolerances of ``conftest.TOLERANCES`` instead (float64: rtol 1e-9),
and the test says so.

Illegal uses must raise :class:`polyopt.IllegalTransformationError` whose
``violated[0]`` is the dependence that breaks (array, source and sink
statements, direction), and whose message names the source line.  Misuse
(an unknown loop, loops that are not perfectly nested) is a plain
:class:`polyopt.PolyoptError`, not an illegal transformation.
"""

from __future__ import annotations

import copy
import inspect
import os
import re

import islpy as isl
import numpy as np
import pytest
from conftest import check_against_python
from kernels import gemm, jacobi_1d, matmul_acc, prefix_sum, seidel_2d, tri_upper_sum
from polyopt.backend_c.build import DEFAULT_CFLAGS
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import DepKind, analyze
from polyopt.model.names import rename_set
from polyopt.model.schedule_tree import Leaf, Sequence, loops
from polyopt.transforms import licm as licm_module
from polyopt.transforms.skew import wavefront
from polyopt.transforms.split import split_diagonal_tiles, split_full_tiles
from polyopt.transforms.tree import normalize

SIZES = (0, 1, 2, 5, 7, 13)  # 13: odd, and no tile size or unroll factor used here divides it


@pytest.fixture(scope="module", autouse=True)
def _no_fma_contraction():
    """``-ffp-contract=off``: C rounds ``a * b + c`` twice, as CPython does."""
    flags = os.environ.get("CFLAGS", DEFAULT_CFLAGS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CFLAGS", f"{flags} -ffp-contract=off")
        yield


# --- kernels ---------------------------------------------------------------------------


def matmul(A, B, C):
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += A[i, k] * B[k, j]


def make_matmul(r, n):
    return r.standard_normal((n, n + 1)), r.standard_normal((n + 1, n + 2)), r.standard_normal((n, n + 2))


def make_matmul_acc(r, n):
    return r.standard_normal((n, n + 1)), r.standard_normal((n + 1, n + 2)), r.standard_normal((n, n + 2))


def seidel_1d(tsteps, A):
    n = A.shape[0]
    for t in range(tsteps):  # noqa: B007  (the time loop of a stencil)
        for i in range(1, n - 1):
            A[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0


def make_seidel_1d(r, n):
    return min(n, 4), r.standard_normal(n)


def make_seidel_2d(r, n):
    return min(n, 3), r.standard_normal((n, n))


def make_jacobi_1d(r, n):
    return min(n, 5), r.standard_normal(n), r.standard_normal(n)


def make_vec1(r, n):
    return (r.standard_normal(n),)


def make_vec2(r, n):
    return r.standard_normal(n), r.standard_normal(n)


def make_vec3(r, n):
    return r.standard_normal(n), r.standard_normal(n), r.standard_normal(n)


def make_gemm(r, n):
    return 1.5, 1.2, r.standard_normal((n, n + 2)), r.standard_normal((n, n + 1)), r.standard_normal((n + 1, n + 2))


def make_square2(r, n):
    return r.standard_normal((n, n)), r.standard_normal((n, n))


def producer_consumer(x, a, b):
    n = x.shape[0]
    for i in range(n):
        a[i] = x[i] * 2.0
    for i in range(n):
        b[i] = a[i] + x[i]


def consumer_reads_ahead(x, a, b):
    n = x.shape[0]
    for i in range(n):
        a[i] = x[i] * 2.0
    for i in range(n - 1):
        b[i] = a[i + 1] - a[i]


def consumer_reads_reversed(x, a, b):
    n = x.shape[0]
    for i in range(n):
        a[i] = x[i] * 2.0
    for i in range(n):
        b[i] = a[n - 1 - i]


def two_statements(x, a, b):
    n = x.shape[0]
    for i in range(1, n):
        a[i] = x[i] * 2.0
        b[i] = a[i] + a[i - 1]


def same_iteration(x, a, b):
    n = x.shape[0]
    for i in range(n):
        a[i] = x[i] * 2.0
        b[i] = a[i] + x[i]


def reads_next_iteration(x, a, b):
    n = x.shape[0]
    for i in range(1, n):
        a[i] = b[i - 1] + 1.0
        b[i] = x[i] * 2.0


def column_and_row_sums(A, s, q):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            s[j] = s[j] + A[i, j]
            q[i] = q[i] + A[i, j] * 2.0


def reads_the_running_sum(A, s, q):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            q[i] = q[i] + A[i, j]
            s[j] = q[i] * 0.5


def two_row_sums(A, s, q):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            q[i] = q[i] + A[i, j]
            s[i] = s[i] + A[i, j] * A[i, j]


def sum_feeds_sum(A, s, q):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            q[i] = q[i] + A[i, j]
            s[i] = s[i] + q[i] * 0.5


def make_sums(r, n):
    return r.standard_normal((n, n + 1)), r.standard_normal(n + 1), r.standard_normal(n)


def lagged(x, a, b):
    n = x.shape[0]
    for i in range(1, n):
        a[i] = x[i] * 2.0
        b[i] = a[i - 1] + 1.0


def spread(x, a, b):
    n = x.shape[0]
    for i in range(n // 2):
        a[2 * i] = x[i]
        b[i] = a[i] + 1.0


def two_rows(A, B):
    n = A.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i, j] = A[i, j - 1] + A[i, j] + A[i, j + 1]
            A[i - 1, j] = B[i, j - 1] * 0.5 + B[i - 1, j]


def diagonal(A, B):
    n = A.shape[0]
    for i in range(1, n):
        for j in range(1, n):
            A[i, j] = A[i - 1, j - 1] + B[i, j]


def dot(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


def int_sum(x):
    s = 0
    for i in range(x.shape[0]):
        s += i * (i % 3)
    return s


def row_accumulate(A, C):
    n, m = A.shape
    for i in range(n):
        for k in range(m):
            C[i] = C[i] * 0.5 + A[i, k]


def column_update(A, C):
    n, m = A.shape
    for i in range(n):
        for k in range(m):
            C[k] = C[k] * 0.5 + A[i, k]


def self_reading_row(A, C):
    n = C.shape[0]
    for i in range(n):
        for k in range(n):
            C[i] += C[k] * A[i, k]


def make_row(r, n):
    return r.standard_normal((n, n + 1)), r.standard_normal(max(n, n + 1))


def make_self_row(r, n):
    return 0.1 * r.standard_normal((n, n)), r.standard_normal(n)


# --- helpers ---------------------------------------------------------------------------


def line_of(fn, snippet: str) -> int:
    """The file line of the first line of ``fn``'s source containing ``snippet``."""
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if snippet in text:
            return first + k
    raise AssertionError(f"{snippet!r} not in {fn.__name__}")


def statement_at(fn, snippet: str) -> str:
    """The name (``S0``...) of the statement of ``fn`` on the line containing ``snippet``."""
    line = line_of(fn, snippet)
    names = [s.name for s in parse_function(fn).statements if s.location.line == line]
    assert len(names) == 1, (snippet, names)
    return names[0]


def assert_identical(kernel, make, sizes=SIZES, seed: int = 0) -> None:
    """Every array argument and the return value equal CPython's, bit for bit."""
    rng = np.random.default_rng(seed)
    for n in sizes:
        args = make(rng, n)
        py_args, c_args = copy.deepcopy(args), copy.deepcopy(args)
        expected = kernel.py_func(*py_args)
        actual = kernel(*c_args)
        for k, (p, c) in enumerate(zip(py_args, c_args, strict=True)):
            if isinstance(p, np.ndarray):
                np.testing.assert_array_equal(c, p, err_msg=f"argument {k}, n={n}")
        assert actual == expected or (expected is None and actual is None), (n, actual, expected)


def assert_close(kernel, make, sizes=SIZES, seed: int = 0) -> None:
    """Equal to CPython within conftest's tolerance (a reduction was reassociated)."""
    rng = np.random.default_rng(seed)
    for n in sizes:
        check_against_python(kernel, *make(rng, n))


def legal(s: polyopt.Schedule, make, sizes=SIZES) -> polyopt.Schedule:
    """``s`` compiles and computes exactly what CPython computes."""
    assert_identical(s.compile(strict_fp=True), make, sizes)
    return s


def illegal(build, *, array: str, source: str, sink: str, direction: tuple[str, ...],
            lines: tuple[int, ...], kind: DepKind | None = None) -> polyopt.IllegalTransformationError:
    """``build()`` raises IllegalTransformationError naming the expected dependence."""
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        build()
    err = info.value
    assert err.violated, f"no dependence named: {err}"
    d = err.violated[0]
    assert d.array == array, str(err)
    assert (d.source.statement, d.sink.statement) == (source, sink), str(err)
    assert d.source.target == array and d.sink.target == array
    assert d.direction == direction, str(err)
    if kind is not None:
        assert d.kind is kind, str(err)
    for line in lines:
        assert f"line {line}" in str(err), f"line {line} not in: {err}"
    return err


# --- interchange -----------------------------------------------------------------------


def test_interchange_matmul_is_exact():
    s = legal(polyopt.schedule(matmul).interchange("j", "k"), make_matmul)
    assert s.loops() == ["i", "k", "j"]
    legal(polyopt.schedule(matmul).interchange("i", "k"), make_matmul)


def test_interchange_t_i_of_seidel_1d_is_illegal():
    line = line_of(seidel_1d, "A[i] = (A[i - 1]")
    err = illegal(lambda: polyopt.schedule(seidel_1d).interchange("t", "i"),
                  array="A", source="S0", sink="S0", direction=("<", ">"), lines=(line,))
    assert err.violated[0].carried_by == (parse_function(seidel_1d).statement("S0").loops[0],)
    # either order of the names is the same request
    illegal(lambda: polyopt.schedule(seidel_1d).interchange("i", "t"),
            array="A", source="S0", sink="S0", direction=("<", ">"), lines=(line,))


def test_interchange_of_seidel_2d_is_illegal():
    line = line_of(seidel_2d, "A[i, j] = (A[i - 1, j - 1]")
    illegal(lambda: polyopt.schedule(seidel_2d).interchange("t", "i"),
            array="A", source="S0", sink="S0", direction=("<", ">", "<"), lines=(line,),
            kind=DepKind.FLOW)
    # i and j: A[i, j] is read as A[i - 1, j + 1] in the next i (same t) or in a later t;
    # its (i, j) direction is (<, >), which swapping i and j reverses
    err = illegal(lambda: polyopt.schedule(seidel_2d).interchange("i", "j"),
                  array="A", source="S0", sink="S0", direction=("<=", "<", ">"), lines=(line,))
    assert "interchanging loops i and j" in str(err)


def test_interchange_misuse_is_not_an_illegal_transformation():
    with pytest.raises(polyopt.PolyoptError, match="no loop named 'q'") as info:
        polyopt.schedule(matmul).interchange("i", "q")
    assert not isinstance(info.value, polyopt.IllegalTransformationError)
    # gemm's j loop holds a statement before the k loop: not perfectly nested
    with pytest.raises(polyopt.PolyoptError, match="perfectly nested") as info:
        polyopt.schedule(gemm).interchange("j", "k")
    assert not isinstance(info.value, polyopt.IllegalTransformationError)


# --- distribution and fusion -----------------------------------------------------------


def test_distribute_then_interchange_gemm_is_exact():
    s = polyopt.schedule(gemm).distribute("j")
    assert s.loops() == ["i", "j", "j#2", "k"]
    s = legal(s.interchange("j#2", "k"), make_gemm)
    assert s.loops() == ["i", "j", "k", "j#2"]


def test_distribute_is_exact_when_dependences_stay_forward():
    legal(polyopt.schedule(two_statements).distribute("i"), make_vec3)


def test_distribute_is_illegal_when_a_statement_reads_the_next_ones_earlier_write():
    illegal(lambda: polyopt.schedule(reads_next_iteration).distribute("i"),
            array="b", source="S1", sink="S0", direction=("<",), kind=DepKind.FLOW,
            lines=(line_of(reads_next_iteration, "a[i] = b[i - 1]"),
                   line_of(reads_next_iteration, "b[i] = x[i] * 2.0")))


def test_a_private_scalar_does_not_pin_the_loops_around_it():
    """matmul_acc reuses one scalar s in every (i, j) iteration: its anti and output
    dependences do not forbid reordering whole iterations (each writes s before reading
    it), but distributing j, which runs every `s = 0.0` before any `s += ...`, is illegal."""
    s = polyopt.schedule(matmul_acc)
    legal(s.interchange("i", "j"), make_matmul_acc)
    legal(s.tile(["i", "j"], [2, 3]), make_matmul_acc)
    init = statement_at(matmul_acc, "s = 0.0")
    update = statement_at(matmul_acc, "s += A[i, k] * B[k, j]")
    err = illegal(lambda: s.distribute("j"), array="s", source=update, sink=init,
                  direction=("<=", "*"), kind=DepKind.OUTPUT,
                  lines=(line_of(matmul_acc, "s = 0.0"), line_of(matmul_acc, "s += A[i, k]")))
    assert "distributing loop j" in str(err)


def test_fuse_producer_consumer_is_exact():
    s = polyopt.schedule(producer_consumer)
    first, second = s.loops()
    s = legal(s.fuse(first, second), make_vec3)
    assert s.loops() == [first]


def test_fuse_shifts_a_consumer_that_reads_ahead():
    """The consumer reads a[i + 1], written by the producer one iteration later: fused
    without a shift that is illegal; fusion shifts the consumer by one and is exact."""
    s = polyopt.schedule(consumer_reads_ahead)
    first, second = s.loops()
    fused = legal(s.fuse(first, second), make_vec3)
    assert fused.loops() == [first]
    c = fused.compile(strict_fp=True).c_source(*make_vec3(np.random.default_rng(0), 4))
    body = c[c.index("void polyopt_consumer_reads_ahead"):]
    assert body.count("for (") == 1  # one loop holds both statements
    assert re.search(r"const int64_t i = \(c0 - 1\);", body), body  # the shifted consumer


def test_fuse_is_illegal_when_no_shift_works():
    """The consumer reads a[n - 1 - i]: its first iteration needs the producer's last, so
    no constant shift keeps the flow dependence forward."""
    s = polyopt.schedule(consumer_reads_reversed)
    first, second = s.loops()
    producer = statement_at(consumer_reads_reversed, "a[i] = x[i] * 2.0")
    consumer = statement_at(consumer_reads_reversed, "b[i] = a[n - 1 - i]")
    err = illegal(lambda: s.fuse(first, second), array="a", source=producer, sink=consumer,
                  direction=(), kind=DepKind.FLOW,
                  lines=(line_of(consumer_reads_reversed, "a[i] = x[i] * 2.0"),
                         line_of(consumer_reads_reversed, "b[i] = a[n - 1 - i]")))
    assert f"fusing loops {first} and {second}" in str(err)


def test_fuse_then_distribute_round_trip_is_exact():
    s = polyopt.schedule(producer_consumer)
    first, second = s.loops()
    s = s.fuse(first, second).distribute(first)
    assert len(s.loops()) == 2
    legal(s, make_vec3)


def test_fuse_misuse():
    s = polyopt.schedule(producer_consumer)
    first, second = s.loops()
    with pytest.raises(polyopt.PolyoptError, match="not consecutive") as info:
        s.fuse(second, first)
    assert not isinstance(info.value, polyopt.IllegalTransformationError)


# --- tiling and skewing ----------------------------------------------------------------


@pytest.mark.parametrize("sizes", [(4, 3, 2), (1, 5, 1), (16, 16, 16)], ids=str)
def test_tile_matmul_is_exact(sizes):
    s = legal(polyopt.schedule(matmul).tile(["i", "j", "k"], list(sizes)), make_matmul)
    assert s.loops() == ["i.tile", "j.tile", "k.tile", "i", "j", "k"]


def test_two_level_tiling_is_exact_and_names_stay_unique():
    s = polyopt.schedule(matmul).tile(["i", "j"], [4, 4]).tile(["i.tile", "j.tile"], [2, 3])
    assert s.loops() == ["i.tile.tile", "j.tile.tile", "i.tile", "j.tile", "i", "j", "k"]
    legal(s, make_matmul)
    # tiling the point loops again gives new names, never a second "i.tile"
    s = polyopt.schedule(matmul).tile(["i", "j"], [4, 4]).tile(["i", "j"], [2, 2])
    assert len(set(s.loops())) == len(s.loops()), s.loops()
    legal(s, make_matmul)


def test_tile_triangular_nest_is_exact():
    legal(polyopt.schedule(tri_upper_sum).tile(["i", "j"], [3, 2]), make_square2)


def test_tile_seidel_without_skewing_is_illegal():
    line = line_of(seidel_1d, "A[i] = (A[i - 1]")
    err = illegal(lambda: polyopt.schedule(seidel_1d).tile(["t", "i"], [2, 3]),
                  array="A", source="S0", sink="S0", direction=("<", ">"), lines=(line,))
    assert "tiling loops" in str(err)


def test_skew_then_tile_seidel_is_exact():
    legal(polyopt.schedule(seidel_1d).skew("t", "i", 1).tile(["t", "i"], [2, 3]), make_seidel_1d)


def test_skew_then_tile_jacobi_1d_time_loop_is_exact():
    """Fusing jacobi-1d's two sweeps shifts the second by one; skewing i by 2*t then makes
    the (t, i) band permutable, so it tiles."""
    s = polyopt.schedule(jacobi_1d)
    t, first, second = s.loops()
    s = s.fuse(first, second)
    with pytest.raises(polyopt.IllegalTransformationError):
        s.tile([t, first], [2, 3])  # not permutable before skewing
    s = legal(s.skew(t, first, 2).tile([t, first], [2, 3]), make_jacobi_1d)
    assert s.loops() == [f"{t}.tile", f"{first}.tile", t, first]


def test_skew_alone_is_exact():
    """Skewing keeps the inner order for each outer value, so it is never illegal by
    itself, whatever the factor; it only makes a later interchange or tiling legal."""
    legal(polyopt.schedule(matmul).skew("i", "j", 1), make_matmul)
    legal(polyopt.schedule(seidel_1d).skew("t", "i", -3), make_seidel_1d)
    legal(polyopt.schedule(seidel_1d).skew("t", "i", 2).interchange("t", "i"), make_seidel_1d)


def test_wavefront_is_illegal_where_a_dependence_runs_against_the_diagonal():
    """The wavefront (skewing the outer loop by the inner one, as time tiling does) can
    break a dependence, and is checked: seidel-1d's dependences of distance (1, -1) would
    fall within one anti-diagonal, sink first."""
    scop = parse_function(seidel_1d)
    tree = normalize(scop.schedule)
    t, i = (d.loop_id for d, _ in loops(tree))
    illegal(lambda: wavefront(scop, analyze(scop), tree, t, i),
            array="A", source="S0", sink="S0", direction=("<", ">"),
            lines=(line_of(seidel_1d, "A[i] = (A[i - 1]"),))


# --- align -----------------------------------------------------------------------------


def test_align_makes_a_lagged_consumer_parallel_without_distributing():
    """``b[i] = a[i - 1]`` reads what the previous iteration wrote: ``i`` carries that
    dependence and cannot run in parallel.  Aligning runs ``b[i + 1]`` beside ``a[i]``,
    in the iteration that writes what it reads."""
    illegal(lambda: polyopt.schedule(lagged).parallelize("i"),
            array="a", source="S0", sink="S1", direction=("<",), kind=DepKind.FLOW,
            lines=(line_of(lagged, "b[i] = a[i - 1]"),))
    s = legal(polyopt.schedule(lagged).align("i").parallelize("i").vectorize("i"), make_vec3)
    assert s.loops() == ["i"]  # one loop: aligned, not distributed
    c = s.compile().c_source(*make_vec3(np.random.default_rng(0), 9))
    assert len(re.findall(r"\bfor \(", c)) == 1, c
    legal(polyopt.schedule(lagged).align("i"), make_vec3)


def test_align_a_row_of_two_statements_is_exact():
    """A sweep that computes ``B``'s row ``i`` and, from it, ``A``'s row ``i - 1`` one
    column behind: ``j`` carries ``B[i, j - 1]`` from one iteration to the next.  Aligning
    shifts the second statement by a column, and ``j`` then vectorizes with both
    statements in it."""
    s = polyopt.schedule(two_rows)
    with pytest.raises(polyopt.IllegalTransformationError):
        s.vectorize("j")
    legal(s.align("j").vectorize("j"), make_square2)


def test_align_is_illegal_when_the_reader_comes_first_in_the_body():
    """``a[i] = b[i - 1]`` before ``b[i] = ...``: distance 0 would have the read run
    before the write in the same iteration."""
    illegal(lambda: polyopt.schedule(reads_next_iteration).align("i"),
            array="b", source="S1", sink="S0", direction=("<",), kind=DepKind.FLOW,
            lines=(line_of(reads_next_iteration, "a[i] = b[i - 1]"),))


def test_align_refused_by_a_dependence_is_illegal_and_holds_it():
    """The README's contract for a step a dependence forbids: IllegalTransformationError,
    the dependence in ``.violated``."""
    with pytest.raises(polyopt.IllegalTransformationError, match="needs a different shift") \
            as info:
        polyopt.schedule(two_statements).align("i")  # a[i] and a[i - 1]: distances 0 and 1
    # both dependences that ask for different shifts
    assert sorted(d.distance for d in info.value.violated) == [(0,), (1,)]
    assert all(d.array == "a" for d in info.value.violated)
    for fn, why, array in ((spread, "no single distance", "a"),  # a[2 * i] read as a[i]
                           (seidel_1d, "carried by it from a statement to itself", "A")):
        with pytest.raises(polyopt.IllegalTransformationError, match=why) as info:
            polyopt.schedule(fn).align("i")
        assert info.value.violated and all(d.array == array for d in info.value.violated)


def test_align_misuse():
    for build, why in ((lambda: polyopt.schedule(same_iteration).align("i"), "nothing to align"),
                       (lambda: polyopt.schedule(lagged).align("q"), "no loop named")):
        with pytest.raises(polyopt.PolyoptError, match=why) as info:
            build()
        assert not isinstance(info.value, polyopt.IllegalTransformationError)


def test_tile_misuse():
    with pytest.raises(polyopt.PolyoptError, match="tile sizes"):
        polyopt.schedule(matmul).tile(["i", "j"], [4])
    with pytest.raises(polyopt.PolyoptError, match="positive"):
        polyopt.schedule(matmul).tile(["i", "j"], [4, 0])
    with pytest.raises(polyopt.PolyoptError, match="loops j, i are not perfectly nested"):
        polyopt.schedule(matmul).tile(["j", "i"], [4, 4])


# --- unroll-and-jam --------------------------------------------------------------------


@pytest.mark.parametrize("loop,factor", [("i", 3), ("k", 2), ("i", 4)])
def test_unroll_jam_matmul_with_sizes_not_divisible_by_the_factor(loop, factor):
    s = legal(polyopt.schedule(matmul).interchange("j", "k").unroll_jam(loop, factor),
              make_matmul)
    assert f"{loop}.uj" in s.loops()


def test_unroll_jam_twice_is_exact():
    legal(polyopt.schedule(matmul).unroll_jam("i", 2).unroll_jam("j", 3), make_matmul)


def test_unroll_jam_is_illegal_when_it_reorders_a_dependence():
    # jamming t's copies into i runs t+1's i before t's i+1: the (<, >) dependence breaks
    illegal(lambda: polyopt.schedule(seidel_1d).unroll_jam("t", 2),
            array="A", source="S0", sink="S0", direction=("<", ">"),
            lines=(line_of(seidel_1d, "A[i] = (A[i - 1]"),))


def test_unroll_jam_with_automatic_marks_does_not_reduce_over_the_whole_array():
    k = polyopt.schedule(matmul).unroll_jam("i", 2).compile()
    c = k.c_source(*make_matmul(np.random.default_rng(0), 5))
    assert "reduction(+:C[" not in c
    for seed in range(20):  # the race shows on some runs
        assert_close(k, make_matmul, (2, 5, 6), seed)


def test_unroll_jam_misuse():
    with pytest.raises(polyopt.PolyoptError, match="at least 2"):
        polyopt.schedule(matmul).unroll_jam("i", 1)
    with pytest.raises(polyopt.PolyoptError, match="no perfectly nested inner loop"):
        polyopt.schedule(matmul).unroll_jam("k", 2)


def test_the_unrolled_loop_stays_inside_its_strip():
    """The unrolled copies of i have a bounded count only below i.uj: moving i above it
    (which isl cannot unroll) is misuse; moving the other loops is not."""
    s = polyopt.schedule(matmul).unroll_jam("i", 2)
    for step in (lambda: s.interchange("i.uj", "i"), lambda: s.interchange("k", "i"),
                 lambda: s.tile(["k", "i"], [2, 2]), lambda: s.skew("k", "i", 1),
                 lambda: s.unroll_jam("i", 2)):
        with pytest.raises(polyopt.PolyoptError, match="fully unrolled") as info:
            step()
        assert not isinstance(info.value, polyopt.IllegalTransformationError)
    legal(s.interchange("i.uj", "j"), make_matmul)


# --- parallelize and vectorize ---------------------------------------------------------


def test_parallelize_a_parallel_loop_is_exact():
    s = legal(polyopt.schedule(matmul).parallelize("i"), make_matmul)
    c = s.compile(strict_fp=True).c_source(*make_matmul(np.random.default_rng(0), 3))
    assert c.count("#pragma omp parallel for") == 1


def test_parallelize_prefix_sum_is_illegal():
    line = line_of(prefix_sum, "x[i] += x[i - 1]")
    err = illegal(lambda: polyopt.schedule(prefix_sum).parallelize("i"),
                  array="x", source="S0", sink="S0", direction=("<",), kind=DepKind.FLOW,
                  lines=(line,))
    assert err.violated[0].distance == (1,)
    assert "cannot run in parallel" in str(err)


def test_a_refusal_to_parallelize_describes_the_dependence_in_the_new_schedule():
    """Fused with the consumer shifted by one, the loop carries a[i] -> a[i] one fused
    iteration later; the source order put the two statements in different loops, where
    the dependence is loop-independent.  The refusal speaks of the fused loop, and a
    tile loop by its label."""
    s = polyopt.schedule(consumer_reads_ahead)
    first, second = s.loops()
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        s.fuse(first, second).parallelize(first)
    msg = str(info.value)
    assert "loop-independent" not in msg, msg
    assert msg.endswith(f"-> a[i] at line {line_of(consumer_reads_ahead, 'b[i] = a[i + 1]')} "
                        f"`b[i] = a[i + 1] - a[i]`, distance ({first}: 1), carried by loop "
                        f"{first}"), msg
    with pytest.raises(polyopt.IllegalTransformationError) as info:
        polyopt.schedule(prefix_sum).tile(["i"], [4]).parallelize("i.tile")
    # the tile loop carries it across a tile's edge, the point loop inside a tile
    assert str(info.value).endswith("distance (i.tile: <=, i: 1), carried by loop i.tile, i"), \
        str(info.value)


def test_parallelize_a_reduction_reassociates_within_tolerance():
    """dot's loop runs as `parallel for reduction(+:s)`: the sum is reassociated, so the
    result matches CPython within conftest's float64 tolerance, not bit for bit."""
    s = polyopt.schedule(dot).parallelize("i")
    k = s.compile()
    assert "reduction(+:s)" in k.c_source(*make_vec2(np.random.default_rng(0), 3))
    assert_close(k, make_vec2, SIZES + (1000,))


def test_strict_fp_refuses_parallelizing_a_float_reduction():
    with pytest.raises(polyopt.IllegalTransformationError, match="strict_fp") as info:
        polyopt.schedule(polyopt.jit(dot, strict_fp=True)).parallelize("i")
    d = info.value.violated[0]
    assert d.reduction and d.array == "s"
    # strict_fp given when compiling a schedule built without it
    with pytest.raises(polyopt.IllegalTransformationError, match="strict_fp"):
        polyopt.schedule(dot).parallelize("i").compile(strict_fp=True)
    with pytest.raises(polyopt.IllegalTransformationError, match="strict_fp"):
        polyopt.schedule(polyopt.jit(dot, strict_fp=True)).vectorize("i")
    # an integer reduction reassociates exactly: strict_fp allows it
    k = polyopt.schedule(polyopt.jit(int_sum, strict_fp=True)).parallelize("i").compile()
    assert "reduction(+:s)" in k.c_source(np.zeros(3))
    assert_identical(k, make_vec1, SIZES + (1000,))


def test_vectorize_innermost_parallel_loop_is_exact():
    s = legal(polyopt.schedule(matmul).interchange("j", "k").vectorize("j"), make_matmul)
    c = s.compile(strict_fp=True).c_source(*make_matmul(np.random.default_rng(0), 3))
    assert "#pragma omp simd" in c


def test_vectorize_a_non_innermost_loop_is_refused():
    with pytest.raises(polyopt.IllegalTransformationError, match="not an innermost loop") as info:
        polyopt.schedule(matmul).vectorize("i")
    assert info.value.violated == ()  # nothing is broken: the loop is parallel, just not inner
    # a non-innermost loop that carries a dependence is refused naming it
    illegal(lambda: polyopt.schedule(seidel_1d).vectorize("t"),
            array="A", source="S0", sink="S0", direction=("<", "="), kind=DepKind.OUTPUT,
            lines=(line_of(seidel_1d, "A[i] = (A[i - 1]"),))


def test_automatic_marks_leave_a_recurrence_sequential():
    """mark_parallel, the automatic counterpart of parallelize and vectorize, refuses the
    same loops: prefix_sum's loop carries a flow dependence, so it gets neither pragma,
    and the result is CPython's."""
    k = polyopt.jit(prefix_sum)
    assert "#pragma omp" not in k.c_source(np.zeros(5))
    assert_identical(k, lambda r, n: (r.standard_normal(n),))


def test_vectorize_a_recurrence_is_illegal():
    illegal(lambda: polyopt.schedule(prefix_sum).vectorize("i"),
            array="x", source="S0", sink="S0", direction=("<",),
            lines=(line_of(prefix_sum, "x[i] += x[i - 1]"),))


def test_a_later_step_that_breaks_a_parallel_request_is_illegal():
    """j carries nothing in (i, j) order; after interchanging, j is outer and carries the
    (1, 1) dependence: the earlier request must not be dropped silently."""
    s = polyopt.schedule(diagonal).parallelize("j")
    legal(s, make_square2)
    err = illegal(lambda: s.interchange("i", "j"), array="A", source="S0", sink="S0",
                  direction=("<", "<"), lines=(line_of(diagonal, "A[i, j] = A[i - 1, j - 1]"),))
    assert "breaks an earlier request" in str(err)


def test_parallel_request_follows_distribution():
    s = polyopt.schedule(same_iteration).parallelize("i").distribute("i")
    assert s.loops() == ["i", "i#2"]
    k = s.compile(strict_fp=True)
    assert k.c_source(*make_vec3(np.random.default_rng(0), 3)).count("omp parallel for") == 2
    assert_identical(k, make_vec3)


def test_parallel_request_moves_to_the_strip_loop_of_unroll_and_jam():
    s = polyopt.schedule(matmul).parallelize("i").unroll_jam("i", 2)
    k = s.compile(strict_fp=True)
    c = k.c_source(*make_matmul(np.random.default_rng(0), 5))
    assert re.search(r"#pragma omp parallel for[^\n]*\n\s*for \(int64_t c0 = 0; c0 < \(\(n \+ 1\) / 2\)", c), c
    assert_identical(k, make_matmul)


def test_parallel_request_follows_fusion():
    s = polyopt.schedule(producer_consumer)
    first, second = s.loops()
    s = s.parallelize(second).fuse(first, second)
    k = s.compile(strict_fp=True)
    assert "#pragma omp parallel for" in k.c_source(*make_vec3(np.random.default_rng(0), 3))
    assert_identical(k, make_vec3)


# --- loop-invariant code motion --------------------------------------------------------


def test_licm_of_an_invariant_accumulator_is_exact():
    s = legal(polyopt.schedule(matmul).licm("k"), make_matmul)
    c = s.compile(strict_fp=True).c_source(*make_matmul(np.random.default_rng(0), 3))
    assert "C_acc" in c
    legal(polyopt.schedule(row_accumulate).licm("k"), make_row)  # not a reduction: still exact


def test_licm_then_vectorize_reassociates_within_tolerance():
    """With C[i, j] in a register, k is a scalar reduction: `omp simd reduction(+:C_acc)`
    reassociates it, so the result is compared within tolerance."""
    k = polyopt.schedule(matmul).licm("k").vectorize("k").compile()
    assert "simd reduction(+:C_acc)" in k.c_source(*make_matmul(np.random.default_rng(0), 3))
    assert_close(k, make_matmul)


def test_licm_then_vectorize_of_a_recurrence_is_illegal():
    # C[i] = C[i] * 0.5 + ...: LICM is fine, but it is no reduction, so no SIMD
    s = polyopt.schedule(row_accumulate).licm("k")
    illegal(lambda: s.vectorize("k"), array="C", source="S0", sink="S0", direction=("=", "<"),
            lines=(line_of(row_accumulate, "C[i] = C[i] * 0.5"),))


def test_licm_isl_cannot_decide_within_its_budget_is_declined(monkeypatch):
    """Hostile session 41b, finding 04: the domains of an `if`/`else if` chain of
    truncating divisions kept isl 33 s in LICM's subset test.  Past ``LICM_OPS`` the
    loop keeps no accumulator (the automatic scheduler's choice) and a user's request
    is refused, saying why."""
    monkeypatch.setattr(licm_module, "LICM_OPS", 1)
    with pytest.raises(polyopt.IllegalTransformationError, match="isl did not decide"):
        polyopt.schedule(matmul).licm("k")
    k = polyopt.jit(matmul)
    assert "C_acc" not in k.c_source(*make_matmul(np.random.default_rng(0), 3))
    assert_identical(k, make_matmul)


def test_licm_where_the_element_changes_is_illegal():
    with pytest.raises(polyopt.IllegalTransformationError,
                       match="changes from one iteration to the next") as info:
        polyopt.schedule(column_update).licm("k")
    assert info.value.violated == ()  # C[k] differs per iteration: no register can hold it


def test_licm_where_another_access_may_touch_the_element_is_illegal():
    # the write of C[i] reaches the read of C[k] when k == i: at a later k of the same i
    # (which the register copy would miss) or in a later i
    line = line_of(self_reading_row, "C[i] += C[k] * A[i, k]")
    err = illegal(lambda: polyopt.schedule(self_reading_row).licm("k"),
                  array="C", source="S0", sink="S0", direction=("<=", "*"), lines=(line,))
    assert "reads other elements of C" in str(err)


def test_licm_of_one_accumulator_among_several_statements_is_exact():
    """``q[i]`` is the one element the ``j`` loop writes in every iteration: it stays in a
    register beside ``s[j]``'s update (exact: the sum runs in the same order)."""
    legal(polyopt.schedule(column_and_row_sums).licm("j"), make_sums)
    s = polyopt.schedule(column_and_row_sums)
    with pytest.raises(polyopt.IllegalTransformationError, match="licm"):
        s.vectorize("j")  # q[i] accumulates in memory: no simd without the register
    assert_close(s.licm("j").vectorize("j").compile(), make_sums)


def make_row_sums(r, n):
    return r.standard_normal((n, n + 1)), r.standard_normal(n), r.standard_normal(n)


def test_licm_of_several_accumulators_is_exact():
    """gesummv's form: ``q[i]`` and ``s[i]`` each stay in a register of their own (exact:
    each sum runs in the same order); vectorized, both are scalar reductions."""
    s = legal(polyopt.schedule(two_row_sums).licm("j"), make_row_sums)
    c = s.compile(strict_fp=True).c_source(*make_row_sums(np.random.default_rng(0), 3))
    assert "q_acc" in c and "s_acc" in c
    k = s.vectorize("j").compile()
    c = k.c_source(*make_row_sums(np.random.default_rng(0), 3))
    assert "simd reduction(+:q_acc) reduction(+:s_acc)" in c, c
    assert_close(k, make_row_sums)


def test_licm_keeps_only_the_accumulators_no_other_statement_reads():
    """``s[i] += q[i] * 0.5`` reads the running ``q[i]``: ``q`` stays in memory, where
    the read sees each update, and ``s[i]`` alone goes to a register."""
    s = legal(polyopt.schedule(sum_feeds_sum).licm("j"), make_row_sums)
    c = s.compile(strict_fp=True).c_source(*make_row_sums(np.random.default_rng(0), 3))
    assert "s_acc" in c and "q_acc" not in c
    with pytest.raises(polyopt.IllegalTransformationError, match="carries the flow"):
        s.vectorize("j")  # s[i] reads each value q[i] takes


def test_licm_is_refused_when_another_statement_reads_the_accumulator():
    """``s[j] = q[i] * 0.5`` reads the running sum: a register the other statement does
    not see would give it the value from before the loop."""
    with pytest.raises(polyopt.IllegalTransformationError,
                       match=r"q\[\.\.\.\] is also accessed by the statement at line "
                             rf"{line_of(reads_the_running_sum, 's[j] = q[i] * 0.5')}") as info:
        polyopt.schedule(reads_the_running_sum).licm("j")
    err = info.value
    assert err.violated and err.violated[0].array == "q", str(err)
    assert "a register copy would break the" in str(err)
    legal(polyopt.schedule(reads_the_running_sum), make_sums)


def test_licm_misuse_on_an_outer_loop():
    with pytest.raises(polyopt.IllegalTransformationError, match="not a single statement"):
        polyopt.schedule(matmul).licm("i")


# --- printing and saving schedules -----------------------------------------------------

ROUND_TRIPS = {
    "interchange+unroll_jam+vectorize": (
        matmul, make_matmul,
        lambda s: s.interchange("j", "k").unroll_jam("i", 3).vectorize("j").parallelize("i.uj")),
    "tile+licm": (matmul, make_matmul, lambda s: s.tile(["i", "j"], [4, 3]).licm("k")),
    "distribute+interchange+tile": (
        gemm, make_gemm,
        lambda s: s.distribute("j").interchange("j#2", "k").tile(["k", "j#2"], [8, 8])),
    "align+vectorize": (lagged, make_vec3, lambda s: s.align("i").vectorize("i")),
    "fuse+skew+tile": (
        jacobi_1d, make_jacobi_1d,
        lambda s: s.fuse(s.loops()[1], s.loops()[2]).skew("t", s.loops()[1], 2)
                   .tile(["t", s.loops()[1]], [4, 4])),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_str_and_json_replay_to_the_same_c(name):
    fn, make, build = ROUND_TRIPS[name]
    s = build(polyopt.schedule(fn))
    args = make(np.random.default_rng(0), 5)
    c = s.compile().c_source(*args)
    again = eval(str(s), {"polyopt": polyopt, fn.__name__: fn})  # print(s) is Python
    assert isinstance(again, polyopt.Schedule)
    assert str(again) == str(s)
    assert again.compile().c_source(*args) == c
    loaded = polyopt.Schedule.from_json(fn, s.to_json())
    assert loaded.to_json() == s.to_json()
    assert loaded.compile().c_source(*args) == c
    loaded = polyopt.Schedule.from_json(polyopt.jit(fn), s.to_json())
    assert loaded.compile().c_source(*args) == c
    assert_close(loaded.compile(), make, (0, 1, 6, 11))


def test_a_schedule_is_immutable_and_its_steps_are_checked_again_when_loaded():
    s = polyopt.schedule(matmul)
    t = s.interchange("j", "k")
    assert s.loops() == ["i", "j", "k"] and t.loops() == ["i", "k", "j"]
    text = polyopt.schedule(seidel_1d).to_json().replace(
        '"steps": []', '"steps": [{"op": "interchange", "args": ["t", "i"]}]')
    with pytest.raises(polyopt.IllegalTransformationError):
        polyopt.Schedule.from_json(seidel_1d, text)


def test_tiling_a_chain_whose_band_holds_several_loops():
    """Packing's copy loops form one band of three loops; tiling (and every rewrite of
    a chain) takes the node under the whole chain, not one band per loop.  Checked
    against the dependences, and the copy still lands in the packed panel."""
    from polyopt.analysis.dependences import analyze
    from polyopt.model.options import Options
    from polyopt.model.schedule_tree import Band, Sequence, statements
    from polyopt.scheduler import auto
    from polyopt.transforms.tile import tile
    from polyopt.transforms.tree import chain

    def bands(node):
        if isinstance(node, Band):
            yield node
            yield from bands(node.child)
        elif isinstance(node, Sequence):
            for c in node.children:
                yield from bands(c)

    scop = parse_function(gemm)
    scop, deps, tree = auto.schedule(scop, analyze(scop), Options())
    joint = next(b for b in bands(tree) if len(b.dims) > 1)
    ids = [d.loop_id for d in joint.dims]
    tiled = tile(scop, deps, tree, ids, [2] * len(ids))
    assert len(chain(tiled, f"{ids[0]}.tile")) == 2 * len(ids)
    assert sorted(statements(tiled)) == sorted(statements(tree))



# --- splitting full register tiles -----------------------------------------------------


def ten(x):
    for i in range(10):
        x[i] = x[i] * 2.0


def three(x):
    for i in range(3):
        x[i] = x[i] * 2.0


def test_split_full_tiles_partitions_the_instances_and_refuses_when_no_tile_is_full():
    """Both parts keep the statement's place in the schedule, so the split never reorders
    anything: it partitions the instances exactly, and is refused (None) where it would
    buy nothing, when no tile is full."""
    scop = parse_function(ten)
    st = scop.statement("S0")
    split = split_full_tiles(scop, scop.schedule, "S0", {st.iterators[0]: 4})
    assert split is not None
    new, tree = split
    full, rest = new.statement("S0f").domain, new.statement("S0r").domain
    assert str(full).endswith("{ S0f[i] : 0 <= i <= 7 }")  # two tiles of 4
    full, rest = rename_set(full, "S0"), rename_set(rest, "S0")
    assert full.union(rest).is_equal(st.domain) and full.intersect(rest).is_empty()
    assert [c.stmt for c in _leaves(tree)] == ["S0f", "S0r"]
    small = parse_function(three)
    assert split_full_tiles(small, small.schedule, "S0",
                            {small.statement("S0").iterators[0]: 4}) is None


def triangle(B, A):
    for i in range(10):
        for j in range(6):
            for k in range(i + 1, 10):
                B[i, j] += A[k, i] * B[k, j]


def test_split_diagonal_tiles_shares_the_k_range_above_each_tile():
    """trmm's rows of a full 4 x 3 tile share ``k >= i0 + 4``: that is the full part; the
    triangle below it is the diagonal; the rows of no full tile are the ragged rest.
    The three partition the instances; a box domain has no diagonal (None)."""
    scop = parse_function(triangle)
    st = scop.statement("S0")
    i, j, k = st.iterators
    new, tree = split_diagonal_tiles(scop, scop.schedule, "S0", {i: 4, j: 3}, i)
    parts = {p: rename_set(new.statement(f"S0{p}").domain, "S0") for p in "fdr"}
    union = parts["f"].union(parts["d"]).union(parts["r"])
    assert union.is_equal(st.domain)
    assert all(parts[a].intersect(parts[b]).is_empty() for a, b in ("fd", "fr", "dr"))
    expect = {"f": f"{{ S0[{i}, {j}, {k}] : 0 <= {i} <= 7 and 0 <= {j} <= 5 and "
                   f"4 * floor({i} / 4) + 4 <= {k} <= 9 }}",
              "d": f"{{ S0[{i}, {j}, {k}] : 0 <= {i} <= 7 and 0 <= {j} <= 5 and "
                   f"{i} < {k} < 4 * floor({i} / 4) + 4 }}",
              "r": f"{{ S0[{i}, {j}, {k}] : 8 <= {i} < {k} <= 9 and 0 <= {j} <= 5 }}"}
    for p, text in expect.items():
        assert parts[p].is_equal(isl.Set(text)), (p, parts[p])
    assert [c.stmt for c in _leaves(tree)] == ["S0f", "S0d", "S0r"]
    box = parse_function(ten)
    box_i = box.statement("S0").iterators[0]
    assert split_diagonal_tiles(box, box.schedule, "S0", {box_i: 4}, box_i) is None


def solve(B, A):
    for i in range(10):
        for j in range(6):
            for k in range(i):
                B[i, j] -= A[i, k] * B[k, j]


def test_split_diagonal_tiles_puts_the_rows_before_the_first_full_tile_first():
    """A solve's rows share ``k < i0``; row 0 has no ``k``, so rows 1-3 are in no full
    tile: they are the part before the tiles (``b``), which read them; rows 8 and 9
    (the tile of rows 8-11 is not full) the part after.  The four partition the
    instances."""
    scop = parse_function(solve)
    st = scop.statement("S0")
    i, j, k = st.iterators
    new, tree = split_diagonal_tiles(scop, scop.schedule, "S0", {i: 4, j: 3}, i)
    parts = {p: rename_set(new.statement(f"S0{p}").domain, "S0") for p in "bfdr"}
    union = parts["b"].union(parts["f"]).union(parts["d"]).union(parts["r"])
    assert union.is_equal(st.domain)
    assert all(parts[a].intersect(parts[b]).is_empty()
               for a, b in ("bf", "bd", "br", "fd", "fr", "dr"))
    expect = {"b": f"{{ S0[{i}, {j}, {k}] : 0 <= {k} < {i} <= 3 and 0 <= {j} <= 5 }}",
              "f": f"{{ S0[{i}, {j}, {k}] : 4 <= {i} <= 7 and 0 <= {j} <= 5 and 0 <= {k} <= 3 }}",
              "d": f"{{ S0[{i}, {j}, {k}] : 4 <= {k} < {i} <= 7 and 0 <= {j} <= 5 }}",
              "r": f"{{ S0[{i}, {j}, {k}] : 8 <= {i} <= 9 and 0 <= {j} <= 5 and 0 <= {k} < {i} }}"}
    for p, text in expect.items():
        assert parts[p].is_equal(isl.Set(text)), (p, parts[p])
    assert [c.stmt for c in _leaves(tree)] == ["S0b", "S0f", "S0d", "S0r"]


def _leaves(node):
    if isinstance(node, Leaf):
        return [node]
    children = node.children if isinstance(node, Sequence) else (node.child,)
    return [leaf for c in children for leaf in _leaves(c)]
