"""C a careless user writes that polyopt refuses, or reads once rewritten (second
hostile-user round): each refusal names the file position and the rewrite that works,
and each rewrite computes what the original does (``same_as_unoptimized``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_hostile_c import same_as_unoptimized

from polyopt.cli.command import main as cli_main


def test_a_flattened_subscript_says_how_to_declare_the_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`B[i * n + j]`, the commonest way C code indexes a matrix, was refused only as
    'multiplies two non-constant expressions'; the message now names the declaration
    polyopt takes (`float (*B)[n]`) and the subscript to write."""
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent("""\
        void k(int n, double *A, float *B) {
        #pragma scop
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
              B[i * n + j] = A[j * n + i];
        #pragma endscop
        }
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    err = capsys.readouterr().err
    assert "k.c:5:9:" in err and "`float (*B)[n]`" in err and "write `B[i][j]`" in err


VLA_ROWS = """\
#include <stdio.h>
void k(int n, double (*A)[n], double B[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = A[j][i] + 1;
#pragma endscop
}
int main(void) {
  int n = 37;
  double A[37][37], B[37][37];
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) A[i][j] = i * 100 + j;
  k(n, A, B);
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) printf("%g\\n", B[i][j]);
  return 0;
}
"""


def test_the_suggested_declarations_compute_right(tmp_path: Path) -> None:
    same_as_unoptimized(tmp_path, VLA_ROWS)


SIZE_T = """\
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
void k(size_t n, double *x, uint8_t *u)
{
  long n_ = n;
#pragma scop
  for (long i = 0; i < n_; i++) {
    x[i] = x[i] * 2;
    u[i] = (uint8_t)(u[i] + 1);
  }
#pragma endscop
}
int main(void) {
  double x[100];
  uint8_t u[100];
  for (int i = 0; i < 100; i++) { x[i] = i * 1.5; u[i] = i * 3; }
  k(100, x, u);
  k(0, x, u);
  for (int i = 0; i < 100; i++) printf("%g %u\\n", x[i], u[i]);
  return 0;
}
"""


def test_size_t_loops_are_refused_with_the_rewrite_that_works(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`for (size_t i = 0; i < n; i++)` over a `size_t n`, as C code often loops, was
    refused as 'must be an int or long variable' and then '`n` is `unsigned long`',
    without saying what to write; both messages now say it, and the rewrite runs."""
    src = tmp_path / "k.c"
    src.write_text(SIZE_T.replace("for (long i = 0; i < n_; i++)", "for (size_t i = 0; i < n; i++)"))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    assert "not `unsigned long`" in capsys.readouterr().err
    src.write_text(SIZE_T.replace("i < n_", "i < n"))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    assert "`long n_ = n;`" in capsys.readouterr().err
    same_as_unoptimized(tmp_path, SIZE_T)


BITWISE_MACROS = """\
#include <stdio.h>
#define N (1 << 6)
#define HALF (N >> 1)
#define MASK (N - 1)
#define BIG (1L << 40)
void k(double A[N], double B[N], long L[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    B[i] = A[i] * 2 + HALF + (3 & 1) + (~0) + (MASK ^ 5) + (-8 >> 1);
  for (int i = HALF; i < N - (2 | 1); i++)
    L[i] = BIG / (1 << 3) + A[i - (N >> 2)];
#pragma endscop
}
int main(void) {
  double A[N], B[N];
  long L[N];
  for (int i = 0; i < N; i++) { A[i] = i; L[i] = 0; }
  k(A, B, L);
  for (int i = 0; i < N; i++) printf("%g %ld\\n", B[i], L[i]);
  return 0;
}
"""


def test_bitwise_constant_macros_are_numbers(tmp_path: Path) -> None:
    """`#define N (1 << 6)` made every loop over N a refusal ('`1 << 6`: is not an affine
    expression'), and `HALF` (N >> 1) or `~0` in a value 'bitwise operators are not
    supported'; such constant expressions are now folded as C folds them."""
    text = same_as_unoptimized(tmp_path, BITWISE_MACROS)
    assert "<<" not in text.split("optimized scop region")[1].split("int main")[0]


