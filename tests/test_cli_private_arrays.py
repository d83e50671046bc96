"""``polyopt opt`` runs a loop in parallel on per-thread copies of an array that each
iteration writes before it reads (doitgen's ``sum``), inside the region's own block.

Differential: each program, optimized, prints what the original prints, built with
OpenMP on three threads, without OpenMP (the pragmas ignored), and under
AddressSanitizer with a caller whose buffer holds only the rows the region touches
(a parameter's declared extent promises nothing).  The value the array is left with
is the last iteration's: each program prints it after the region.  Structural: the
copies exist where they may and not where a row is reached through a pointer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_cli import CC, ROOT, polyopt

ROWS = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 37
#define M 23

static void kernel(int n, int m, double A[N][M], double T[100][M], double out[N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (k = 0; k < 3; k++)
      for (j = 0; j < m; j++)
        T[k][j] = A[i][j] * (k + 1) + i;
    for (j = 0; j < m; j++)
      out[i] = out[i] + T[0][j] * T[2][j] - T[1][m - 1 - j];
  }
#pragma endscop
}

int main(void)
{
  static double A[N][M], out[N];
  /* only the three rows the region touches, not the hundred the parameter declares */
  double (*T)[M] = malloc(3 * sizeof *T);
  int i, j;
  for (i = 0; i < N; i++) {
    out[i] = i;
    for (j = 0; j < M; j++)
      A[i][j] = (i * 7 + j * 3) % 11;
  }
  for (i = 0; i < 3; i++)
    for (j = 0; j < M; j++)
      T[i][j] = -1;
  kernel(N, M, A, T, out);
  for (i = 0; i < N; i++)
    printf("%.1f\n", out[i]);
  for (i = 0; i < 3; i++)
    for (j = 0; j < M; j++)
      printf("%.1f ", T[i][j]);
  printf("\n");
  free(T);
  return 0;
}
"""

POINTER = r"""
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int m, double A[n][m], double *s, double *out)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[i][j] * 2 + j;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j] * s[m - 1 - j];
  }
#pragma endscop
}

int main(void)
{
  int n = 41, m = 19, i;
  double *A = malloc(sizeof(double) * n * m), *s = malloc(sizeof(double) * m);
  double *out = calloc(n, sizeof(double));
  for (i = 0; i < n * m; i++)
    A[i] = i % 13;
  kernel(n, m, (double (*)[m]) A, s, out);
  for (i = 0; i < n; i++)
    printf("%.1f\n", out[i]);
  for (i = 0; i < m; i++)
    printf("%.1f ", s[i]);
  printf("\n");
  free(A); free(s); free(out);
  return 0;
}
"""

ROW_POINTERS = r"""
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int m, double **T, double *out)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (k = 0; k < 2; k++)
      for (j = 0; j < m; j++)
        T[k][j] = i + j * k;
    for (j = 0; j < m; j++)
      out[i] = out[i] + T[0][j] * T[1][j];
  }
#pragma endscop
}

int main(void)
{
  int n = 29, m = 17, i, j;
  double *T[2] = {malloc(sizeof(double) * m), malloc(sizeof(double) * m)};
  double *out = calloc(n, sizeof(double));
  kernel(n, m, T, out);
  for (i = 0; i < n; i++)
    printf("%.1f\n", out[i]);
  for (j = 0; j < m; j++)
    printf("%.1f %.1f\n", T[0][j], T[1][j]);
  free(T[0]); free(T[1]); free(out);
  return 0;
}
"""


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


def _optimized(tmp_path: Path, name: str, source: str, *options: str) -> tuple[Path, str]:
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    out = tmp_path / f"{name}.opt.c"
    # on a team at any size: these small programs test the parallel code
    proc = polyopt("opt", str(src), "-o", str(out), "--parallel-min", "0", *options)
    assert proc.returncode == 0, proc.stderr
    return src, out.read_text()


def _run(tmp_path: Path, src: Path, tag: str, flags: list[str], threads: int = 3) -> str:
    exe = tmp_path / f"{src.stem}.{tag}"
    cc = subprocess.run([CC, *flags, "-o", str(exe), str(src), "-lm"], capture_output=True,
                        text=True, check=False)
    assert cc.returncode == 0, cc.stderr[-3000:]
    # a program that exits without freeing everything is not what these tests look for
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "ASAN_OPTIONS": "detect_leaks=0"}
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env,
                         check=False)
    assert run.returncode == 0, f"{exe.name}: status {run.returncode}\n{run.stderr[-3000:]}"
    return run.stdout


def _sanitizers_work(tmp_path: Path) -> bool:
    probe = tmp_path / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    proc = subprocess.run([CC, "-fsanitize=address,undefined", "-o", str(tmp_path / "probe"),
                           str(probe)], capture_output=True, check=False)
    return proc.returncode == 0 and subprocess.run([str(tmp_path / "probe")],
                                                   check=False).returncode == 0


def every_build_agrees(tmp_path: Path, src: Path, opt: Path) -> None:
    """``opt`` prints what ``src`` at ``-O0`` prints: with OpenMP on three threads and
    on one, without OpenMP, and under AddressSanitizer and UndefinedBehaviorSanitizer."""
    expected = _run(tmp_path, src, "orig", ["-O0"])
    assert _run(tmp_path, opt, "omp3", ["-O2", "-fopenmp"]) == expected
    assert _run(tmp_path, opt, "omp1", ["-O2", "-fopenmp"], threads=1) == expected
    assert _run(tmp_path, opt, "serial", ["-O2"]) == expected
    if _sanitizers_work(tmp_path):
        assert _run(tmp_path, opt, "asan", ["-O1", "-g", "-fopenmp",
                                            "-fsanitize=address,undefined",
                                            "-fno-sanitize-recover=all"]) == expected


