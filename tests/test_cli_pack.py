"""``polyopt opt`` packs a matmul's operands too: the rewritten region allocates the
panels on the heap in its own block and frees them at its end.

Differential: the PolyBench/C matmul examples, optimized, compiled like the
original and run, print what the original prints, also at sizes that leave ragged
register tiles.  Structural: each panel is allocated once, checked, and freed, and
a region without a matmul allocates nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_cli import CC, ROOT, _build_and_run, _numbers_match, polyopt

MATMULS = ("gemm", "2mm", "3mm")


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


@pytest.mark.parametrize("name", MATMULS)
def test_packed_region_gives_the_original_output(name: str, tmp_path: Path) -> None:
    original, optimized, problem = _build_and_run(ROOT / "examples" / "c" / f"{name}.c", tmp_path)
    assert not problem, problem
    assert original.strip() and _numbers_match(original, optimized), (original, optimized)


def test_packed_panels_live_in_the_region_block() -> None:
    proc = polyopt("opt", "examples/c/gemm.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    region = proc.stdout[proc.stdout.index("/* polyopt: optimized scop region"):]
    for panel in ("A_pk", "B_pk"):
        # rows of the extents the loops read (the panels are sized by the bounds, nk here)
        assert len(re.findall(rf"\(\*{panel}\)(\[[^\]]+\]){{2}} = __builtin_malloc\(", region)) == 1
        assert region.count(f"if (!{panel}) __builtin_abort();") == 1
        assert region.count(f"__builtin_free({panel});") == 1
    # read through the panels in the micro-kernel, written by the copies (parallel loops
    # whose bodies are helpers before the function, region_outline.py)
    assert re.search(r"A_pk\[c\d+\]\[c\d+\]\[c\d+\] = \(alpha \* A\[", proc.stdout)  # scaled once
    assert re.search(r"B_pk\[c\d+\]\[c\d+\]\[c\d+\] = B\[", proc.stdout)
    # freed before the block closes, after the last use
    free = region.rindex("__builtin_free(A_pk)")
    assert free > region[:free].rindex("A_pk") > region.index("if (!A_pk)")


def test_sizes_with_ragged_tiles_give_the_original_output(tmp_path: Path) -> None:
    """NI, NJ, NK not multiples of the register tile nor of the blocks: the panels
    cover the full tiles, the rest reads the operands."""
    src = (ROOT / "examples" / "c" / "gemm.c").read_text()
    ragged = tmp_path / "gemm_ragged.c"
    ragged.write_text(src.replace("# define NI 60", "# define NI 37")
                      .replace("# define NJ 70", "# define NJ 53")
                      .replace("# define NK 80", "# define NK 300"))
    original, optimized, problem = _build_and_run(ragged, tmp_path)
    assert not problem, problem
    assert _numbers_match(original, optimized)
    assert "__builtin_malloc" in polyopt("opt", str(ragged), "-o", "-").stdout


@pytest.mark.parametrize("sizes", [(13, 17, 19), (100, 90, 77)])
def test_output_compiled_with_other_sizes_gives_the_original_output(
        tmp_path: Path, sizes: tuple[int, int, int]) -> None:
    """Optimized at gemm.c's own sizes, compiled with other ``-DNI -DNJ -DNK``: the
    helpers' array parameters take their extents from the arrays' types, not from
    the macros' values at ``opt`` time (they were ``double B[restrict][70]``: warnings,
    then wrong results or a crash)."""
    src = ROOT / "examples" / "c" / "gemm.c"
    opt = tmp_path / "gemm.opt.c"
    proc = polyopt("opt", str(src), "-o", str(opt))
    assert proc.returncode == 0, proc.stderr
    flags = ["-O2", "-fopenmp", *(f"-D{m}={v}" for m, v in zip(("NI", "NJ", "NK"), sizes, strict=True))]
    outputs = []
    for path in (src, opt):
        exe = tmp_path / f"{path.stem}.exe"
        cc = subprocess.run([CC, *flags, "-Werror", "-o", str(exe), str(path), "-lm"],
                            capture_output=True, text=True, check=False)
        assert cc.returncode == 0, cc.stderr[-3000:]
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                             check=False)
        assert run.returncode == 0, run.stderr[-3000:]
        outputs.append(run.stdout)
    assert outputs[0].strip() and _numbers_match(*outputs), outputs


def test_a_region_without_a_matmul_allocates_nothing() -> None:
    proc = polyopt("opt", "examples/c/jacobi-2d.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert "__builtin_malloc" not in proc.stdout


RUNTIME_SIZES = r"""
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int m, int p, double alpha, double C[n][m], double A[n][p],
                   double B[p][m])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      for (k = 0; k < p; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = atoi(argv[1]), m = atoi(argv[2]), p = atoi(argv[3]);
  int sn = n > 0 ? n : 1, sm = m > 0 ? m : 1, sp = p > 0 ? p : 1;
  double (*A)[sp] = malloc(sizeof(double) * sn * sp), (*B)[sm] = malloc(sizeof(double) * sp * sm);
  double (*C)[sm] = malloc(sizeof(double) * sn * sm);
  for (int i = 0; i < n; i++) for (int k = 0; k < p; k++) A[i][k] = (i * 7 + k * 3) % 11 / 11.0;
  for (int k = 0; k < p; k++) for (int j = 0; j < m; j++) B[k][j] = (k * 5 + j * 2) % 13 / 13.0;
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) C[i][j] = (i + j) % 3;
  kernel(n, m, p, 1.5, C, A, B);
  double s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) s += C[i][j] * (1 + i % 5);
  printf("%.12e\n", s);
  return 0;
}
"""


def test_panels_sized_at_run_time(tmp_path: Path) -> None:
    """Sizes known only when the function runs: the panels are allocated for them, and
    an empty or negative extent allocates nothing harmful (the loops do not run)."""
    text = _opt_and_run(tmp_path, RUNTIME_SIZES, ("37", "45", "300"), ("8", "16", "0"),
                        ("0", "5", "5"), ("-3", "16", "9"), ("16", "16", "1"), ("9", "33", "7"))
    assert "__builtin_malloc" in text


def _opt_and_run(tmp_path: Path, text: str, *size_sets: tuple[str, ...]) -> str:
    """Optimize ``text``, build it and the original like PolyBench, and compare their
    outputs at each of ``size_sets`` (the program's arguments); the optimized text."""
    src = tmp_path / "mm.c"
    src.write_text(text)
    opt = tmp_path / "mm.opt.c"
    proc = polyopt("opt", str(src), "-o", str(opt), "--parallel-min", "0")  # a team at any size
    assert proc.returncode == 0, proc.stderr
    exes = []
    for c in (src, opt):
        exe = tmp_path / c.stem.replace(".", "_")
        cc = subprocess.run([CC, "-O2", "-fopenmp", "-o", str(exe), str(c), "-lm"],
                            capture_output=True, text=True, check=False)
        assert cc.returncode == 0, cc.stderr
        exes.append(exe)
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    for sizes in size_sets:
        out = [subprocess.run([str(e), *sizes], capture_output=True, text=True, env=env,
                              timeout=60, check=True).stdout for e in exes]
        assert out[0].strip() and _numbers_match(out[0], out[1]), (sizes, out)
    return opt.read_text()


def test_the_micro_kernel_is_a_function_before_the_regions_function(tmp_path: Path) -> None:
    """gcc vectorizes a register tile's loop badly inside the user's function
    (backend_c/region_outline.py): it becomes a function of the file, inserted before the
    first line of the region's function, taking the runtime extents it needs."""
    text = _opt_and_run(tmp_path, RUNTIME_SIZES, ("37", "45", "300"))
    helper = text.index("static void polyopt_kernel_micro0(")
    assert helper < text.index("static void kernel(")
    assert 'optimize("no-tree-loop-vectorize", "no-tree-forwprop")' in text[:helper]
    # called from the region, or from the helper that holds a parallel loop's body
    assert re.search(r"\n\s+polyopt_kernel_micro0\([^;]*\);", text[helper:])


def test_a_function_header_over_two_lines_gets_its_helper_above_both(tmp_path: Path) -> None:
    text = _opt_and_run(tmp_path, RUNTIME_SIZES.replace(
        "static void kernel(int n,", "/* the kernel */\nstatic void\nkernel(int n,"), ("20", "33", "9"))
    assert text.index("static void polyopt_kernel_micro0(") < text.index("static void\nkernel(")
    assert text.index("/* the kernel */") < text.index("static void\nkernel(")


def test_a_tile_of_a_local_array_stays_in_place(tmp_path: Path) -> None:
    """An array local to the function has no type a helper before the function could
    name: a register tile that accumulates into one stays in the region, in a block."""
    local = RUNTIME_SIZES.replace(
        "double B[p][m])\n{\n  int i, j, k;",
        "double B[p][m])\n{\n  int i, j, k;\n  double L[64][64] = {{0}};") \
        .replace("C[i][j] += alpha * A[i][k] * B[k][j];", "L[i][j] += alpha * A[i][k] * B[k][j];") \
        .replace("#pragma endscop\n}", "#pragma endscop\n  for (i = 0; i < n; i++)\n"
                 "    for (j = 0; j < m; j++)\n      C[i][j] = L[i][j];\n}")
    text = _opt_and_run(tmp_path, local, ("40", "48", "40"))
    assert "polyopt_kernel_micro" not in text
    assert "L_acc1" in text  # register-tiled all the same


def test_two_regions_of_one_function_get_helpers_of_their_own(tmp_path: Path) -> None:
    region = RUNTIME_SIZES[RUNTIME_SIZES.index("#pragma scop"):
                           RUNTIME_SIZES.index("#pragma endscop") + len("#pragma endscop")]
    twice = RUNTIME_SIZES.replace(region, region + "\n" + region.replace("alpha *", "0.5 *"))
    text = _opt_and_run(tmp_path, twice, ("21", "35", "17"))
    assert "static void polyopt_kernel_micro0(" in text
    assert "static void polyopt_kernel_region2_micro0(" in text


OPEN_FIRST_EXTENT = r"""
#include <stdio.h>
#include <stdlib.h>
#define M 64
static void kernel(int n, double C[][M], double A[][M], double B[][M])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < M; j++)
      for (k = 0; k < M; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = atoi(argv[1]), sn = n > 0 ? n : 1;
  double (*A)[M] = malloc(sizeof(double) * sn * M), (*B)[M] = malloc(sizeof(double) * M * M);
  double (*C)[M] = calloc((size_t)sn * M, sizeof(double));
  for (int i = 0; i < n; i++) for (int k = 0; k < M; k++) A[i][k] = (i * 7 + k * 3) % 11 / 11.0;
  for (int k = 0; k < M; k++) for (int j = 0; j < M; j++) B[k][j] = (k * 5 + j * 2) % 13 / 13.0;
  kernel(n, C, A, B);
  double s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) s += C[i][j] * (1 + i % 5);
  printf("%.12e\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("n", ["50", "7", "0", "129"])
def test_operands_without_a_first_extent_are_packed_by_the_loop_bounds(tmp_path: Path,
                                                                       n: str) -> None:
    """``double A[][M]`` gives C no first extent (the model's ``A_extent0``, a name C does
    not have): the panels are sized by the loops' bounds (``n``), and the output
    compiles (it named ``A_extent0`` before)."""
    text = _opt_and_run(tmp_path, OPEN_FIRST_EXTENT, (n,))
    assert "A_extent0" not in text and "__builtin_malloc" in text


def test_micro_kernel_counters_are_long(tmp_path: Path) -> None:
    """gcc 12 vectorizes a region micro-kernel's loads of an operand it cannot pack (trmm's
    B, which the nest writes: ``B[c5][32 * c3 + 1]``...) only where the subscript is 64-bit
    arithmetic: the counters a micro-kernel takes are ``long``, whatever the file's are."""
    proc = polyopt("opt", "examples/c/trmm.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    header = re.search(r"static void polyopt_kernel_trmm_micro0\(([^)]*)\)", proc.stdout)
    assert header, proc.stdout
    counters = [p.strip() for p in header.group(1).split(",") if re.fullmatch(r"\s*\w+ c\d+", p)]
    assert counters and all(p.startswith("long ") for p in counters), header.group(1)
    original, optimized, problem = _build_and_run(ROOT / "examples" / "c" / "trmm.c", tmp_path)
    assert not problem and original == optimized, problem


