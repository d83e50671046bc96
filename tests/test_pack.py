"""Packing of a register-tiled matmul's operands (polyopt.transforms.pack): the column
operand in panels of NR columns, the row operand in panels of MR rows.

Differential: every kernel whose operand is packed computes what CPython computes,
at sizes that leave ragged register tiles (the rest keeps reading the operand
itself).  Structural: the panels are read in the micro-kernel with constant lane
offsets.  Refusals: an operand the nest writes (column or row), a nest inside other loops.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function
from test_transforms import matmul  # matmul(A, B, C): C[i, j] += A[i, k] * B[k, j]

import polyopt
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.transforms.pack import pack, panel_operands

SIZES = (1, 5, 13, 37, 70)




def syrk_like(C, A):
    """The column operand is read transposed: ``A[j, k]``, one row per lane."""
    n = C.shape[0]
    p = A.shape[1]
    for i in range(n):
        for j in range(n):
            for k in range(p):
                C[i, j] += A[i, k] * A[j, k]


def self_update(C, A):
    """Reads its own output as the column operand: packing C would read stale values."""
    n = C.shape[0]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += A[i, k] * C[k, j]


def row_self_update(C, B):
    """Reads its own output as the row operand: packing C's rows would read stale values."""
    n = C.shape[0]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += C[i, k] * B[k, j]


def scaled(alpha, C, A, B):
    """gemm's product: ``alpha * A[i, k]`` is packed already scaled."""
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += alpha * A[i, k] * B[k, j]


def scaled_by_a_local(C, A, B):
    """The factor is a local the function writes: not packed into the panel."""
    n, m = C.shape
    p = A.shape[1]
    s = 0.5
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += s * A[i, k] * B[k, j]
        s = s + 1.0


def nested(C, A, B):
    """The matmul nest sits inside a time loop."""
    n = C.shape[0]
    for _t in range(2):
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    C[i, j] += A[i, k] * B[k, j]


@pytest.mark.parametrize("n", SIZES)
def test_matmul_with_packed_panels_matches_python(n):
    rng = np.random.default_rng(n)
    f = polyopt.jit(matmul)
    C, A, B = rng.random((n, n + 3)), rng.random((n, n + 1)), rng.random((n + 1, n + 3))
    check_against_python(f, A, B, C)


@pytest.mark.parametrize("n", SIZES)
def test_transposed_operand_is_packed_and_matches_python(n):
    rng = np.random.default_rng(n)
    f = polyopt.jit(syrk_like)
    check_against_python(f, rng.random((n, n)), rng.random((n, n + 2)))


def test_panels_are_read_with_constant_lane_offsets():
    rng = np.random.default_rng(0)
    args = (rng.random((16, 16)), rng.random((16, 16)), np.zeros((16, 16)))
    c = polyopt.jit(matmul).c_source(*args)
    assert "B_pk" in c
    loads = re.findall(r"= (B_pk\[[^\]]*\]);", c)
    assert loads, c
    lanes = [re.fullmatch(r"B_pk\[\(c\d+ \* \w+ \+ c\d+\) \* 8 \+ (\d)\]", x) for x in loads]
    assert all(lanes), loads  # no division left in the micro-kernel's subscripts
    assert sorted({int(m.group(1)) for m in lanes}) == list(range(8))
    # the row operand: 6 rows (avx2's float64 tile, conftest) per panel, each row's run
    # over k contiguous, so that the micro-kernel broadcasts every element from memory;
    # gemm's alpha * A[i, k] (matmul's plain A[i, k] is read in place: test below)
    rows = re.findall(r"= (A_pk\[[^\]]*\]);", polyopt.jit(scaled).c_source(1.5, *args[2:], *args[:2]))
    lanes = [re.fullmatch(r"A_pk\[\(c\d+ \* 6 \+ (\d)\) \* \w+ \+ c\d+\]", x) for x in rows]
    assert rows and all(lanes), rows
    assert sorted({int(m.group(1)) for m in lanes}) == list(range(6))
    assert "B_pk" not in polyopt.jit(matmul, pack=False).c_source(*args)
    assert "A_pk" not in polyopt.jit(matmul, pack=False).c_source(*args)
    assert "A_pk" in polyopt.jit(syrk_like).c_source(args[2], args[0])


def all_but_last_column(C, A, B):
    """Reads A's rows up to their last column: a panel's row is shorter than A's."""
    n, m = C.shape
    p = A.shape[1] - 1
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += A[i, k] * B[k, j]


def test_a_row_operand_already_laid_out_as_its_panels_is_read_in_place():
    """matmul's ``A[i, k]`` over A's whole rows: ``A_pk[i // MR, i % MR, k]`` would sit
    where ``A[i, k]`` does, so the micro-kernel reads A; the column operand is packed."""
    rng = np.random.default_rng(0)
    args = (rng.random((16, 16)), rng.random((16, 16)), np.zeros((16, 16)))
    c = polyopt.jit(matmul).c_source(*args)
    assert "B_pk" in c and "A_pk" not in c
    assert re.search(r"= A\[", _micro(c)), c
    short = polyopt.jit(all_but_last_column)
    assert "A_pk" in short.c_source(args[2], rng.random((16, 17)), args[1])
    for n in SIZES:
        check_against_python(short, np.zeros((n, n + 3)), rng.random((n, n + 2)),
                             rng.random((n + 1, n + 3)))


def _micro(c: str) -> str:
    m = re.search(r"static void \w+_micro\d+\(.*?\n\}\n", c, re.S)
    assert m, "no micro-kernel"
    return m.group(0)