@pytest.mark.parametrize("name, source", [("rows", ROWS), ("pointer", POINTER)])
def test_private_copies_give_the_original_output(tmp_path: Path, name: str,
                                                 source: str) -> None:
    src, text = _optimized(tmp_path, name, source)
    region = text[text.index("/* polyopt: optimized scop region"):]
    array = "T" if name == "rows" else "s"
    assert f"lastprivate(polyopt_last_{array})" in region
    assert region.count(f"__builtin_free(polyopt_own_{array});") == 1
    every_build_agrees(tmp_path, src, tmp_path / f"{name}.opt.c")


def test_the_copy_holds_the_rows_the_region_touches(tmp_path: Path) -> None:
    _, text = _optimized(tmp_path, "rows", ROWS)
    count = next(line for line in text.splitlines() if "polyopt_n_T =" in line)
    # three rows where the region touches T at all, none otherwise
    assert "? 3 : 0" in count and "100" not in count, count
    # indexed T[k][j] like the file's own array, through a pointer of its own row type
    assert "__typeof__(&T[0] + 0) restrict T = polyopt_own_T;" in text


def test_rows_through_pointers_are_not_copied(tmp_path: Path) -> None:
    src, text = _optimized(tmp_path, "row_pointers", ROW_POINTERS)
    assert "polyopt_own" not in text and "__builtin_malloc" not in text
    opt = tmp_path / "row_pointers.opt.c"
    assert _run(tmp_path, opt, "omp", ["-O2", "-fopenmp"]) == _run(tmp_path, src, "orig", ["-O0"])


def test_doitgen_gives_sum_a_row_per_q(tmp_path: Path) -> None:
    # doitgen's sum used to be copied per thread around the r loop; array expansion
    # (transforms/expand.py) now gives it a row per q, so the product is a register-tiled
    # matmul per r, and the last row is copied back into sum after the loop
    proc = polyopt("opt", "examples/c/doitgen.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    region = proc.stdout[proc.stdout.index("/* polyopt: optimized scop region"):]
    assert "sum_x" in region and "sum[c0] = sum_x[nq - 1][c0];" in region
    assert "polyopt_kernel_doitgen_micro" in proc.stdout
    opt = tmp_path / "doitgen.opt.c"
    opt.write_text(proc.stdout)
    every_build_agrees(tmp_path, ROOT / "examples" / "c" / "doitgen.c", opt)


# A kernel in a file of its own, with no header: the copies' sizes were `size_t`, which
# only <stddef.h> and the headers that include it declare (hostile session, stop 33).
NO_HEADER = """\
double A[64][64], tmp[64];
void kern(int n, int m) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      tmp[j] = A[i][j] * 2.0;
    for (j = 0; j < m; j++)
      A[i][j] = tmp[j] + tmp[m - 1 - j];
  }
#pragma endscop
}
"""


def test_copies_in_a_file_with_no_header_compile(tmp_path: Path) -> None:
    _, text = _optimized(tmp_path, "no_header", NO_HEADER)
    assert "polyopt_own_tmp" in text and "size_t" not in text.replace("__SIZE_TYPE__", "")
    opt = tmp_path / "no_header.opt.c"
    cc = subprocess.run([CC, "-std=c99", "-fopenmp", "-Werror=implicit-function-declaration",
                         "-c", "-o", str(tmp_path / "no_header.o"), str(opt)],
                        capture_output=True, text=True, check=False)
    assert cc.returncode == 0, cc.stderr[-3000:]


def test_verify_compiles_the_whole_file_as_its_user_will(tmp_path: Path, monkeypatch,
                                                         capsys) -> None:
    """--verify ran the region in a harness of its own, which declares what it needs:
    the size_t of a file with no header passed it, and the file written did not compile."""
    from polyopt.backend_c import region_copies

    from polyopt.cli import command as cli

    src = tmp_path / "no_header.c"
    src.write_text(NO_HEADER)
    out = tmp_path / "no_header.opt.c"
    assert cli.main(["opt", str(src), "--verify", "-o", str(out)]) == 0
    assert "as a whole: OK: the optimized file compiles" in capsys.readouterr().err
    monkeypatch.setattr(region_copies, "SIZE_TYPE", "size_t")  # the bug, back
    out.unlink()
    assert cli.main(["opt", str(src), "--verify", "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert "does not compile where the original does" in err and "size_t" in err, err
    assert not out.exists()


def test_rows_isl_cannot_bound_within_its_budget_get_no_copy(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Bounding the rows of a guarded update with three truncating divisions stalled
    isl (helper session 39b, finding 01: `polyopt opt` ran for minutes in
    ``CRegion._rows_of``).  It has a budget; past it the array gets no copy, as where isl
    cannot bound the rows at all."""
    from polyopt.frontends.c import parse_c_file

    from polyopt.model import c_region

    src = tmp_path / "rows.c"
    src.write_text(ROWS)
    assert "T" in parse_c_file(src).regions[0].copyable
    monkeypatch.setattr(c_region, "COPY_ROWS_OPS", 1)
    assert "T" not in parse_c_file(src).regions[0].copyable