@pytest.mark.parametrize("march", ["x86-64-v3", "x86-64-v4"])
def test_trmm_micro_kernel_has_no_scalar_multiply_adds(tmp_path: Path, march: str) -> None:
    """gcc 12's SLP left one row of trmm's region micro-kernel scalar (16 of its 128
    multiply-adds as ``vfmadd231sd``; forwprop had swapped the operands of that row's
    additions): micro-kernels are compiled without forwprop.  Checked in the assembly,
    for a fixed instruction set, of the micro-kernel alone."""
    if subprocess.run([CC, "-dumpmachine"], capture_output=True, text=True).stdout.split("-")[0] \
            != "x86_64":
        pytest.skip("an x86-64 compiler is needed")
    proc = polyopt("opt", "examples/c/trmm.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    src = tmp_path / "trmm.c"
    src.write_text(proc.stdout)
    asm = tmp_path / "trmm.s"
    subprocess.run([CC, "-O3", f"-march={march}", "-fopenmp", "-S", str(src), "-o", str(asm)],
                   check=True)
    body = re.search(r"^polyopt_kernel_trmm_micro0[.\w]*:\n(.*?)\.size", asm.read_text(),
                     re.S | re.M)
    assert body, "no micro-kernel in the assembly"
    assert re.search(r"vfmadd\w+pd", body.group(1)), body.group(1)[:2000]
    assert not re.search(r"vfmadd\w+sd", body.group(1)), body.group(1)[:4000]


LEADING_DIMENSION = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int ni, int nj, int nk, int ldc, double C[ni][ldc], double A[ni][nk],
                   double B[nk][nj])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
