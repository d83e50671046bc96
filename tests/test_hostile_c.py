"""C files as people write them, through ``polyopt opt`` (second hostile-user round):
each program's ``main`` prints its arrays, and the optimized file compiled with
``-O2 -fopenmp`` must print what the original compiled at ``-O0`` prints."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from polyopt.cli.command import main as cli_main

CC = os.environ.get("CC", "cc")
pytestmark = pytest.mark.skipif(shutil.which(CC) is None, reason="needs a C compiler")


def _run(src: Path, flags: list[str]) -> str:
    exe = src.with_suffix(f".{len(flags)}{flags[0].lstrip('-')}.exe")
    subprocess.run([CC, *flags, "-fopenmp", "-o", str(exe), str(src), "-lm"], check=True)
    env = {**os.environ, "OMP_NUM_THREADS": "3"}
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                          env=env).stdout


def same_as_unoptimized(tmp_path: Path, code: str, *options: str,
                        cflags: tuple[str, ...] = ()) -> str:
    """Optimize ``code`` (a whole program), run both builds (both with ``cflags``), and
    return the optimized file's text after checking that both print the same."""
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent(code))
    out = tmp_path / "k.opt.c"
    assert cli_main(["opt", str(src), "-o", str(out), *options]) == 0
    want = _run(src, ["-O0", *cflags])
    assert want.strip(), "the program prints nothing to compare"
    assert _run(out, ["-O2", *cflags]) == want
    return out.read_text()


TYPEDEF_CASTS = """\
#include <stdio.h>
#include <stdint.h>
typedef float real;
typedef real real2;
void k(int n, real A[], uint8_t u[], int64_t L[], double d[])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = A[i] > 1.0f ? (real2)(int)A[i] : (real)(d[i] / 3);
    u[i] = (uint8_t)(u[i] * 3 + (int32_t)d[i]);
    L[i] = (int64_t)u[i] * (uint16_t)(L[i] - 70000) + (int8_t)L[i];
    d[i] = (_Bool)(i % 3) + (uint8_t)300 + (int8_t)200;
  }
#pragma endscop
}
int main(void) {
  enum { N = 40 };
  real A[N]; uint8_t u[N]; int64_t L[N]; double d[N];
  for (int i = 0; i < N; i++) {
    A[i] = i * 0.37f - 3; u[i] = i * 29; L[i] = i * 123457 - 1000000; d[i] = i * 1.7 - 30;
  }
  k(N, A, u, L, d);
  for (int i = 0; i < N; i++) printf("%a %u %ld %a\\n", A[i], u[i], (long)L[i], d[i]);
  return 0;
}
"""


def test_casts_to_typedefs(tmp_path: Path) -> None:
    """A cast to a typedef (`(real)x`, `(uint8_t)x`, PolyBench's `(DATA_TYPE)` when
    it is a typedef) was refused as 'only casts to C's arithmetic types', though
    declarations of those typedefs were accepted; the cast now resolves them."""
    text = same_as_unoptimized(tmp_path, TYPEDEF_CASTS)
    assert "(unsigned short)" in text  # uint16_t, converted as C converts


