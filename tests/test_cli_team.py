"""``polyopt opt`` runs a region's parallel loops on one thread when the region is small:
its ``parallel for`` pragmas carry ``if(polyopt_team)``, a flag the block computes from
the region's sizes when it starts (the statement instances of the region as written,
against ``--parallel-min``, default ``POLYOPT_PARALLEL_MIN`` or 2**20), as the jit's
kernels do.  Waking a thread team costs more than a small region's whole work.

Differential: the optimized program prints what the original prints at a size below
the threshold and at one above it.  The flag itself is evaluated by a probe built from
the generated line, at sizes on both sides.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from polyopt.backend_c.work import PARALLEL_MIN_INSTANCES
from test_cli import CC, polyopt

MV = r"""
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int m, double A[n][m], double *x, double *y)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.5 * i;
    for (j = 0; j < m; j++)
      y[i] += A[i][j] * x[j];
  }
  for (j = 0; j < m; j++)
    x[j] = x[j] + 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = atoi(argv[1]), m = atoi(argv[2]), i;
  double *A = malloc(sizeof(double) * (size_t)n * m + 8), *x = malloc(sizeof(double) * m + 8);
  double *y = malloc(sizeof(double) * n + 8), s = 0;
  for (i = 0; i < n * m; i++)
    A[i] = (i * 7 % 13) - 6;
  for (i = 0; i < m; i++)
    x[i] = i % 5;
  kernel(n, m, (double (*)[m]) A, x, y);
  for (i = 0; i < n; i++)
    s += y[i] * (i % 7 + 1);
  for (i = 0; i < m; i++)
    s += x[i];
  printf("%.6e\n", s);
  free(A); free(x); free(y);
  return 0;
}
"""


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


def _opt(tmp_path: Path, *flags: str, env: dict[str, str] | None = None) -> str:
    src = tmp_path / "mv.c"
    src.write_text(MV)
    proc = polyopt("opt", str(src), "-o", "-", *flags, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout[proc.stdout.index("/* polyopt: optimized scop region"):]


def _build(tmp_path: Path, name: str, text: str, flags: list[str]) -> Path:
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    exe = tmp_path / name
    cc = subprocess.run([CC, *flags, "-o", str(exe), str(src), "-lm"], capture_output=True,
                        text=True, check=False)
    assert cc.returncode == 0, cc.stderr[-3000:]
    return exe


def _run(exe: Path, *args: str) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": "3"}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env,
                          timeout=120, check=True).stdout


def test_every_parallel_loop_asks_the_flag(tmp_path: Path) -> None:
    """A short loop is printed twice, on a team and in order: a small run makes no
    OpenMP call at all (even a team of one costs one, and the runtime's start)."""
    region = _opt(tmp_path)
    lines = region.splitlines()
    pragmas = [k for k, x in enumerate(lines) if "#pragma omp parallel for" in x]
    assert len(pragmas) == 2, region
    for k in pragmas:
        test = lines[k - 1].strip()
        assert test.startswith("if (polyopt_team") and test.endswith(") {"), test
        assert "if(" not in lines[k]
        indent = lines[k - 1][:len(lines[k - 1]) - len(test)]
        loop = lines[k + 1:lines.index(indent + "} else {", k)]
        end = lines.index(indent + "}", k)
        serial = lines[k + len(loop) + 2:end]
        if serial and serial[0].strip().startswith("#pragma omp simd"):
            serial = serial[1:]
        assert serial == loop, (loop, serial)
    assert region.count("const int polyopt_team = ") == 1
    # the outlined loop body is a function of the file: the flag is not in its scope, and
    # a helper never opens a team of its own
    helper = region.split("static void polyopt_kernel_body", 1)
    assert len(helper) == 1 or "polyopt_team" not in helper[1].split("\n}\n", 1)[0]


def test_small_and_large_runs_print_what_the_original_prints(tmp_path: Path) -> None:
    src = tmp_path / "mv.c"
    src.write_text(MV)
    out = tmp_path / "mv.opt.c"
    proc = polyopt("opt", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    orig = _build(tmp_path, "orig", MV, ["-O0"])
    opt = _build(tmp_path, "opt", out.read_text(), ["-O2", "-fopenmp"])
    for sizes in (("3", "4"), ("0", "5"), ("1200", "1000")):  # the last: 1.2M instances
        assert _run(opt, *sizes) == _run(orig, *sizes), sizes


def test_the_flag_counts_the_region_instances(tmp_path: Path) -> None:
    """The generated line, built alone over the sizes: off for small regions and empty or
    negative sizes, on from the threshold's order of magnitude."""
    region = _opt(tmp_path)
    line = next(x for x in region.splitlines() if "const int polyopt_team = " in x)
    assert f">= {PARALLEL_MIN_INSTANCES}.0;" in line
    macros = [x for x in region.splitlines() if x.strip().startswith("#define polyopt_")]
    probe = ("#include <stdio.h>\n#include <stdlib.h>\n"
             "static int team(int n, int m)\n{\n" + "\n".join(macros) + "\n" + line
             + "\n  return polyopt_team;\n}\n"
             "int main(int argc, char **argv)\n{\n"
             "  printf(\"%d\\n\", team(atoi(argv[1]), atoi(argv[2])));\n  return 0;\n}\n")
    exe = _build(tmp_path, "probe", probe, ["-O0", "-Wall", "-Werror"])
    assert _run(exe, "10", "10") == "0\n"
    assert _run(exe, "-5", "100000") == "0\n"
    assert _run(exe, "100000", "0") == "0\n"  # n + n * 0 + 0
    assert _run(exe, "1100", "1000") == "1\n"


def test_the_threshold_comes_from_the_option_or_the_environment(tmp_path: Path) -> None:
    env = {"POLYOPT_PARALLEL_MIN": "5000"}
    assert ">= 5000.0;" in _opt(tmp_path, env=env)
    assert ">= 7.0;" in _opt(tmp_path, "--parallel-min", "7", env=env)
    always = _opt(tmp_path, "--parallel-min", "0")  # always a team: no flag
    assert "polyopt_team" not in always and "#pragma omp parallel for" in always
    bad = polyopt("opt", str(tmp_path / "mv.c"), "--parallel-min", "1e6")
    assert bad.returncode == 2 and "write 1000000, not 1e6" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_option_reaches_a_python_kernel(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "import polyopt\n\n@polyopt.jit\ndef scale(x, y):\n"
        "    for i in range(x.shape[0]):\n        y[i] = 2.0 * x[i]\n")
    proc = polyopt("opt", "k.py", "--signature", "float64[:], float64[:]", "--parallel-min",
                   "123", "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ">= 123.0;" in proc.stdout


def test_a_variable_of_the_file_named_like_the_flag_keeps_its_value(tmp_path: Path) -> None:
    source = (
        "#include <stdio.h>\n"
        "static void k(int n, double *x, double *y)\n{\n  int i;\n  int polyopt_team = 7;\n"
        "#pragma scop\n  for (i = 0; i < n; i++)\n    y[i] = x[i] * polyopt_team;\n"
        "#pragma endscop\n}\n"
        "int main(void)\n{\n  double x[5] = {1, 2, 3, 4, 5}, y[5];\n  k(5, x, y);\n"
        '  printf("%g %g\\n", y[0], y[4]);\n  return 0;\n}\n')
    src = tmp_path / "clash.c"
    src.write_text(source)
    out = tmp_path / "clash.opt.c"
    proc = polyopt("opt", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "if (polyopt_team_ && " in out.read_text()
    opt = _build(tmp_path, "opt", out.read_text(), ["-O2", "-fopenmp"])
    assert _run(opt) == _run(_build(tmp_path, "orig", source, ["-O0"])) == "7 35\n"