int main(int argc, char **argv)
{
  int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]), ldc = nj + 10;
  double (*C)[ldc] = calloc(ni * ldc + 1, sizeof(double));
  double (*A)[nk] = malloc(sizeof(double) * (ni * nk + 1));
  double (*B)[nj] = malloc(sizeof(double) * (nk * nj + 1));
  for (int i = 0; i < ni; i++) for (int k = 0; k < nk; k++) A[i][k] = (i * k % 7) / 7.0;
  for (int k = 0; k < nk; k++) for (int j = 0; j < nj; j++) B[k][j] = (k + j) % 5 / 5.0;
  kernel(ni, nj, nk, ldc, C, A, B);
  double s = 0;
  for (int i = 0; i < ni; i++) for (int j = 0; j < nj; j++) s += C[i][j] * (i + 2 * j);
  printf("%.10e\n", s);
  return 0;
}
"""


def test_the_next_tile_prefetch_takes_a_variable_extent_from_the_arrays_type(
        tmp_path: Path) -> None:
    """C's rows are ``ldc`` long, a variable the micro-kernel function does not see: the
    prefetch's flat index takes the extent from the array's type (``sizeof``), and the
    result is the original's at sizes with ragged and several tiles."""
    text = _opt_and_run(tmp_path, LEADING_DIMENSION, ("70", "90", "50"), ("9", "17", "5"),
                        ("1", "1", "1"))
    assert "polyopt_prefetch(C, (i) * ((long)(sizeof(C[0]) / sizeof(C[0][0]))) + (j), double);" \
        in text