def test_a_cast_to_a_struct_or_pointer_typedef_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent("""\
        typedef struct { int a; } S;
        typedef double *dp;
        void k(int n, double *A) {
        #pragma scop
          for (int i = 0; i < n; i++)
            A[i] = A[i] + (S)A[i];
        #pragma endscop
        }
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    err = capsys.readouterr().err
    assert "k.c:6:" in err and "typedefs of them" in err and "^" in err


def test_assigning_a_row_pointer_is_refused_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "rows.c"
    src.write_text(textwrap.dedent("""\
        void k(int n, double **A, double **B, double y[8][8]) {
        #pragma scop
          for (int i = 0; i < n; i++) {
            A[i] = B[n - 1 - i];
            for (int j = 0; j < n; j++)
              y[i][j] = A[i][j];
          }
        #pragma endscop
        }
        """))
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "o.c")]) == 1
    err = capsys.readouterr().err
    assert "rows.c:4:5:" in err and "`A[i]` is a row pointer" in err and "^" in err


STATIC_LOCAL = """\
#include <stdio.h>
void k(int n, double *x, double *y)
{
  static double keep;
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = keep + x[i];
    keep = x[i] * 2;
  }
#pragma endscop
}
int main(void) {
  double x[50], y[50];
  for (int i = 0; i < 50; i++) x[i] = i * 0.5;
  k(50, x, y);
  k(50, x, y);
  for (int i = 0; i < 50; i++) printf("%a\\n", y[i]);
  return 0;
}
"""


def test_a_static_local_keeps_its_value_between_calls(tmp_path: Path) -> None:
    """A `static` local read before the region assigns it holds the last call's value
    (zero at the first): it was taken for a private temporary and refused as 'may be
    read before it is assigned'; it is now carried into and out of the region as a
    global is."""
    text = same_as_unoptimized(tmp_path, STATIC_LOCAL)
    assert "keep = (x[c0] * 2.0)" in text


def test_verify_compiles_casts_to_typedefs(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``--verify`` rebuilds the original region in a harness of its own, which lacked
    the typedefs a cast names: a typedef of a typedef (`real2`), and those of the
    system headers (`uint8_t`), so the harness did not compile (exit status 3)."""
    src = tmp_path / "k.c"
    src.write_text(TYPEDEF_CASTS.replace("typedef real real2;", "typedef real real2;\n"
                                         "typedef _Bool flag;\n#include <stdbool.h>")
                   .replace("(_Bool)(i % 3)", "(flag)(i % 3) + (bool)(i % 2)"))
    assert cli_main(["opt", str(src), "--verify", "-o", str(tmp_path / "o.c")]) == 0, \
        capsys.readouterr().err


SUMS = """\
#include <stdio.h>
#include <math.h>
#define N 300
void k(int n, double A[N][N], double x[N], double y[N], double *total)
{
  double s = 0.0, t;
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    t = 0.0;
    for (j = 0; j < n; j++)
      t += A[i][j] * x[j];
    y[i] = t;
    s += t * 1e-3;
  }
#pragma endscop
  *total = s;
}
int main(void) {
  static double A[N][N], x[N], y[N];
  double total;
  for (int i = 0; i < N; i++) {
    x[i] = sin(i);
    for (int j = 0; j < N; j++) A[i][j] = cos(i * N + j);
  }
  k(N, A, x, y, &total);
  printf("%a\\n", total);
  for (int i = 0; i < N; i++) printf("%a\\n", y[i]);
  return 0;
}
"""


def test_strict_fp_keeps_float_reductions_in_order(tmp_path: Path) -> None:
    """The README promised `polyopt opt` output bit-exact results with -ffp-contract=off,
    but a float reduction still ran as an OpenMP/SIMD reduction (reassociated), and
    `polyopt opt` had no way to ask for strict_fp; `--strict-fp` now does."""
    text = same_as_unoptimized(tmp_path, SUMS, "--strict-fp",
                               cflags=("-ffp-contract=off", "-march=native"))
    assert "reduction" not in text


