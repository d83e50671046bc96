"""Accumulator promotion (polyopt.transforms.promote): ``acc = 0; for k: acc += ...;
C[i, j] = acc`` keeps the sum in ``C[i, j]``, which frees the loop order.

Differential tests compare with CPython; the structural ones check which chains are
promoted and which must not be (the element's old value is still needed, another access
touches it in between, the scalar outlives the store, or the types differ).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function
from test_auto import placements

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.model.aff import Lin
from polyopt.transforms.promote import expandable, find_chains, promote

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt
from examples.polybench import KERNELS  # noqa: E402


def matmul_acc_scalar(A, B, C):
    n, m = A.shape
    p = B.shape[1]
    for i in range(n):
        for j in range(p):
            acc = 0.0
            for k in range(m):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc


def lu_scalar(A):
    # ludcmp's first nest: w = A[i, j] ... A[i, j] = w / A[j, j]
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            w = A[i, j]
            for k in range(j):
                w -= A[i, k] * A[k, j]
            A[i, j] = w / A[j, j]
        for j in range(i, n):
            w = A[i, j]
            for k in range(i):
                w -= A[i, k] * A[k, j]
            A[i, j] = w


def store_reads_old_value(A, B, C):
    # symm's pattern: the store also reads C[i, j] as it was before the chain
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for k in range(m):
                acc += A[i, k] * B[k, j]
            C[i, j] = 0.5 * C[i, j] + acc


def element_read_in_between(A, C):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            acc = 1.0
            for k in range(m):
                acc += A[i, k] * C[i, k]  # C[i, j] itself when k == j
            C[i, j] = acc


def scalar_outlives_store(A, C, out):
    n, m = A.shape
    for i in range(n):
        acc = 0.0
        for k in range(m):
            acc += A[i, k]
        C[i] = acc
        out[i] = acc * 2.0


def float32_target(A, C):
    # acc is float64 (A is): keeping the partial sums in C would round each of them
    n, m = A.shape
    for i in range(n):
        acc = 0.0
        for k in range(m):
            acc += A[i, k]
        C[i] = acc


def _chains(fn, *args):
    k = polyopt.jit(fn)
    scop = parse_function(fn, k._sig_for(args, {}))
    return scop, find_chains(scop, analyze(scop))


def _mm_args(rng, n=13):
    return (rng.random((n, n + 2)), rng.random((n + 2, n + 1)), np.zeros((n, n + 1)))


def test_matmul_accumulator_becomes_the_element_and_gets_register_tiled(rng):
    args = _mm_args(rng)
    scop, chains = _chains(matmul_acc_scalar, *args)
    assert [(c.scalar, c.store) for c in chains] == [("acc", "S2")]
    new = promote(scop, analyze(scop))
    assert "acc" not in new.scalars
    assert all(s.target == "C" for s in new.statements)
    k = polyopt.jit(matmul_acc_scalar)
    c = k.c_source(*_mm_args(rng, 40))
    assert "double acc" not in c
    assert "B_pk" in c and "#pragma omp parallel for" in c  # packed, register-tiled
    check_against_python(k, *args)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17])
def test_matmul_accumulator_results_equal_python(rng, n):
    check_against_python(polyopt.jit(matmul_acc_scalar), *_mm_args(rng, n))


def test_lu_scalar_chains_drop_their_copies(rng):
    n = 9
    M = rng.random((n, n)) + n * np.eye(n)
    scop, chains = _chains(lu_scalar, M)
    assert len(chains) == 2
    new = promote(scop, analyze(scop))
    # w = A[i, j] and A[i, j] = w become A[i, j] = A[i, j]: both dropped
    assert len(new.statements) == len(scop.statements) - 3
    assert "w" not in new.scalars
    check_against_python(polyopt.jit(lu_scalar), M)


@pytest.mark.parametrize("fn", [store_reads_old_value, element_read_in_between,
                                scalar_outlives_store, float32_target])
def test_chains_that_must_not_be_promoted(rng, fn):
    if fn is store_reads_old_value:
        args = (rng.random((13, 15)), rng.random((15, 15)), rng.random((13, 15)))
    elif fn is element_read_in_between:
        args = (rng.random((11, 11)), rng.random((11, 11)))
    elif fn is scalar_outlives_store:
        args = (rng.random((11, 7)), np.zeros(11), np.zeros(11))
    else:
        args = (rng.random((11, 7)), np.zeros(11, dtype=np.float32))
    _, chains = _chains(fn, *args)
    assert chains == [], chains
    check_against_python(polyopt.jit(fn), *args)


symm_like = KERNELS["symm"].kernel  # temp2 += B[k, j] * A[i, k]; C[i, j] = beta * C[i, j] + ...


def _symm_args(rng, m=9, n=11):
    return (1.5, 1.2, rng.random((m, n)), rng.random((m, m)), rng.random((m, n)))


def test_a_chain_whose_store_reads_the_old_element_is_expanded_instead(rng):
    # temp2 cannot live in C[i, j] (the store reads C[i, j] as it was), but one temp2 per
    # (i, j) frees the order: inside a tile the k loop runs outside j, unit stride
    args = _symm_args(rng)
    scop, chains = _chains(symm_like, *args)
    assert chains == []
    (chain, shape), = expandable(scop, analyze(scop))
    assert chain.scalar == "temp2" and shape == (Lin.var("m"), Lin.var("n")), (chain, shape)
    k = polyopt.jit(symm_like)
    c = k.c_source(*_symm_args(rng, 40, 50))
    (p,) = placements(c, "temp2 += B[k, j] * A[i, k]")
    assert p.bindings["j"] == p.innermost and "simd" in p.pragmas[-1], p
    check_against_python(k, *args)


@pytest.mark.parametrize("m,n", [(0, 3), (1, 1), (2, 5), (13, 7)])
def test_expanded_scalar_results_equal_python(rng, m, n):
    check_against_python(polyopt.jit(symm_like), *_symm_args(rng, m, n))


def test_no_expansion_where_the_scalar_outlives_the_chain(rng):
    args = (rng.random((11, 7)), np.zeros(11), np.zeros(11))
    scop, _ = _chains(scalar_outlives_store, *args)
    assert expandable(scop, analyze(scop)) == []


def two_chains_two_elements(x, Y):
    for i in range(x.shape[0]):
        a = x[i] + 1.0
        b = x[i] * 2.0
        Y[i, 0] = a
        Y[i, 1] = b


def test_chains_into_one_array_are_promoted_one_round_at_a_time(rng):
    # each round rewrites one chain per array, then checks the others on the new program:
    # b is still promoted (Y[i, 1] is not Y[i, 0]), in a second round
    args = (rng.random(9), np.zeros((9, 2)))
    scop, chains = _chains(two_chains_two_elements, *args)
    assert sorted(c.scalar for c in chains) == ["a", "b"]
    new = promote(scop, analyze(scop))
    assert "a" not in new.scalars and "b" not in new.scalars
    assert [s.target for s in new.statements] == ["Y", "Y"]
    check_against_python(polyopt.jit(two_chains_two_elements), *args)