DIVIDED_MACROS = """\
#include <stdio.h>
#define N 32
#define HALF ((int)N >> 1)
int A[N], B[N];
long L[N];
int main(void) {
  for (int i = 0; i < N; i++) B[i] = 3 * i - 40;
#pragma scop
  for (int i = 0; i < N / 2; i++) A[i] = i + (-7) / 2 + (-7) % 3;
  for (int i = 0; i < HALF; i++) A[i + HALF] = B[i + N % 5] / (N / 8) - (long)HALF;
  for (int i = (N - 1) / 3; i < N; i++) L[i] = B[i] * (1 / 2 + 7L / 3);
#pragma endscop
  for (int i = 0; i < N; i++) printf("%d %ld\\n", A[i], L[i]);
  return 0;
}
"""


def test_constant_divisions_and_casts_of_macros_are_numbers(tmp_path: Path) -> None:
    """Hostile session 41b, finding 07: `i < N / 2` of a `#define N 32` was refused
    ('integer division ... not supported in loop bounds'), and `((int)N >> 1)` was
    'not an affine expression'.  Constant divisions fold as C truncates them (`(-7) /
    2` is -3, `(-7) % 3` is -1), and casts of constants to int or long to their
    values."""
    text = same_as_unoptimized(tmp_path, DIVIDED_MACROS)
    region = text.split("optimized scop region")[1].split("int main")[0]
    assert "/ 2" not in region and ">>" not in region


LOCAL_TYPEDEF = """\
#include <stdio.h>
int main(void) {
  typedef double real;
  real A[64][64], B[64][64], C[64][64];
  for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) { A[i][j] = i * 0.5 + j; B[i][j] = i - j * 0.25; C[i][j] = 0; }
  real t;
#pragma scop
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      t = (real)0;
      for (int k = 0; k < 64; k++) t += A[i][k] * B[k][j];
      C[i][j] = t;
    }
#pragma endscop
  double s = 0; for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) s += C[i][j] * (i + 1) - j;
  printf("%.6f\\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("options", [(), ("--verify",)])
def test_a_typedef_inside_the_function_is_read(tmp_path: Path, options: tuple[str, ...]) -> None:
    """Hostile session 41b, finding 03: `typedef double real;` inside `main` made `real
    t;` 'type `real` is not supported', where the same typedef at file scope was read.
    A function's typedefs are read too (one type per name), and `--verify`'s harness
    declares them for the region's own `(real)0`."""
    text = same_as_unoptimized(tmp_path, LOCAL_TYPEDEF, *options)
    assert "optimized scop region" in text


@pytest.mark.parametrize("expr", ["(1 << 31)", "(1 << 40)", "(-1 << 2)", "(i << 1)", "(1u << 2)"])
def test_bitwise_expressions_c_leaves_undefined_or_not_constant_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expr: str) -> None:
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent(f"""\
        void k(int n, double *A) {{
        #pragma scop
          for (int i = 0; i < n; i++)
            A[i] = {expr};
        #pragma endscop
        }}
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    assert "k.c:4:" in capsys.readouterr().err


@pytest.mark.parametrize(("decl", "use"), [
    ("volatile double *p", "p[i] * 2"),
    ("double *volatile p", "p[i] * 2"),
    ("volatile int v", "v + 1.0"),
    ("_Atomic int *p", "p[i] + 1"),
    ("vdouble *p", "p[i] * 2"),
    ("double *p, volatile int n_", "p[i + n_]"),
])
def test_volatile_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             decl: str, use: str) -> None:
    """A region reading a `volatile` array was optimized like any other: its accesses,
    side effects the file orders, ran in parallel and in SIMD lanes."""
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent(f"""\
        typedef volatile double vdouble;
        void k(int n, double *q, {decl}) {{
        #pragma scop
          for (int i = 0; i < n; i++)
            q[i] = {use};
        #pragma endscop
        }}
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    err = capsys.readouterr().err
    assert "k.c:5:" in err and ("is volatile" in err or "is _Atomic" in err)
