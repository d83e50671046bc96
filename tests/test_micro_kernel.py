"""The register micro-kernel sized for the target's vector unit: AVX2 (16 ymm) and
AVX-512 (32 zmm), float32 and float64.

Each test fixes the target (``POLYOPT_TARGET``), so it checks the same code on any
x86-64 host: the C uses no intrinsics, only the tile and block sizes differ.
Differential: gemm against NumPy at sizes that leave remainders in every dimension
(partial register tiles in i and j, a partial cache block in i, k and j).
Structural: the micro-kernel holds MR x NR accumulators and loads each packed
element once per k step.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import check_against_python
from kernels import gemm

import polyopt
from polyopt.model import target
from polyopt.model.dtypes import DType
from polyopt.scheduler.blocking import blocks

#: target -> dtype -> the register tile (MR, NR): two vectors per row
TILES = {"avx2": {"float64": (6, 8), "float32": (6, 16)},
         "avx512": {"float64": (8, 16), "float32": (8, 32)}}
CASES = [(t, d) for t in TILES for d in TILES[t]]


def _sizes(name: str, dtype: str) -> tuple[int, int, int]:
    """(ni, nj, nk) past one cache block in i and k, with partial register tiles in i and j."""
    mr, nr = TILES[name][dtype]
    b = blocks(target.NAMED[name], DType(dtype), mr, nr)
    return b.mc + mr + 3, 3 * nr + 5, b.kc + 7


def _args(rng: np.random.Generator, ni: int, nj: int, nk: int, dtype: str) -> tuple:
    def f(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)
    return 1.5, 1.2, f(ni, nj), f(ni, nk), f(nk, nj)


def _micro_kernel(c: str) -> str:
    m = re.search(r"static void \w+_micro\d+\(.*?\n\}\n", c, re.S)
    assert m, "no micro-kernel"
    return m.group(0)


def _micro_kernels(c: str) -> list[str]:
    return re.findall(r"static void \w+_micro\d+\(.*?\n\}\n", c, re.S)


@pytest.mark.parametrize("name, dtype", CASES)
def test_gemm_matches_numpy_with_remainders_everywhere(name, dtype, monkeypatch):
    monkeypatch.setenv("POLYOPT_TARGET", name)
    rng = np.random.default_rng(7)
    alpha, beta, C, A, B = _args(rng, *_sizes(name, dtype), dtype)
    f = polyopt.jit(gemm)
    assert "_micro" in f.c_source(alpha, beta, C, A, B)
    expected = beta * C.astype(np.float64) + alpha * (A.astype(np.float64) @ B.astype(np.float64))
    f(alpha, beta, C, A, B)
    tol = 1e-3 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(C, expected, rtol=tol, atol=tol * np.abs(expected).max())


@pytest.mark.parametrize("name, dtype", CASES)
def test_micro_kernel_holds_one_register_tile(name, dtype, monkeypatch):
    monkeypatch.setenv("POLYOPT_TARGET", name)
    mr, nr = TILES[name][dtype]
    assert target.micro_tile(DType(dtype)) == (mr, nr)
    rng = np.random.default_rng(0)
    c = polyopt.jit(gemm).c_source(*_args(rng, 2 * mr, 2 * nr, 5, dtype))
    micro = _micro_kernel(c)
    assert len(set(re.findall(r"\bC_acc\d+\b", micro))) == mr * nr
    # each k step loads MR elements of A's panel and NR of B's, once each
    assert len(re.findall(r"= A_pk\[", micro)) == mr
    assert len(re.findall(r"= B_pk\[", micro)) == nr
    # gcc would vectorize the k loop, which ruins it (shared/guide/fast-c.md)
    assert 'optimize("no-tree-loop-vectorize", "no-tree-forwprop")' in c


def test_avx512_tiles_use_its_32_registers():
    """At least twice AVX2's accumulators (twice the registers, twice the lanes), and
    two vectors per row."""
    for dtype in ("float32", "float64"):
        (mr2, nr2), (mr5, nr5) = TILES["avx2"][dtype], TILES["avx512"][dtype]
        assert mr5 * nr5 >= 2 * mr2 * nr2
        assert nr5 == 2 * target.NAMED["avx512"].lanes(DType(dtype))


@pytest.mark.parametrize("name, dtype", CASES)
def test_micro_kernel_prefetches_the_next_tile_one_element_per_line(name, dtype, monkeypatch):
    """The next call's tile (the next row origin) is prefetched before this call loads
    its own: one element per 64-byte line of each row, and the row's last, which may
    start a further line when the row is not aligned."""
    monkeypatch.setenv("POLYOPT_TARGET", name)
    mr, nr = TILES[name][dtype]
    rng = np.random.default_rng(0)
    c = polyopt.jit(gemm).c_source(*_args(rng, 2 * mr, 2 * nr, 5, dtype))
    micro = _micro_kernel(c)
    ahead = re.search(r"const int64_t (o\d) = \(\d+ \* \((c\d+) \+ 1\)\);\n(.*?)\n  \}", micro, re.S)
    assert ahead, micro
    assert micro.index("polyopt_prefetch") < micro.index("C_acc0 = C[")
    per_line = 64 * 8 // DType(dtype).bits
    columns = sorted({0, nr - 1} | set(range(0, nr, per_line)))
    lines = ahead.group(3).splitlines()
    assert len(lines) == mr * len(columns)
    assert all(f"polyopt_prefetch(C, i * nj + j, {'double' if dtype == 'float64' else 'float'});"
               in line for line in lines)


@pytest.mark.parametrize("name, dtype", CASES)
def test_ragged_columns_of_whole_rows_run_in_a_narrow_micro_kernel(name, dtype, monkeypatch):
    """The columns past the last whole NR-column tile (12 of gemm's 1,100 at PolyBench
    LARGE) run in register tiles of MR rows and 4 columns: a second micro-kernel.  Not
    beside AVX2's 8 float64 columns, which leave room for one such tile only (see
    register_tiling._register_tile_edge)."""
    monkeypatch.setenv("POLYOPT_TARGET", name)
    mr, nr = TILES[name][dtype]
    rng = np.random.default_rng(0)
    c = polyopt.jit(gemm).c_source(*_args(rng, 2 * mr, 2 * nr + 12, 5, dtype))
    kernels = _micro_kernels(c)
    assert len(set(re.findall(r"\bC_acc\d+\b", kernels[0]))) == mr * nr
    if nr < 12:
        assert len(kernels) == 1
        return
    assert len(kernels) == 2
    assert len(set(re.findall(r"\bC_acc\d+\b", kernels[1]))) == mr * 4


@pytest.mark.parametrize("ragged", [1, 3, 4, 5, 8, 12, 15])
def test_ragged_columns_are_bit_exact_with_python(ragged, monkeypatch):
    """Every count of ragged columns (none, some or all in 4-column tiles, the rest in
    plain loops; the sizes are the call's, so both micro-kernels are always there),
    beside ragged rows: each element is summed over k in the original order, so
    without contraction (``strict_fp``) the result is CPython's to the bit."""
    monkeypatch.setenv("POLYOPT_TARGET", "avx512")
    rng = np.random.default_rng(ragged)
    alpha, beta, C, A, B = _args(rng, 2 * 8 + 3, 16 + ragged, 9, "float64")
    f = polyopt.jit(gemm, strict_fp=True)
    assert len(_micro_kernels(f.c_source(alpha, beta, C, A, B))) == 2
    expected = C.copy()
    gemm(alpha, beta, expected, A, B)
    f(alpha, beta, C, A, B)
    np.testing.assert_array_equal(C, expected)


def syrk_lower(C, A):
    n, m = A.shape
    for i in range(n):
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += A[i, k] * A[j, k]


def test_a_triangle_keeps_its_ragged_columns_in_plain_loops(monkeypatch):
    """Where the columns' range depends on the row (``j <= i``), the narrow tiles would
    line the diagonal, in many pieces that cost isl seconds (correlation), for little
    work: the triangle keeps one micro-kernel."""
    monkeypatch.setenv("POLYOPT_TARGET", "avx512")
    rng = np.random.default_rng(1)
    args = (np.zeros((45, 45)), rng.standard_normal((45, 7)))
    f = polyopt.jit(syrk_lower)
    assert len(_micro_kernels(f.c_source(*args))) == 1
    check_against_python(f, *args)