def test_pack_refuses_an_operand_the_nest_writes():
    scop = parse_function(self_update)
    st = scop.statement("S0")
    (read,) = panel_operands(st, "k", "j")
    assert read.target == "C"
    top = scop.schedule.dims[0].loop_id  # the i loop
    with pytest.raises(IllegalTransformationError, match="S0 writes it") as info:
        pack(scop, scop.schedule, "S0", read, "k", "j", 8, top)
    # the dependence that makes the copy stale: S0 writes C[i, j], S0 reads C[k, j]
    assert info.value.violated
    assert all(d.array == "C" and d.source.statement == d.sink.statement == "S0"
               and read.tag in (d.source.tag, d.sink.tag) for d in info.value.violated)
    assert "line" in str(info.value) and "C" in str(info.value)


def test_pack_refuses_a_row_operand_the_nest_writes():
    scop = parse_function(row_self_update)
    (read,) = panel_operands(scop.statement("S0"), "k", "i")
    assert read.target == "C" and [ix.as_name() for ix in read.indices] == ["i", "k"]
    top = scop.schedule.dims[0].loop_id
    with pytest.raises(IllegalTransformationError, match="S0 writes it") as info:
        pack(scop, scop.schedule, "S0", read, "k", "i", 6, top)
    assert info.value.violated


@pytest.mark.parametrize("n", (13, 20, 37))  # at least one 6 x 8 register tile
def test_row_self_update_is_not_packed_and_matches_python(n):
    rng = np.random.default_rng(n)
    f = polyopt.jit(row_self_update)
    assert "C_pk" not in f.c_source(rng.random((n, n)), rng.random((n, n)))
    check_against_python(f, rng.random((n, n)), rng.random((n, n)))


def test_self_update_still_matches_python():
    rng = np.random.default_rng(3)
    f = polyopt.jit(self_update)
    check_against_python(f, rng.random((13, 13)), rng.random((13, 13)))


def test_pack_refuses_a_nest_inside_other_loops():
    scop = parse_function(nested)
    (read,) = panel_operands(scop.statement("S0"), "k", "j")
    inner = scop.schedule.child.dims[0].loop_id  # the i loop, inside t
    with pytest.raises(PolyoptError, match="inside other loops") as info:
        pack(scop, scop.schedule, "S0", read, "k", "j", 8, inner)
    # not supported, rather than illegal: no dependence is involved
    assert not isinstance(info.value, IllegalTransformationError)



def test_a_scaled_row_operand_is_packed_with_its_factor_and_exact():
    """``alpha * A[i, k]`` computed once per element in the copy: the same product,
    rounded the same way, so strict_fp's bit-exact result is unchanged."""
    rng = np.random.default_rng(5)
    n = 37
    args = (1.7, rng.random((n, n + 3)), rng.random((n, n + 1)), rng.random((n + 1, n + 3)))
    f = polyopt.jit(scaled, strict_fp=True)
    c = f.c_source(*args)
    assert re.search(r"A_pk\[[^\]]*\] = \(alpha \* A\[", c), c
    micro = re.sub(r"/\*.*?\*/", "", c[c.index("_micro"):])  # without the comments
    assert "alpha" not in micro[micro.index("{"):micro.index("\n}\n")]
    expected = args[1].copy()
    scaled(args[0], expected, args[2], args[3])
    actual = args[1].copy()
    f(args[0], actual, args[2], args[3])
    np.testing.assert_array_equal(actual, expected)  # bit for bit


@pytest.mark.parametrize("n", (13, 37))
def test_a_factor_the_function_writes_is_not_packed(n):
    rng = np.random.default_rng(n)
    f = polyopt.jit(scaled_by_a_local)
    args = (rng.random((n, n + 3)), rng.random((n, n + 1)), rng.random((n + 1, n + 3)))
    assert not re.search(r"A_pk\[[^\]]*\] = \(s", f.c_source(*args))
    check_against_python(f, *args)


def part_of_the_operands(A, B, C):
    """A matmul over part of its operands, with a k range that is empty for small
    arrays (p - 5 < 0)."""
    n, p = A.shape
    m = B.shape[1]
    for i in range(n - 2):
        for j in range(1, m):
            for k in range(p - 5):
                C[i, j] += A[i + 1, k] * B[k, j]


@pytest.mark.parametrize("n, p, m", [(40, 37, 33), (19, 3, 24), (3, 30, 17), (2, 2, 2)])
def test_panels_are_sized_by_the_loops_never_negative(n, p, m):
    """Panels cover the elements the loops read (the loop bounds, here n - 2 and p - 5),
    and a bound that is negative for small arrays (p - 5 with p = 3) falls back to the
    operand's extent: NumPy refuses a negative one."""
    rng = np.random.default_rng(n + p + m)
    A, B, C = rng.random((n, p)), rng.random((p, m)), rng.random((n, m))
    check_against_python(polyopt.jit(part_of_the_operands), A, B, C)
    src = polyopt.jit(part_of_the_operands).c_source(A, B, C)
    assert "B_pk" in src  # A[i + 1, k] is no plain row operand: not packed


def _short_k(C, A, B, K):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]


def test_an_out_of_bounds_read_through_a_panel_is_named_as_written():
    """The panel copy is what reads B, but the message names the user's read (hostile
    session 45a, 01: `reads B[k, 4 * j_panel + j_lane] (packing B for ...)`)."""
    A, B, C = np.ones((20, 10)), np.ones((10, 12)), np.zeros((20, 12))
    with pytest.raises(IndexError) as info:
        polyopt.jit(_short_k)(C, A, B, 11)
    message = str(info.value)
    assert "reads B[k, j] (C[i, j] += A[i, k] * B[k, j])" in message or \
        "reads A[i, k] (C[i, j] += A[i, k] * B[k, j])" in message, message
    assert "panel" not in message and "packing" not in message, message
