"""``polyopt opt`` reads a row pointer once before a simd loop: ``double **A`` read as
``A[i][j]`` in a loop over ``j`` loads ``A[i]`` in every iteration, and under ``omp
simd`` gcc gathers it lane by lane (bicg's C path ran at half the original's speed on
one thread).

Differential: the optimized program prints what the original prints, also under
AddressSanitizer where the row of a zero-trip loop does not exist (the read is
guarded by the loop's first test).  Structural: the row is hoisted in bicg, and not
for arrays whose rows are contiguous.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_cli import CC, polyopt
from test_cli_private_arrays import _optimized, every_build_agrees

TRIANGLE = r"""
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, double **L, double *x, double *b)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] = x[i] - L[i - 1][j] * x[j];
  }
#pragma endscop
}

int main(void)
{
  int n = 23, i, j;
  /* rows 0..n-2 only: the row i - 1 of i = 0 does not exist */
  double **L = malloc(sizeof(double *) * (n - 1));
  double *x = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (i = 0; i < n - 1; i++) {
    L[i] = malloc(sizeof(double) * n);
    for (j = 0; j < n; j++)
      L[i][j] = ((i + 2 * j) % 5) * 0.25;
  }
  for (i = 0; i < n; i++)
    b[i] = i % 3;
  kernel(n, L, x, b);
  for (i = 0; i < n; i++)
    printf("%.6e\n", x[i]);
  for (i = 0; i < n - 1; i++)
    free(L[i]);
  free(L); free(x); free(b);
  return 0;
}
"""


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


def test_a_row_is_read_only_when_its_loop_runs(tmp_path: Path) -> None:
    src, text = _optimized(tmp_path, "triangle", TRIANGLE)
    assert re.search(r"__typeof__\(L\[c0 - 1\]\) const (polyopt_row\d+) = "
                     r"\(\(0\) < c0\) \? L\[c0 - 1\] : 0;", text), text
    every_build_agrees(tmp_path, src, tmp_path / "triangle.opt.c")


def test_bicg_reads_each_row_of_a_once() -> None:
    proc = polyopt("opt", "examples/c/bicg.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    region = proc.stdout[proc.stdout.index("/* polyopt: optimized scop region"):]
    simd = region[region.index("#pragma omp simd reduction"):]
    loop = simd[:simd.index("\n      }\n")]
    code = re.sub(r"/\*.*?\*/", "", loop)  # the comments quote the source
    assert "A[" not in code, loop
    assert re.search(r"polyopt_row\d+\[c1\]", loop) and re.search(r"polyopt_row\d+\[j\]", loop)


def test_contiguous_rows_are_left_as_they_are() -> None:
    proc = polyopt("opt", "examples/c/atax.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert "polyopt_row" not in proc.stdout
