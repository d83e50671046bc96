"""Generating the loop code is bounded, and past the bound the source order is used.

A fuzzed C region (fuzz run U, seed 41, program 31: float32 ``A[n][m][p]`` updated
under ``fmax``/``copysign`` guards, a loop stepping by 3 with ``i % 2 == 1`` inside)
spent 550 s in one call of isl's AST generator for its optimized schedule, where its
source order takes 0.01 s.  ``build_ast`` now runs under an operations budget
(``AST_OPS``); past it the plan falls back to the source order run sequentially, with a
RuntimeWarning, on both paths.  Here the first build of each test goes past it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from polyopt.backend_c import ast_walk

import polyopt
from polyopt.cli.command import main as cli_main
from polyopt.model.errors import TooComplexError


@pytest.fixture
def first_build_too_complex(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first loop code built goes past the budget, as the fuzzed region's did."""
    builds: list[int] = []
    real = ast_walk.AstWalker.build_ast

    def build_ast(self, tree):
        builds.append(1)
        if len(builds) == 1:
            raise TooComplexError("generating the loop code is too complex: isl gave up "
                                  "after its budget of 10,000,000 operations. Simplify")
        return real(self, tree)

    monkeypatch.setattr(ast_walk.AstWalker, "build_ast", build_ast)
    return builds


def smooth(A, B):
    n, m = A.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            B[i, j] = (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1]) * 0.25


def test_the_jit_falls_back_to_the_source_order(first_build_too_complex: list[int]) -> None:
    a, want, got = np.random.default_rng(0).random((9, 11)), np.zeros((9, 11)), np.zeros((9, 11))
    smooth(a, want)
    k = polyopt.jit(smooth, cache=False)
    with pytest.warns(RuntimeWarning, match="generating the loop code is too complex"):
        k(a, got)
    np.testing.assert_array_equal(got, want)
    assert len(first_build_too_complex) == 2


def test_the_cli_falls_back_to_the_source_order(first_build_too_complex: list[int],
                                                tmp_path: Path, capsys) -> None:
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent("""\
        void k(int n, double A[n], double B[n])
        {
        #pragma scop
          for (int i = 1; i < n - 1; i++)
            B[i] = (A[i - 1] + A[i + 1]) * 0.5;
        #pragma endscop
        }
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "k.opt.c")]) == 0
    # the command prints its warnings as its own lines (polyopt.cli.command)
    err = capsys.readouterr().err
    assert "polyopt: warning: generating the loop code is too complex" in err
    assert "running the source loop order sequentially" in err
    out = (tmp_path / "k.opt.c").read_text()
    assert "* 0.5" in out and "omp" not in out  # the statement, run sequentially
