"""The automatic scheduler: results under the options that change the schedule, and
the shape of the C it generates for the key kernels.

Results are compared with CPython within conftest's tolerance (the default
options run reductions in parallel and in SIMD lanes, which reassociates
them), except under ``strict_fp=True``, where nothing may be reassociated and
the result must be bit-identical (with ``-ffp-contract=off``, see
``test_transforms``).  Each kernel runs under the options that matter for it
(fusion modes for sequences of loops, tile sizes for deep nests, strict_fp for
reductions) rather than the full product, to keep the time low;
``test_differential`` runs every kernel with the default options.
"""

from __future__ import annotations

import copy
import math
import os
import re
import zlib
from dataclasses import dataclass, replace

import numpy as np
import pytest
from conftest import check_against_python
from kernels import CASES
from polyopt.backend_c.build import DEFAULT_CFLAGS
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.model.dtypes import DType
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Band, statements
from polyopt.model.target import micro_tile
from polyopt.scheduler.register_tiling import _register_tile
from polyopt.transforms.tree import normalize


@pytest.fixture(scope="module", autouse=True)
def _no_fma_contraction():
    flags = os.environ.get("CFLAGS", DEFAULT_CFLAGS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CFLAGS", f"{flags} -ffp-contract=off")
        yield


OPTIONS: dict[str, dict] = {
    "default": {},  # fuse="smart", tile=True (every kernel: test_differential)
    "fuse=none": {"fuse": "none"},
    "fuse=max": {"fuse": "max"},
    "tile=False": {"tile": False},
    "tile=8": {"tile": (8, 8, 8)},
    "parallel=False": {"parallel": False},
    "auto=False": {"auto": False},
    "strict_fp": {"strict_fp": True},
}

# the options that change something for each kernel
MATRIX: dict[str, tuple[str, ...]] = {
    "gemm": ("default", "tile=False", "tile=8", "auto=False", "strict_fp"),
    "matmul_acc": ("default", "tile=8", "parallel=False"),
    "mm_exp_mm": ("fuse=none", "fuse=max", "tile=8", "strict_fp"),
    "fill_matmul": ("fuse=none", "fuse=max"),
    "rowsum_scale": ("fuse=none", "fuse=max", "parallel=False", "strict_fp"),
    "atax": ("default", "tile=8", "fuse=none", "strict_fp"),
    "bicg": ("default", "strict_fp", "parallel=False"),
    "gemver": ("fuse=max", "tile=8", "strict_fp"),
    "mvt": ("fuse=none", "tile=8", "strict_fp"),
    "update_then_column_sums_ahead": ("strict_fp", "parallel=False"),
    "update_then_column_sums_reversed": ("strict_fp",),
    "reduce_reduce_map": ("fuse=max", "strict_fp"),
    "center_columns": ("fuse=max", "tile=8"),
    "element_reduction": ("fuse=max", "strict_fp"),
    "jacobi_1d": ("tile=8", "fuse=max"),
    "jacobi_2d": ("default", "tile=8", "fuse=max", "parallel=False", "auto=False"),
    "seidel_2d": ("tile=8", "strict_fp"),
    "floyd_warshall": ("tile=8",),
    "tri_lower": ("tile=8", "fuse=max"),
    "doitgen_like": ("tile=8",),
    "back_substitution": ("fuse=max",),
    "window_sum": ("tile=8",),
    "step3": ("fuse=max",),
    "dot": ("strict_fp", "parallel=False"),
}


def _identical(kernel, args) -> None:
    py_args, c_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = kernel.py_func(*py_args)
    actual = kernel(*c_args)
    for k, (p, c) in enumerate(zip(py_args, c_args, strict=True)):
        if isinstance(p, np.ndarray):
            np.testing.assert_array_equal(c, p, err_msg=f"{kernel.__name__}: argument {k}")
    assert actual == expected or (expected is None and actual is None), (actual, expected)


@pytest.mark.parametrize("name,option", [(n, o) for n, opts in MATRIX.items() for o in opts],
                         ids=lambda x: str(x))
def test_results_equal_python(name: str, option: str) -> None:
    case = CASES[name]
    kernel = polyopt.jit(case.fn, **OPTIONS[option])
    rng = np.random.default_rng(zlib.crc32(f"{name}/{option}".encode()))
    sizes = sorted({*case.sizes, 9, 17})  # 9 and 17: one full 8-tile and a partial one
    for n in sizes:
        args = case.make(rng, n)
        if option == "strict_fp":  # nothing reassociated: bit for bit
            _identical(kernel, args)
        else:
            check_against_python(kernel, *args)


# --- the shape of the generated C ------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """One statement instance printed in the C: where it sits and what it binds."""

    function: str
    loops: tuple[tuple[int, str], ...]  # enclosing for loops: (line index, counter), outermost first
    pragmas: tuple[str, ...]  # the `#pragma omp` line of each enclosing loop ("" if none)
    bindings: dict  # iterator -> C expression

    @property
    def innermost(self) -> str:
        return self.loops[-1][1]


_FOR = re.compile(r"^(\s*)for \(int64_t (\w+) = ")
_FUNC = re.compile(r"^(?:static )?\w[\w\s\*]*\b(\w+)\(.*\)\s*$")
_BIND = re.compile(r"^\s*const int64_t (\w+) = (.*);$")
_CALL = re.compile(r"^\s*(\w+)\(.*\);$")


def placements(c: str, source: str) -> list[Placed]:
    """Every statement of ``c`` whose source comment is ``source``.

    A statement in a helper function (a loop body, a register-tiled micro-kernel) is
    placed at each call of the helper, inside the loops around the call, and so on up
    to the exported function.
    """
    lines = c.splitlines()
    local: list[tuple[str, list[tuple[int, str]], dict[str, str]]] = []
    calls: dict[str, list[tuple[str, list[tuple[int, str]]]]] = {}  # callee -> call sites
    stack: list[tuple[int, int, str]] = []  # (indent, line index, counter)
    function = ""
    for k, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        m = _FUNC.match(line)
        if m and not line.startswith(" "):
            function, stack = m.group(1), []
            continue
        m = _FOR.match(line)
        if m:
            stack.append((indent, k, m.group(2)))
            continue
        if line.strip() == "}" and stack and stack[-1][0] == indent:
            stack.pop()
            continue
        m = _CALL.match(line)
        if m and "=" not in line:
            calls.setdefault(m.group(1), []).append((function, [(i, cnt) for _, i, cnt in stack]))
            continue
        if line.rstrip().endswith(f"/* {source} */"):
            bindings: dict[str, str] = {}
            j = k - 1
            while (b := _BIND.match(lines[j])) is not None:
                bindings[b.group(1)] = b.group(2)
                j -= 1
            local.append((function, [(i, cnt) for _, i, cnt in stack], bindings))

    def pragma(i: int) -> str:
        text = lines[i - 1].strip()
        return text if text.startswith("#pragma omp") else ""

    def contexts(f: str) -> list[list[tuple[int, str]]]:
        """The loops around each call of ``f``, through its callers."""
        if f not in calls:
            return [[]]
        return [[*outer, *loops] for caller, loops in calls[f] for outer in contexts(caller)]

    out: list[Placed] = []
    for function, loops, bindings in local:
        for outer in contexts(function):
            nest = (*outer, *loops)
            out.append(Placed(function, nest, tuple(pragma(i) for i, _ in nest), bindings))
    assert out, f"no statement `{source}` in:\n{c}"
    return out


def code_only(c: str) -> str:
    """``c`` without comments (which quote the Python source)."""
    return re.sub(r"/\*.*?\*/", "", c, flags=re.S)


def c_of(name: str, n: int = 6, **options) -> str:
    case = CASES[name]
    return polyopt.jit(case.fn, **options).c_source(*case.make(np.random.default_rng(0), n))


def kernel_code(c: str) -> str:
    """``c`` without its prelude (helpers) and bounds-check function."""
    check = c.index("_check(")
    return c[c.index("\n}\n", check) + 3:]


def _uses(expr: str, counter: str) -> bool:
    return re.search(rf"\b{counter}\b", expr) is not None


def test_gemm_innermost_loop_is_unit_stride_and_outer_loop_parallel():
    """gemm is written i, j, k: k innermost walks B[k, j] down a column.  The scheduler
    makes j innermost (unit stride, `omp simd`) — or, in a register tile, unrolls j so
    that one k step updates consecutive C[i, j..j+w] — and runs an outer loop in
    parallel."""
    c = c_of("gemm")
    assert "#pragma omp parallel for" in c
    for p in placements(c, "C[i, j] += alpha * A[i, k] * B[k, j]"):
        if _uses(p.bindings["j"], p.innermost):
            assert p.pragmas[-1].startswith("#pragma omp") and "simd" in p.pragmas[-1], p
        else:  # register tile: k is innermost, j fixed per copy, unrolled
            assert _uses(p.bindings["k"], p.innermost), p
            assert not _uses(p.bindings["i"], p.innermost), p
    # at least the full tiles or the plain nest run j innermost or j unrolled: never k alone
    assert any(_uses(p.bindings["j"], p.innermost)
               for p in placements(c, "C[i, j] += alpha * A[i, k] * B[k, j]"))


def test_gemm_source_order_kept_with_auto_false():
    c = c_of("gemm", auto=False)
    (p,) = placements(c, "C[i, j] += alpha * A[i, k] * B[k, j]")
    counters = [cnt for _, cnt in p.loops]
    assert [p.bindings[v] for v in ("i", "j", "k")] == counters  # i, j, k as written


# a tile loop's upper bound, floor((n - 1) / size): the size is one of the two groups
_TILE_BOUND = r"polyopt_floord\(\(\w+ - \d+\), (\d+)\)|<= \(\(\w+ - \d+\) / (\d+)\)"


@pytest.mark.parametrize("unroll_jam", [True, False],
                         ids=["unroll_jam", "no-unroll_jam"])
def test_gemm_tile_sizes_are_honoured(unroll_jam):
    c = kernel_code(c_of("gemm", tile=(8, 8, 8), unroll_jam=unroll_jam))
    assert re.search(r"\b8 \* c\d", c), c
    sizes = {int(a or b) for a, b in re.findall(_TILE_BOUND, c)}
    # every tile loop steps over tiles of 8, but for the register-tiled rows: 8 rounded
    # up to whole register tiles (12 for 6-row tiles)
    mr = micro_tile(DType.FLOAT64)[0]
    assert sizes == ({8, -(-8 // mr) * mr} if unroll_jam else {8}), sizes
    assert not re.search(_TILE_BOUND, kernel_code(c_of("gemm", tile=False, unroll_jam=unroll_jam)))


def test_rowsum_scale_is_fused_and_the_temporary_contracted():
    c = c_of("rowsum_scale")
    (red,) = placements(c, "rs[i] += A[i, j]")
    (use,) = placements(c, "out[i, j] = A[i, j] * rs[i]")
    assert red.function == use.function
    assert red.loops[0] == use.loops[0], (red, use)  # one outer loop...
    assert red.bindings["i"] == use.bindings["i"] == red.loops[0][1]  # ...over i
    assert "rs[" not in code_only(c) and "*restrict rs" not in c  # the temporary is gone


def test_rowsum_scale_without_fusion_keeps_two_nests():
    c = c_of("rowsum_scale", fuse="none")
    (red,) = placements(c, "rs[i] += A[i, j]")
    (use,) = placements(c, "out[i, j] = A[i, j] * rs[i]")
    assert red.loops[0] != use.loops[0]


@pytest.mark.parametrize("unroll_jam", [True, False], ids=["unroll_jam", "no-unroll_jam"])
@pytest.mark.parametrize("name,producer,consumer", [
    ("mm_exp_mm", "T[i, j] = math.exp(s)", "out[i, j] += T[i, k] * D[k, j]"),
    ("fill_matmul", "C[i, j] = 0.0", "C[i, j] += A[i, k] * B[k, j]"),
], ids=["mm_exp_mm", "fill_matmul"])
def test_producer_is_fused_into_the_matmul_at_the_outer_loop(name, producer, consumer,
                                                            unroll_jam):
    """matmul -> exp -> matmul: each row of T is consumed while it is in cache; a fill
    of C runs in the same outer iteration as the products that accumulate into it.

    With register tiling the shared outer loop runs over tiles of rows (tile-level
    fusion): the producer's row loop then lies inside it, its bounds set by the tile."""
    c = c_of(name, unroll_jam=unroll_jam)
    lines = c.splitlines()
    first = placements(c, producer)
    second = placements(c, consumer)
    outer = {p.loops[0] for p in first}
    assert len(outer) == 1
    assert all(p.loops[0] in outer for p in second), (first, second)
    # `parallel for`, or `for` in a parallel region (threads with their own row buffers)
    assert all(re.match(r"#pragma omp (parallel )?for", p.pragmas[0]) for p in first), first
    for p in first:
        counter = p.loops[0][1]
        if p.bindings["i"] == counter:  # fused row by row
            continue
        assert unroll_jam, p
        (row,) = [line for line, cnt in p.loops[1:] if p.bindings["i"] == cnt]
        # rows of the outer loop's tile, or of its range (backend_c/ranged.py)
        tile = "polyopt_lo" if counter == "polyopt_block" else counter
        assert _uses(lines[row], tile), lines[row]


@pytest.mark.parametrize("rows,inner,mid,cols", [(97, 13, 19, 21), (130, 17, 33, 17),
                                                (200, 5, 8, 16), (5, 9, 9, 9)])
def test_tile_level_fusion_is_exact_at_ragged_sizes(rows, inner, mid, cols):
    """Row tiles of 96 with a ragged last tile, full register tiles and their rest, in
    both matmuls of matmul -> exp -> matmul (and sizes with no full register tile)."""
    case = CASES["mm_exp_mm"]
    rng = np.random.default_rng(rows)
    args = (0.3 * rng.random((rows, inner)), 0.3 * rng.random((inner, mid)),
            rng.random((mid, cols)), rng.random((rows, cols)))
    check_against_python(polyopt.jit(case.fn), *args)


def chained_rows(A, B, C):
    n, m = C.shape
    p = A.shape[1]
    for i in range(1, n):
        for j in range(m):
            C[i, j] = 0.5 * C[i - 1, j]
        for k in range(p):
            for j in range(m):
                C[i, j] += A[i, k] * B[k, j]


def fused_fill_matmul(A, B, C):
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            C[i, j] = 0.5 * C[i, j]
        for k in range(p):
            for j in range(m):
                C[i, j] += A[i, k] * B[k, j]


def _register_tiled(fn):
    """``fn``'s matmul register-tiled in its source schedule: (tree, nest) or None."""
    scop = parse_function(fn)
    deps = analyze(scop)
    stmt = next(s.name for s in scop.statements if "+=" in s.source)
    return _register_tile(scop, deps, normalize(scop.schedule), stmt, Options())


def test_tile_level_fusion_keeps_the_row_loop_shared():
    _, _, tree, nest = _register_tiled(fused_fill_matmul)
    top = tree if isinstance(tree, Band) else None
    assert top is not None and top.dims[0].loop_id == nest.top  # one loop around both
    assert len(statements(tree)) == len(statements(top.child))
    rng = np.random.default_rng(4)
    check_against_python(polyopt.jit(fused_fill_matmul), rng.random((130, 30)),
                         rng.random((30, 41)), rng.random((130, 41)))


def test_tile_level_fusion_refuses_to_distribute_a_carried_row_dependence():
    """Row i's fill reads row i - 1 after its products: running every fill of a row tile
    before the tile's products would read rows not yet finished, so the matmul is not
    register-tiled in that schedule (that needs it distributed), and stays exact."""
    assert _register_tiled(chained_rows) is None
    rng = np.random.default_rng(3)
    check_against_python(polyopt.jit(chained_rows), rng.random((130, 30)),
                         rng.random((30, 40)), rng.random((130, 40)))


def test_prefix_sum_is_not_parallel():
    c = c_of("prefix_sum")
    assert "parallel for" not in c
    assert "omp simd" not in c


def test_dot_gets_a_reduction_clause():
    c = c_of("dot")
    (p,) = placements(c, "s += x[i] * y[i]")
    assert "parallel for" in p.pragmas[0] and "reduction(+:s)" in p.pragmas[0], p


def test_strict_fp_never_reassociates():
    for name in ("dot", "gemm", "rowsum_scale"):
        c = c_of(name, strict_fp=True)
        assert "reduction(" not in c, name


def test_parallel_false_has_no_parallel_loop():
    for name in ("gemm", "jacobi_2d", "dot"):
        assert "omp parallel" not in c_of(name, parallel=False), name


def test_vectorize_false_has_no_simd():
    for name in ("gemm", "dot", "transpose"):
        assert "omp simd" not in c_of(name, vectorize=False), name


def test_jacobi_2d_inner_sweeps_are_parallel_and_vectorized():
    """Time-tiled, with both statements of a tile's row in one `simd` loop: isl's
    schedule puts A's row a column behind B's, which the loop would carry; aligning it
    back (transforms/align.py) keeps one sweep per row instead of distributing it.  The
    first and last row of a tile run one statement each, in loops of their own."""
    c = c_of("jacobi_2d")
    inner = []
    for source in ("B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, 1 + j] + A[1 + i, j] + A[i - 1, j])",
                   "A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, 1 + j] + B[1 + i, j] + B[i - 1, j])"):
        found = placements(c, source)
        for p in found:
            assert any("parallel for" in x for x in p.pragmas), p
            assert "simd" in p.pragmas[-1], p
        inner.append({p.loops[-1] for p in found})
    assert inner[0] & inner[1], "no loop runs both statements"
    assert inner[0] - inner[1] and inner[1] - inner[0], "edge rows are guarded inside the loop"


def test_user_tile_sizes_reach_the_time_tiles():
    """``tile=(steps, rows)`` sizes jacobi-2d's time tiles as they size other bands (the
    default is ``time_tiling.TIME_TILE``): the point loops run 4 time steps and 8 skewed rows of
    a tile, and the tiles still form a parallel wavefront."""
    from polyopt.scheduler.time_tiling import TIME_TILE

    assert TIME_TILE != (4, 8)
    c = c_of("jacobi_2d", tile=(4, 8))
    assert re.search(r"\(4 \* c0\) - \(4 \* c1\)", c), "time loop not in 4-step tiles"
    assert re.search(r"\(8 \* c1\) \+ 7\)", c), "row loop not in 8-row tiles"
    assert "omp parallel for" in c


def heat_3d_like(A, B):
    n = A.shape[0]
    for _t in range(4):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = 0.25 * (A[i - 1, j, k] + A[i + 1, j, k] + A[i, j, k - 1]
                                         + A[i, j + 1, k])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = 0.5 * B[i, j, k]


def test_a_time_loop_around_three_space_loops_is_not_time_tiled(rng, monkeypatch):
    """A time tile holds its innermost rows whole; with two space loops inside the tiled
    ones, whole planes, which leave the caches.  So isl's scheduler (a forked call past
    its quick budget) is not asked, and the time loop stays outside."""
    from polyopt.scheduler import time_tiling

    def refuse(*args, **kwargs):
        raise AssertionError("isl's scheduler was asked to time-tile")

    monkeypatch.setattr(time_tiling, "isl_schedule", refuse)
    check_against_python(polyopt.jit(heat_3d_like), rng.random((7, 7, 7)), rng.random((7, 7, 7)))


def test_a_row_loop_that_reduces_into_an_array_stays_whole_and_parallel():
    """atax: ``for i: {tmp[i] = A[i, :] . x; y += A[i, :] * tmp[i]}`` is unit stride and
    parallel in ``i`` with ``y`` reduced per thread.  Distributing ``i`` would let the
    ``y`` part run its ``j`` loop outer, in parallel outright, at the price of a second
    sweep over ``A``: kept whole, both statements run in one parallel row loop."""
    c = c_of("atax")
    dot = placements(c, "tmp[i] = tmp[i] + A[i, j] * x[j]")
    axpy = placements(c, "y[j] = y[j] + A[i, j] * tmp[i]")
    assert len(dot) == len(axpy) == 1, (dot, axpy)
    assert dot[0].loops[0] == axpy[0].loops[0], "the row loop was distributed"
    assert "omp for" in dot[0].pragmas[0], dot[0]
    assert "polyopt_pool_y" in c  # y: one copy per thread, summed after the loop


def test_a_strided_nest_is_not_fused_with_a_shallower_one():
    """gemver's ``for i: for j: x[i] += beta * A[j, i] * y[j]`` runs ``i`` outer
    (parallel) and ``j`` inner, across ``A``'s rows; only a tile, which runs ``i``
    innermost, makes it unit stride.  Smart fusion with the next nest ``for i: x[i] +=
    z[i]`` at ``i`` would leave it imperfect, untiled and strided, so it is refused;
    ``fuse="max"`` still fuses."""
    source = "x[i] = x[i] + beta * A[j, i] * y[j]"
    (p,) = placements(c_of("gemver", n=40), source)
    assert p.innermost in p.bindings["i"], p
    assert "simd" in p.pragmas[-1], p
    (p,) = placements(c_of("gemver", n=40, fuse="max"), source)
    assert p.innermost in p.bindings["j"], p


def test_nests_fuse_after_an_interchange_when_that_makes_them_fusable():
    """gemver's rank-2 update of ``A`` and ``x[i] += beta * A[j, i] * y[j]`` cannot be
    fused at ``i`` (the second reads column ``i``, updated by every row); with the
    second's ``j`` outer it reads row ``j``, just updated, so both run in one parallel
    sweep of ``A``, ``x`` reduced per thread, each inner loop unit stride."""
    c = c_of("gemver", n=40)
    (update,) = placements(c, "A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]")
    (gather,) = placements(c, "x[i] = x[i] + beta * A[j, i] * y[j]")
    assert update.loops[0] == gather.loops[0], "not fused"
    assert "omp for" in update.pragmas[0], update
    assert gather.innermost in gather.bindings["i"], gather
    assert "polyopt_pool_x" in c


def test_a_fusion_that_sweeps_rows_gives_way_to_one_after_an_interchange():
    """mvt's ``x1[i] += A[i, j] * y_1[j]`` and ``x2[i] += A[j, i] * y_2[j]`` fuse as they
    stand, but the second then reads a column innermost; with its ``j`` run outer both
    read row ``i`` of ``A`` unit stride in one parallel sweep, ``x1[i]`` kept in a
    register and ``x2`` reduced per thread (LARGE: 1.7-2.5 against 4.3-6.2 ms)."""
    c = c_of("mvt", n=40)
    (row,) = placements(c, "x1[i] = x1[i] + A[i, j] * y_1[j]")
    (col,) = placements(c, "x2[i] = x2[i] + A[j, i] * y_2[j]")
    assert row.loops == col.loops
    assert row.innermost in row.bindings["j"] and col.innermost in col.bindings["i"]
    assert "omp for" in row.pragmas[0], row
    assert "x1_acc" in c and "polyopt_pool_x2" in c


def test_interchanged_fusion_shifts_or_refuses_as_the_dependences_say():
    """Reading row ``j + 1`` in the second nest, the fused second statement runs a row
    behind the first (a shift); reading the rows in reverse, no shift makes the fusion
    legal and the nests stay apart (results: ``test_differential``).  Under
    ``strict_fp`` the fused loop of gemver could not run in parallel (``x``'s per-thread
    sums would be reassociated), so its nests stay apart there too."""
    c = c_of("update_then_column_sums_ahead", n=40)
    (update,) = placements(c, "A[i, j] = A[i, j] + u[i] * u[j]")
    (gather,) = placements(c, "x[i] = x[i] + A[j + 1, i] * u[j]")
    assert update.loops[0] == gather.loops[0]
    assert re.fullmatch(rf"\(?{gather.loops[0][1]} - 1\)?", gather.bindings["j"]), gather
    c = c_of("update_then_column_sums_reversed", n=40)
    (update,) = placements(c, "A[i, j] = A[i, j] + u[i] * u[j]")
    (gather,) = placements(c, "x[i] = x[i] + A[n - 1 - j, i] * u[j]")
    assert update.loops[0] != gather.loops[0]
    c = c_of("gemver", n=40, strict_fp=True)
    (update,) = placements(c, "A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]")
    (gather,) = placements(c, "x[i] = x[i] + beta * A[j, i] * y[j]")
    assert update.loops[0] != gather.loops[0]


def test_an_accumulator_beside_another_statement_stays_in_a_register():
    """bicg's inner loop updates ``s[j]`` and accumulates ``q[i]``: LICM keeps ``q[i]``
    in a register across ``j`` although the body has two statements, and the loop then
    vectorizes with a reduction on that register."""
    c = c_of("bicg")
    (acc,) = placements(c, "q[i] = q[i] + A[i, j] * p[j]")
    (col,) = placements(c, "s[j] = s[j] + r[i] * A[i, j]")
    assert acc.loops == col.loops
    assert re.search(r"omp simd reduction\(\+:q_acc\)", acc.pragmas[-1]), acc
    assert "q_acc = (q_acc + " in code_only(c)


def test_small_calls_run_their_parallel_loops_on_one_thread(monkeypatch):
    """By default a `parallel for` carries an OpenMP ``if`` on an estimate of the call's
    statement instances: waking the team costs more than a small call's work."""
    monkeypatch.delenv("POLYOPT_PARALLEL_MIN")
    c = c_of("gemm", cache=False)
    (decl,) = re.findall(r"const int (polyopt_team\w*) = \((.*)\) >= (\d+)\.0;", c)
    name, estimate, threshold = decl
    assert int(threshold) == 1 << 20
    assert "ni" in estimate and "nj" in estimate and "nk" in estimate, estimate
    # a short loop is printed twice, on a team and in order (no OpenMP call at all for a
    # small call); a long one asks OpenMP for one thread
    lines = c.splitlines()
    pragmas = [(k, x) for k, x in enumerate(lines) if "#pragma omp parallel for" in x]
    assert pragmas
    for k, x in pragmas:
        versioned = lines[k - 1].strip() == f"if ({name}) {{"
        assert versioned != x.endswith(f"if({name})"), (lines[k - 1], x)
    assert c.count(f"if ({name}) {{") >= 1 and "} else {" in c
    case = CASES["gemm"]
    rng = np.random.default_rng(5)
    for n in (3, 40):  # one thread at these sizes: the serial path computes the same
        check_against_python(polyopt.jit(case.fn, cache=False), *case.make(rng, n))
    monkeypatch.setenv("POLYOPT_PARALLEL_MIN", "0")  # always a team: no flag
    zero = c_of("gemm", cache=False)
    assert "polyopt_team" not in zero and "#pragma omp parallel for" in zero


@pytest.mark.parametrize("text", ["-1", "1e6", str(2**62 + 1)])
def test_a_threshold_out_of_range_is_ignored_with_a_warning(monkeypatch, text):
    """Hostile session 47a, finding 12: -1 was taken as 0 without a word, where
    polyopt.tune.load refuses a parallel_min outside 0 to 2**62."""
    from polyopt.backend_c import work
    monkeypatch.setenv("POLYOPT_PARALLEL_MIN", text)
    monkeypatch.setattr(work, "_warned", set())
    with pytest.warns(RuntimeWarning, match=r"from 0 to 2\*\*62.*the default 1048576 applies"):
        assert work.parallel_min_instances() == work.PARALLEL_MIN_INSTANCES


def test_tile_loops_are_dealt_one_at_a_time_and_plain_loops_in_blocks():
    """A parallel loop over tiles gets `schedule(dynamic, 1)` (a ragged last tile or a
    triangular domain spreads over the team); a loop over single rows keeps contiguous
    blocks (no two threads writing one cache line)."""
    c = c_of("gemm", n=40)
    lines = re.findall(r"(#pragma omp parallel for[^\n]*)\n\s*for \([^;]*; ([^;]*);", c)
    # over floor(i / size): polyopt_floord, or C's `/` where isl knows i's bound >= 0
    # or over blocks of rows cut at run time (backend_c/ranged.py)
    tiled = [p for p, cond in lines if re.search(_TILE_BOUND, cond) or "polyopt_blocks" in cond]
    plain = [p for p, cond in lines if p not in tiled]
    assert tiled and all("schedule(dynamic, 1)" in p for p in tiled), lines
    assert plain and all("schedule(static)" in p for p in plain), lines


def test_tile_loops_with_a_reduction_keep_a_fixed_schedule():
    """Which thread sums which tiles decides a reduction's rounding: such a loop is dealt
    round-robin (`static, 1`), the same split on every call."""
    from polyopt.backend_c.pragma import _schedule

    from polyopt.model.schedule_tree import LoopMark

    tiles = LoopMark(parallel=True, round_robin=True)
    assert _schedule(tiles) == "schedule(dynamic, 1)"
    assert _schedule(replace(tiles, reductions=(("+", "s"),))) == "schedule(static, 1)"
    assert _schedule(replace(tiles, private_arrays=("t",))) == "schedule(static, 1)"
    assert _schedule(LoopMark(parallel=True)) == "schedule(static)"


def _exp_rows(x, y):
    n, m = x.shape
    for i in range(n):
        for j in range(m):
            y[i, j] = math.exp(x[i, j])
            x[i, j] = math.log(y[i, j] + 1.0)


def test_float32_math_uses_vector_variants_and_float64_does_not():
    """float32 results of exp/log (computed in float64, as Python does, and rounded at
    once) go through glibc's vector variants; float64 results, strict_fp and
    vectorize=False keep the scalar libm calls."""
    rng = np.random.default_rng(2)
    x32 = rng.random((9, 37), dtype=np.float32) * 20 - 10
    f = polyopt.jit(_exp_rows)
    c = f.c_source(x32, np.zeros_like(x32))
    assert "polyopt_vexp(" in c and "polyopt_vlog(" in c and "__asm__(\"exp\")" in c
    check_against_python(f, x32, np.zeros_like(x32))
    x64 = x32.astype(np.float64)
    assert "polyopt_v" not in polyopt.jit(_exp_rows).c_source(x64, np.zeros_like(x64))
    assert "polyopt_v" not in polyopt.jit(_exp_rows, strict_fp=True).c_source(x32, np.zeros_like(x32))
    assert "polyopt_v" not in polyopt.jit(_exp_rows, vectorize=False).c_source(x32, np.zeros_like(x32))


def test_cholesky_dot_products_are_simd_reductions_in_a_register():
    # A[i, j] -= A[i, k] * A[j, k] reads other elements of A, none of them A[i, j]
    c = c_of("cholesky_in_place", n=9)
    for source in ("A[i, j] -= A[i, k] * A[j, k]", "A[i, i] -= A[i, k] * A[i, k]"):
        (p,) = placements(c, source)
        assert "simd" in p.pragmas[-1] and "reduction(+:A_acc" in p.pragmas[-1], p
        assert p.bindings["k"] == p.innermost, p


def test_trmm_point_loops_run_unit_stride_inside_tiles():
    # rows have different k ranges (k > i), so trmm is register-tiled one row at a time
    # (test_row_tiles.py): its column blocks carry the parallelism, outermost, and the k
    # loop of a tile is innermost; the ragged columns' rest runs i, k, j: j innermost,
    # unit stride
    c = c_of("trmm_like", n=40)
    placed = placements(c, "B[i, j] += A[k, i] * B[k, j]")
    tiled = [p for p in placed if p.bindings["k"] == p.innermost]
    rest = [p for p in placed if p.bindings["j"] == p.innermost]
    assert tiled and rest and len(tiled) + len(rest) == len(placed), placed
    assert all(p.bindings["i"] != p.innermost for p in placed), placed
    assert any("parallel for" in p.pragmas[0] for p in tiled), tiled
    assert all("simd" in p.pragmas[-1] for p in rest), rest
