"""Loops on a lattice (a step other than 1, a ``%`` test) are not tiled.

isl's AST generator dropped instances of a legal tiling whose tiles do not align with
such a lattice: ``tile=(2, 3)`` on ``for i in range(1, n, 3): for j in range(i, -1, -2)``
ran 112 of its 176 instances for ``n = 45`` (the schedule ``[floor(i/2), floor(-j/3),
i, -j]``, reproduced with islpy alone).  polyopt now leaves such loops untiled and
refuses a user's request to tile or unroll-and-jam them; unit-step loops, and bounds that
divide a size (``range(n // 2)``), are tiled as before.
"""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest

import polyopt
from polyopt.model.names import has_iterator_stride


def strided_transpose_copy(n, A, B):
    for i in range(1, n, 3):
        for j in range(i, -1, -2):
            B[i, j] = A[i, j]
            A[j, i] = 1.0


def even_rows(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if i % 2 == 0:
                B[i, j] = A[j, i] * 2.0


def half(A, B):
    for i in range(A.shape[0] // 2):
        for j in range(A.shape[1]):
            B[i, j] = A[j, i] + 1.0


def _inputs():
    A = np.fromfunction(lambda i, j: (i * 13 + j * 7) % 11, (50, 50))
    B = np.fromfunction(lambda i, j: (i * 3 + j) % 5 - 2.0, (50, 50))
    return A, B


@pytest.mark.parametrize("tile", [(2, 3), (3, 2), (4, 4), (2, 2), (5, 7)])
def test_a_strided_nest_runs_every_instance_under_small_tiles(tile):
    for n in (45, 50, 7):
        want_a, want_b = _inputs()
        strided_transpose_copy(n, want_a, want_b)
        got_a, got_b = _inputs()
        polyopt.jit(strided_transpose_copy, tile=tile, parallel=False)(n, got_a, got_b)
        assert np.array_equal(got_a, want_a) and np.array_equal(got_b, want_b)


def test_a_guarded_nest_runs_every_instance_under_small_tiles():
    want_a, want_b = _inputs()
    even_rows(want_a, want_b)
    got_a, got_b = _inputs()
    polyopt.jit(even_rows, tile=(2, 3))(got_a, got_b)
    assert np.array_equal(got_b, want_b)


def test_a_users_tile_of_a_strided_loop_is_refused_and_a_unit_step_one_is_not():
    s = polyopt.schedule(strided_transpose_copy)
    with pytest.raises(polyopt.PolyoptError, match="tiling of loop i is not done.*lattice"):
        s.tile(["i", "j"], [2, 3])
    with pytest.raises(polyopt.PolyoptError, match="unroll-and-jam of loop i is not done"):
        s.unroll_jam("i", 2)
    tiled = polyopt.schedule(half).tile(["i", "j"], [2, 3])  # n // 2 is no lattice
    want_a, want_b = _inputs()
    half(want_a, want_b)
    got_a, got_b = _inputs()
    tiled.compile()(got_a, got_b)
    assert np.array_equal(got_b, want_b)
    assert "i.tile" in tiled.loops()


def double_buffered(A, B):
    for t in range(4):  # noqa: B007 (the time loop, as in PolyBench)
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        A, B = B, A


def test_a_double_buffers_step_is_named_in_the_refusal():
    """Hostile session 47a, finding 07: the user wrote no step; the lattice comes from
    the time loop's two copies of the body."""
    s = polyopt.schedule(double_buffered)
    with pytest.raises(polyopt.PolyoptError, match="lattice.*here loop t steps by 2: its body "
                       "ends in a double-buffer swap"):
        s.tile(["i", "j"], [8, 8])
    with pytest.raises(polyopt.PolyoptError) as err:
        polyopt.schedule(strided_transpose_copy).tile(["i", "j"], [2, 3])
    assert "double-buffer" not in str(err.value)


def test_lattices_are_told_from_divided_sizes():
    assert has_iterator_stride(isl.Set("[n] -> { S[i] : 0 <= i < n and i mod 3 = 1 }"))
    assert has_iterator_stride(isl.Set("[n] -> { S[i, j] : 0 <= j <= i < n and "
                                       "exists e : j = i - 2e }"))
    assert not has_iterator_stride(isl.Set("[n] -> { S[i] : 0 <= i < floor(n / 2) }"))
    assert not has_iterator_stride(isl.Set("[n] -> { S[i] : 0 <= 2i < n }"))
    assert not has_iterator_stride(isl.Set("[n] -> { S[i] : exists e : n = 2e and 0 <= i < n }"))


def test_the_partial_tiles_of_a_split_are_no_lattice():
    """A register tile's remainder (``6e <= i < 6e + 6`` in inequalities) is dense: it is
    still tiled (syrk's remainder statement keeps its cache tiles)."""
    rest = isl.Set("[n] -> { S[i, j] : 0 <= j <= i < n and (i >= 6 * floor(n / 6) or "
                   "exists e : 6e <= i < 6e + 6 and j > 6e - 8) }")
    assert not has_iterator_stride(rest)
    assert has_iterator_stride(isl.Set("[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n and "
                                       "j mod 2 = 0 }"))


def test_scaled_loops_are_a_lattice_too():
    """isl also lost instances of tiles over loops scaled by a factor, on a dense domain:
    [floor(3i/2), floor((2j + i)/3), 3i, 2j + i] ran 192 of 276 (islpy alone); a band
    whose coefficients' maximal minors have a gcd above 1 is left untiled."""
    from polyopt.model.aff import Lin
    from polyopt.transforms.tile import _unimodular

    def lin(**coeffs: int) -> Lin:
        return Lin(tuple(coeffs.items()), 0)

    assert _unimodular([lin(i=1), lin(j=1)], ("i", "j"))
    assert _unimodular([lin(i=1), lin(j=1, i=2)], ("i", "j"))  # a skew
    assert _unimodular([lin(j=-1), lin(i=1)], ("i", "j"))  # a reversal, an interchange
    assert _unimodular([lin(i=1), lin(i=1)], ("i", "k"))  # outside the inner loop
    assert _unimodular([lin(i=2, j=1)], ("i", "j"))  # gcd(2, 1) = 1
    assert not _unimodular([lin(i=3), lin(j=2, i=1)], ("i", "j"))
    assert not _unimodular([lin(i=2)], ("i", "j"))
    assert not _unimodular([lin(i=2), lin(i=4)], ("i", "k"))
