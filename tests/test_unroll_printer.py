"""The printer's unrolling of register tiles (backend_c/unroll.py).

isl builds the point loops of a whole register tile as ordinary loops and the
printer writes the copies: the C must be the one isl's own unrolling gives, with
isl asked once per nest.  A loop whose trip count is not a constant (a user's unroll-and-jam
of a ragged loop) makes the AST be built again with isl unrolling, and stays exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python
from kernels import gemm
from polyopt.backend_c import ast_walk
from test_transforms import matmul  # matmul(A, B, C): C[i, j] += A[i, k] * B[k, j]

import polyopt


@pytest.fixture
def isl_unroll_requests(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The ``unroll`` argument of every schedule the walker hands to isl."""
    seen: list[bool] = []
    real = ast_walk.to_isl

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(args[4] if len(args) > 4 else kwargs.get("unroll", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(ast_walk, "to_isl", spy)
    return seen


def _gemm_args(n: int, dtype: str = "float64") -> tuple:
    rng = np.random.default_rng(n)
    return (1.5, 1.2, rng.random((n, n + 3)).astype(dtype), rng.random((n, n + 1)).astype(dtype),
            rng.random((n + 1, n + 3)).astype(dtype))


@pytest.mark.parametrize("target", ["avx2", "avx512"])
def test_register_tile_printed_as_isl_unrolls_it(target, isl_unroll_requests, monkeypatch):
    monkeypatch.setenv("POLYOPT_TARGET", target)
    args = _gemm_args(37)
    printed = polyopt.jit(gemm).c_source(*args)
    # one AST per nest (the scaling by beta, the matmul...), the copies written by the printer
    nests = len(isl_unroll_requests)
    assert nests >= 1 and isl_unroll_requests == [False] * nests
    monkeypatch.setattr(ast_walk, "expandable", lambda *a: False)  # isl unrolls instead
    by_isl = polyopt.jit(gemm).c_source(*args)
    assert isl_unroll_requests[nests:] == [False, True] * nests
    assert "_micro" in printed and printed == by_isl


@pytest.mark.parametrize("n", (5, 16, 37))
def test_gemm_with_printed_copies_matches_python(n):
    check_against_python(polyopt.jit(gemm), *_gemm_args(n))


@pytest.mark.parametrize("factor", (3, 4))
def test_ragged_unroll_jam_falls_back_to_isl_and_stays_exact(factor, isl_unroll_requests):
    k = polyopt.schedule(matmul).interchange("j", "k").unroll_jam("i", factor).compile()
    rng = np.random.default_rng(factor)
    args = (rng.random((7, 5)), rng.random((5, 6)), rng.random((7, 6)))
    k.c_source(*args)
    # the copies' trip count is min(factor, n - i): not a constant, isl unrolls
    assert isl_unroll_requests == [False, True]
    check_against_python(k, *args)