def test_strict_fp_refuses_a_scheduled_parallel_float_reduction(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "k.c"
    src.write_text(SUMS)
    sched = tmp_path / "s.json"
    sched.write_text('{"polyopt_schedule": 1, "function": "k", "steps": '
                     '[{"op": "parallelize", "args": ["j"]}]}')
    args = ["opt", str(src), "--function", "k", "--schedule", str(sched), "-o",
            str(tmp_path / "o.c")]
    assert cli_main(args) == 0
    assert cli_main([*args, "--strict-fp"]) == 1
    assert "strict_fp" in capsys.readouterr().err


FLOAT16 = """\
#include <stdio.h>
void k(int n, _Float16 h[], _Float16 g[], float f[])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    h[i] = h[i] * g[i] + g[i] * (_Float16)0.1f - h[i] / g[i];
    f[i] = h[i] * g[i] + 1.0f / 3;
    g[i] = g[i] * g[i] * g[i] + h[i];
  }
#pragma endscop
}
int main(void) {
  enum { N = 200 };
  _Float16 h[N], g[N];
  float f[N];
  for (int i = 0; i < N; i++) {
    h[i] = (_Float16)(i * 0.37f - 30); g[i] = (_Float16)(i * 0.011f + 0.5f); f[i] = 0;
  }
  k(N, h, g, f);
  for (int i = 0; i < N; i++) printf("%a %a %a\\n", (float)h[i], (float)g[i], f[i]);
  return 0;
}
"""


def test_float16_expressions_keep_the_files_operators(tmp_path: Path) -> None:
    """gcc evaluates a _Float16 expression in float and rounds where the file assigns
    or casts; the optimized region rounded after every operation (NumPy's float16
    rule, for Python kernels), so h[i] * g[i] + g[i] * c - h[i] / g[i] differed from
    the original in the last half-precision bits for most i."""
    text = same_as_unoptimized(tmp_path, FLOAT16)
    assert "(float)h[c0]" not in text


@pytest.mark.parametrize("name", ["kernel", "kernel.txt", "kernel.C", "kernel.cpp"])
def test_a_c_file_with_any_name_is_read_as_c(tmp_path: Path, name: str) -> None:
    """The preprocessor ran without `-x c`: gcc takes a file with no known suffix for a
    linker input and prints nothing, so `polyopt opt kernel` said 'no #pragma scop
    region' of a file that has one; `.C` and `.cpp` were preprocessed as C++."""
    src = tmp_path / name
    src.write_text(STATIC_LOCAL)
    out = tmp_path / "out.c"
    assert cli_main(["opt", str(src), "-o", str(out)]) == 0
    assert "optimized scop region" in out.read_text()


COUNTERS_AFTER = """\
#include <stdio.h>
double a[64], b[64][64];
int g;
void k(int n, int m)
{
  int i = -5, j = -7, unused;
#pragma scop
  for (i = 0; i < n; i++)
    a[i] = i * 0.5;
  for (g = n - 1; g >= 2; g -= 3)
    a[g] += 1.0;
  if (m > 3)
    for (i = 1; i < m; i += 2)
      for (j = i; j < m; ++j)
        b[i][j] = a[j] + i;
  for (unused = 0; unused < n; unused++)
    a[unused] *= 2.0;
#pragma endscop
  printf("i=%d j=%d g=%d %g %g\\n", i, j, g, a[5], b[3][7]);
}
int main(void) {
  k(40, 30);
  k(0, 2);
  k(7, 8);
  return 0;
}
"""


def test_loop_counters_used_after_the_region_keep_their_final_values(
        tmp_path: Path) -> None:
    """``i`` and ``j`` declared outside the region, read after it, and the global ``g``
    are left one step past their loops, as the original leaves them (a hostile user's
    finding: the rewritten loops count with counters of their own, and ``i`` printed
    -5); ``unused`` is not read after the region and is not stepped."""
    text = same_as_unoptimized(tmp_path, COUNTERS_AFTER)
    after = text[text.index("stepped to the values"):]
    assert "for (g = n - 1; g >= 2; g -= 3)" in after and "j < m" in after
    assert "unused" not in after


def test_a_region_whose_counters_are_dead_after_it_gets_no_skeleton(tmp_path: Path) -> None:
    text = same_as_unoptimized(tmp_path, TYPEDEF_CASTS)
    assert "stepped to the values" not in text


FDTD_SMALL = """
    #include <stdio.h>
    static void fdtd(int tmax, int nx, int ny, double ex[nx][ny], double ey[nx][ny],
                     double hz[nx][ny], double fict[tmax]) {
    #pragma scop
      for (int t = 0; t < tmax; t++) {
        for (int j = 0; j < ny; j++)
          ey[0][j] = fict[t];
        for (int i = 1; i < nx; i++)
          for (int j = 0; j < ny; j++)
            ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i-1][j]);
        for (int i = 0; i < nx; i++)
          for (int j = 1; j < ny; j++)
            ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j-1]);
        for (int i = 0; i < nx - 1; i++)
          for (int j = 0; j < ny - 1; j++)
            hz[i][j] = hz[i][j] - 0.7 * (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]);
      }
    #pragma endscop
    }
    int main(void) {
      volatile int steps = 30;
      int T = steps;
      double A[2][2], B[2][2], C[2][2], fict[30];
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          A[i][j] = (i * 13 + j * 7) % 10; B[i][j] = (i + j) % 3; C[i][j] = i - j;
        }
      for (int t = 0; t < T; t++) fict[t] = t;
      fdtd(T, 2, 2, A, B, C, fict);
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) printf("%.17g %.17g %.17g\\n", A[i][j], B[i][j], C[i][j]);
      return 0;
    }
"""


def test_a_tile_start_past_int_max_runs_no_iteration(tmp_path: Path) -> None:
    """Hostile session 36, finding 07: a wavefront's tile of 10**8 rows starts its rows at
    ``100000000LL * c1``; from the 22nd time tile on that passes INT_MAX, and the int
    counter wrapped negative (garbage rows, heap corruption).  It starts at INT_MAX
    instead, where its test fails."""
    text = same_as_unoptimized(tmp_path, FDTD_SMALL, "--tile-sizes", "1,100000000")
    assert "polyopt_int_start(polyopt_imax((100000000LL * c" in text


LINE_DIRECTIVES = """
    #include <stdio.h>
    # 40 "generated.c"
    static void f(int n, double *x) {
    #pragma scop
    #line 500 "gen.y"
      for (int i = 0; i < n; i++)
        x[i] = x[i] * 2.0 + 1.0;
    #pragma endscop
    }
    int main(void) {
      double x[5] = {1, 2, 3, 4, 5};
      f(5, x);
      for (int i = 0; i < 5; i++) printf("%g\\n", x[i]);
      return 0;
    }
"""


def test_line_directives_do_not_move_the_region(tmp_path: Path) -> None:
    """Hostile session 36, finding 04: ``#line`` (and ``gcc -E``'s ``# 40 "file"``
    markers) renumbered the region's lines, and rewriting it by those numbers was an
    internal IndexError.  The region is found and rewritten at its lines in the file."""
    text = same_as_unoptimized(tmp_path, LINE_DIRECTIVES)
    assert '# 40 "generated.c"' in text and "#line 500" not in text  # inside the region


def test_an_error_after_a_line_directive_names_the_files_own_line(tmp_path: Path,
                                                                  capsys) -> None:
    src = tmp_path / "k.c"
    src.write_text('#line 900 "gen.y"\nvoid f(int n, double *x) {\n#pragma scop\n'
                   "  for (int i = 0; i < n; i++) x[i * i] = 1.0;\n#pragma endscop\n}\n")
    assert cli_main(["opt", str(src), "-o", str(tmp_path / "k.opt.c")]) != 0
    err = capsys.readouterr().err
    assert f"{src}:4:" in err and "internal error" not in err


CONST_INPUTS = """
    typedef double DT;
    void g(int n, int m, int p, DT C[n][m], const DT A[n][p], const double B[p][m],
           const double *v, const double w[m]) {
      int i, j, k;
      double t;
    #pragma scop
      for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
          for (k = 0; k < p; k++)
            C[i][j] += A[i][k] * B[k][j] * v[k];
      for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
          t = C[i][j] * w[j];
          C[i][j] = t;
        }
    #pragma endscop
    }
"""


@pytest.mark.parametrize("source", ["examples/c/atax.c", "examples/c/band-mv.c",
                                    "examples/c/deriche.c", "examples/c/gemm.c", "const"])
def test_the_output_is_as_clean_under_wall_as_the_input(tmp_path: Path, source: str) -> None:
    """Hostile session 36, finding 05: helpers declared `const` inputs without `const`
    (-Wdiscarded-qualifiers at every call); and -Wall found the function's `int i, j;`,
    a register tile's iterator bindings and band-mv's static `max()` unused.  A -Werror build of the output
    failed where the file built clean."""
    root = Path(__file__).resolve().parents[1]
    src = tmp_path / "k.c"
    src.write_text(textwrap.dedent(CONST_INPUTS) if source == "const"
                   else (root / source).read_text())
    flags = [CC, "-Wall", "-Werror", "-Wno-unknown-pragmas", "-fopenmp", "-c", "-o",
             str(tmp_path / "k.o")]
    subprocess.run([*flags, str(src)], check=True)
    out = tmp_path / "k.opt.c"
    assert cli_main(["opt", str(src), "-o", str(out), "--parallel-min", "0"]) == 0
    built = subprocess.run([*flags, str(out)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr[-2000:]


TWO_FUNCTIONS = """
    void a(int n, double *x) {
    #pragma scop
      for (int i = 0; i < n; i++) x[i] = 1.0;
    #pragma endscop
    }
    void b(int n, double *x) {
    #pragma scop
      int i = 0;
      while (i < n) { x[i] = 0; i++; }
    #pragma endscop
    }
"""


def test_function_reads_only_that_functions_regions(tmp_path: Path, capsys) -> None:
    """Hostile session 36, finding 03: `--function a` failed on `b`'s region, which
    polyopt refuses, and `--function nosuch` reported `b`'s problems too."""
    src = tmp_path / "f.c"
    src.write_text(textwrap.dedent(TWO_FUNCTIONS))
    out = tmp_path / "f.opt.c"
    assert cli_main(["opt", str(src), "--function", "a", "-o", str(out)]) == 0
    assert "while (i < n)" in out.read_text()  # b's region as it was
    assert cli_main(["deps", str(src), "--function", "a"]) == 0
    capsys.readouterr()
    assert cli_main(["opt", str(src), "--function", "nosuch", "-o", str(out)]) != 0
    err = capsys.readouterr().err
    assert "no #pragma scop region in a function named 'nosuch' (regions are in: a, b)" in err
    assert "while" not in err
    assert cli_main(["opt", str(src), "-o", str(out)]) != 0  # all regions: b's is refused
    assert "while" in capsys.readouterr().err


def test_a_choice_in_a_subscript_is_not_sent_to_the_min_form(tmp_path: Path, capsys) -> None:
    """Hostile session 36, finding 06: `x[p < n ? p : n - 1]` was told to be written as
    a min (`a < b ? a : b`), which subscripts refuse too."""
    for sub in ("p < n ? p : n - 1", "p < n - 1 ? p : n - 1"):
        src = tmp_path / "k.c"
        src.write_text("void f(int n, double *x, double *y) {\n#pragma scop\n"
                       f"  for (int p = 0; p < n + 3; p++) y[p] = x[{sub}];\n"
                       "#pragma endscop\n}\n")
        assert cli_main(["opt", str(src), "-o", "-"]) != 0
        err = capsys.readouterr().err
        assert "split the loop where the choice changes" in err and "a < b ?" not in err, err


def test_deps_shows_a_statement_written_on_several_lines(tmp_path: Path, capsys) -> None:
    """Hostile session 36, finding 08: only the statement's first line was shown."""
    src = tmp_path / "ml.c"
    src.write_text("void f(int n, double *x, double *y) {\n#pragma scop\n"
                   "  for (int i = 0; i < n; i++)\n    x[i] = y[i] +  /* half */\n"
                   "      2.0 * \\\n      y[i];\n#pragma endscop\n}\n")
    assert cli_main(["deps", str(src)]) == 0
    text = capsys.readouterr().out
    assert "x[i] = y[i] + 2.0 * y[i];" in text, text
    assert cli_main(["deps", str(src), "--format", "dot"]) == 0
    assert "\\\\" not in capsys.readouterr().out


ENUMS = """\
#include <stdio.h>
enum { EN = 30, EM = EN + 5, EK, EZ = sizeof(int) * 2, EW };
enum color { RED = -3, GREEN, BLUE = 1 << 3 };
typedef enum { TA = 7 } te;
double x[EN], y[100], z[100];
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < EN; i++)
    x[i + EM - EN - 5 + EK - 36] = x[i + EM - EN - 5] * 2 + i + GREEN + BLUE + TA;
  for (i = 0; i < EZ; i++)
    y[i] = y[i] + EW;
#pragma endscop
}
void g(int RED) {
  int i;
#pragma scop
  for (i = 0; i < RED; i++)
    z[i] = z[i] + i;
#pragma endscop
}
int main(void) {
  f(0); g(12);
  double s = 0;
  for (int i = 0; i < 100; i++) s += (i < EN ? x[i] : 0) + y[i] + z[i];
  printf("%.17g\\n", s);
  return 0;
}
"""


def test_enumeration_constants_are_their_values(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Hostile session 47b, finding 03: `enum { EN = 30 }`'s EN was a parameter, which
    --verify set to 10, where `double x[EN]` then left no small size that keeps the
    accesses inside the arrays.  File-scope enumerators are their values (an implicit
    one the previous plus 1); one that does not fold (`sizeof`) stays a name, with
    those after it, and one the file also declares (g's parameter RED) is left as
    written."""
    text = same_as_unoptimized(tmp_path, ENUMS)
    assert "c0 <= 29" in text and "c0 < EZ" in text and "c0 < RED" in text, text
    capsys.readouterr()
    assert cli_main(["opt", str(tmp_path / "k.c"), "--verify", "-o", str(tmp_path / "v.c")]) == 0
    assert "NOT VERIFIED" not in capsys.readouterr().err
