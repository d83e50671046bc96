"""Register tiling works on one nest of the program at a time.

A matmul nest that is one child of the program's top-level sequence is split, checked
and register-tiled as a program of its own statements (``register_tiling._nest_alone``):
the order between the top-level nests does not change, so its own dependences decide
legality, and each split analyses one nest instead of the whole program.  The results
must not change, also where later nests read what the tiled one wrote, and where a
local scalar links the nest to another (then the whole program is analysed).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import check_against_python

import polyopt


def chain(A, B, C, D, E, F):
    ni, nk = A.shape
    nj = B.shape[1]
    nl = D.shape[1]
    for i in range(ni):
        for j in range(nj):
            C[i, j] = 0.0
            for k in range(nk):
                C[i, j] += A[i, k] * B[k, j]
    for i in range(ni):
        for j in range(nj):
            C[i, j] = C[i, j] * 0.5 + 1.0
    for i in range(ni):
        for j in range(nl):
            E[i, j] = 0.0
            for k in range(nj):
                E[i, j] += C[i, k] * D[k, j]
    for i in range(ni):
        F[i] = E[i, nl - 1] - C[i, 0]


def scalar_between(A, B, C, out):
    n, m = C.shape
    last = 0.0
    for i in range(n):
        for j in range(m):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
        last = C[i, 0]
    for i in range(n):
        out[i] = C[i, m - 1] + last


def _micro_kernels(source: str) -> int:
    return len(set(re.findall(r"static void (\w+_micro\d+)\(", source)))


@pytest.mark.parametrize("ni, nk, nj, nl", [(37, 19, 41, 23), (1, 1, 1, 1), (16, 8, 48, 33)])
def test_a_chain_of_nests_gives_python_results(ni, nk, nj, nl):
    rng = np.random.default_rng(ni)
    args = (rng.random((ni, nk)), rng.random((nk, nj)), np.zeros((ni, nj)),
            rng.random((nj, nl)), np.zeros((ni, nl)), np.zeros(ni))
    k = polyopt.jit(chain)
    check_against_python(k, *args)
    assert _micro_kernels(k.c_source(*args)) >= 2  # both products, each tiled alone


def test_a_scalar_written_by_the_nest_and_read_after_it():
    rng = np.random.default_rng(1)
    args = (rng.random((29, 13)), rng.random((13, 35)), rng.random((29, 35)), np.zeros(29))
    k = polyopt.jit(scalar_between)
    check_against_python(k, *args)
