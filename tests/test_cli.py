"""The ``polyopt`` command, run in a subprocess exactly as a user runs it.

Golden files live in ``tests/golden``; refresh them after a reviewed change to code
generation or reports with ``POLYOPT_UPDATE_GOLDEN=1 pytest tests/test_cli.py`` (or
``--update-golden`` where the root conftest registers that option).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from polyopt.cli import arguments as cli_arguments
from polyopt.cli import command as cli
from polyopt.cli import opt as cli_opt
from polyopt.cli import options as cli_options
from polyopt.model.options import Options

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = sorted((ROOT / "examples" / "c").glob("*.c"))
POLYOPT = Path(sys.executable).parent / "polyopt"
SOURCE_ORDER = "tests/golden/source-order.json"
CC = os.environ.get("CC", "cc")

pytestmark = pytest.mark.skipif(not POLYOPT.exists(), reason=f"the console script {POLYOPT} is "
                                "not installed (run `make test`, which installs it)")


def polyopt(*args: str, cwd: Path = ROOT,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command as users run it (conftest's POLYOPT_PARALLEL_MIN=0 left out), with
    ``env`` added to the environment."""
    env = {k: v for k, v in os.environ.items() if k != "POLYOPT_PARALLEL_MIN"} | (env or {})
    return subprocess.run([str(POLYOPT), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, check=False, env=env)


def update_golden(request: pytest.FixtureRequest) -> bool:
    option = request.config.getoption("--update-golden", default=False)
    return bool(option) or os.environ.get("POLYOPT_UPDATE_GOLDEN") == "1"


def check_golden(request: pytest.FixtureRequest, name: str, text: str) -> None:
    path = GOLDEN / name
    if update_golden(request):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no golden file {path}: create it with POLYOPT_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            str(path), "now", n=2))
        pytest.fail(f"output differs from {path} (review it; POLYOPT_UPDATE_GOLDEN=1 updates "
                    f"the golden file):\n{diff[:6000]}")


def assert_error(proc: subprocess.CompletedProcess[str], code: int, *phrases: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for p in phrases:
        assert p in proc.stderr, proc.stderr


# --- help and version -------------------------------------------------------------------------


def test_help_explains_every_option() -> None:
    top = polyopt("--help")
    assert top.returncode == 0 and "opt" in top.stdout and "deps" in top.stdout
    opt = polyopt("opt", "--help").stdout
    for flag in ("--tile, --no-tile", "--tile-sizes", "--parallel, --no-parallel", "--fuse",
                 "--unroll-jam, --no-unroll-jam", "--vectorize, --no-vectorize", "--schedule",
                 "--verify", "--function", "--signature", "-o OUT"):
        assert flag in opt, flag
    deps = polyopt("deps", "--help").stdout
    assert "--format {text,json,html,dot}" in deps
    assert polyopt("--version").stdout.startswith("polyopt ")


def test_usage_errors_exit_2() -> None:
    assert_error(polyopt(), 2, "required")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--fuse", "some"), 2, "invalid choice")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--tile-sizes", "32,x"), 2,
                 "not a comma-separated list")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--tile-sizes", "0"), 2, "positive")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--tile-sizes", "8", "--no-tile"), 2,
                 "contradicts")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--signature", "float64"), 2,
                 "Python files only")
    assert_error(polyopt("deps", "examples/polybench/gemm.py", "-I", "x"), 2, "C files only")


def test_options_that_do_not_exist_yet_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    @dataclasses.dataclass(frozen=True)
    class Older:  # an Options without the transformation fields
        parallel: bool = True
        vectorize: bool = True

    monkeypatch.setattr(cli_options, "Options", Older)
    monkeypatch.setattr(cli_arguments, "Options", Older)  # the defaults --help shows
    assert cli.main(["opt", str(ROOT / "examples/c/gemm.c"), "--unroll-jam", "-o", "-"]) == 2
    assert "--unroll-jam/--no-unroll-jam is not available yet" in capsys.readouterr().err
    args = cli_arguments.build_parser().parse_args(["opt", "x.c", "--no-parallel"])
    assert cli_options.options_from(args, Older()) == Older(parallel=False)


def test_options_reach_the_pipeline() -> None:
    args = cli_arguments.build_parser().parse_args(
        ["opt", "x.c", "--tile-sizes", "16,8", "--fuse", "max", "--no-vectorize", "--unroll-jam"])
    got = cli_options.options_from(args, Options())
    assert (got.tile, got.fuse, got.vectorize, got.unroll_jam) == ((16, 8), "max", False, True)


# --- polyopt opt on C -------------------------------------------------------------------------


def test_opt_rewrites_only_the_regions(tmp_path: Path) -> None:
    """Only the region changes, and its register tiles' loops become functions inserted
    just before the region's function (backend_c/region_outline.py): the micro-kernel,
    and the narrower one of the ragged columns (AVX-512's 16-column tiles leave room for
    three)."""
    src = tmp_path / "gemm.c"
    shutil.copy(ROOT / "examples/c/gemm.c", src)
    proc = polyopt("opt", "gemm.c", cwd=tmp_path, env={"POLYOPT_TARGET": "avx512"})
    assert proc.returncode == 0, proc.stderr
    assert "gemm.c -> gemm.opt.c" in proc.stderr
    out = (tmp_path / "gemm.opt.c").read_text().splitlines(keepends=True)
    original = src.read_text().splitlines(keepends=True)
    function = next(k for k, x in enumerate(original) if x.startswith("static void kernel_gemm"))
    helpers_end = next(k for k, x in enumerate(out) if x.startswith("static void kernel_gemm"))
    helpers = "".join(out[function:helpers_end])
    assert out[:function] == original[:function]
    assert helpers.count("static void polyopt_kernel_gemm_micro") == 2, helpers[:300]
    assert 'optimize("no-tree-loop-vectorize", "no-tree-forwprop")' in helpers
    out = out[:function] + out[helpers_end:]
    start = next(k for k, x in enumerate(original) if x.strip() == "#pragma scop")
    end = next(k for k, x in enumerate(original) if x.strip() == "#pragma endscop")
    assert out[:start] == original[:start]
    assert out[len(out) - (len(original) - end - 1):] == original[end + 1:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gemm.c", "gemm.opt.c"]  # no temp files


def test_opt_to_stdout_and_never_over_the_input(tmp_path: Path) -> None:
    proc = polyopt("opt", "examples/c/mvt.c", "-o", "-")
    assert proc.returncode == 0 and "#pragma omp parallel for" in proc.stdout and "polyopt: optimized" \
        in proc.stdout
    src = tmp_path / "k.c"
    shutil.copy(ROOT / "examples/c/trisolv.c", src)
    before = src.read_bytes()
    assert_error(polyopt("opt", "k.c", "-o", "./k.c", cwd=tmp_path), 1,
                 "refusing to write over the input file")
    assert src.read_bytes() == before
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # a special file is written through, never replaced by a regular one
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    assert polyopt("opt", "k.c", "-o", str(fifo), cwd=tmp_path).returncode == 0
    assert "polyopt: optimized scop region" in reader.communicate(timeout=60)[0]
    assert fifo.is_fifo()


def test_opt_verify_reports_agreement() -> None:
    proc = polyopt("opt", "examples/c/nussinov.c", "--verify", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"verify kernel_nussinov\(\) region 1 \(lines \d+-\d+\): OK: \d+ values "
                     r"agree with n=\d+", proc.stderr), proc.stderr


def test_opt_verify_detects_a_wrong_optimization(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    real = cli_opt.emit_region

    def wrong(region, tree, scop=None):  # the optimized block multiplies where it divided
        return real(region, tree, scop).replace("/ L[", "* L[")

    monkeypatch.setattr(cli_opt, "emit_region", wrong)
    code = cli.main(["opt", str(ROOT / "examples/c/trisolv.c"), "--verify", "--no-tile",
                     "-o", str(tmp_path / "out.c")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "FAILED: `x` differs at element" in err
    assert "not written" in err and not (tmp_path / "out.c").exists()


def test_opt_errors(tmp_path: Path) -> None:
    assert_error(polyopt("opt", "nope.c", cwd=tmp_path), 1, "nope.c: no such file")
    (tmp_path / "plain.c").write_text("int main(void) { return 0; }\n")
    assert_error(polyopt("opt", "plain.c", cwd=tmp_path), 1, "no `#pragma scop` region")
    (tmp_path / "bad.c").write_text(
        "void f(int n, double *A) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n"
        "    while (A[i] > 0) A[i] -= 1;\n#pragma endscop\n}\n")
    proc = polyopt("opt", "bad.c", cwd=tmp_path)
    assert_error(proc, 1, "bad.c:5:5: error: `while` loop: is not supported in a scop region")
    assert "    while (A[i] > 0) A[i] -= 1;\n        ^" in proc.stderr
    assert not (tmp_path / "bad.opt.c").exists()
    assert_error(polyopt("opt", "examples/c/gemm.c", "--function", "nothere", "-o", "-"), 1,
                 "no #pragma scop region in a function named 'nothere'")
    (tmp_path / "uninit.c").write_text(  # a region that cannot be optimized
        "void f(int n, double *x) {\n  int i;\n  double s;\n#pragma scop\n"
        "  for (i = 0; i < n; i++)\n    s += x[i];\n#pragma endscop\n}\n")
    assert_error(polyopt("opt", "uninit.c", cwd=tmp_path), 1,
                 "uninit.c:6:5: error: variable `s`: may be read before it is assigned")


def test_opt_with_a_user_schedule(tmp_path: Path) -> None:
    proc = polyopt("opt", "examples/c/seidel-2d.c", "--schedule", SOURCE_ORDER, "-o", "-")
    assert proc.returncode == 0, proc.stderr
    illegal = tmp_path / "illegal.json"
    illegal.write_text('{"polyopt_schedule": 1, "function": "kernel_seidel_2d", '
                       '"steps": [{"op": "interchange", "args": ["t", "i"]}]}')
    assert_error(polyopt("opt", "examples/c/seidel-2d.c", "--schedule", str(illegal), "-o", "-"),
                 1, "the schedule is illegal")
    (tmp_path / "junk.json").write_text("{not json")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--schedule", str(tmp_path / "junk.json")),
                 1, "is not a polyopt schedule file")
    assert_error(polyopt("opt", "examples/c/gemm.c", "--schedule", str(tmp_path / "none.json")),
                 1, "cannot read")


def test_a_schedule_for_a_function_of_two_regions_says_what_to_do(tmp_path: Path) -> None:
    """Hostile session 44b, 05: with --function given, it advised --function."""
    region = "#pragma scop\nfor (i = 0; i < n; i++) A[i] = 1.0;\n#pragma endscop\n"
    (tmp_path / "k.c").write_text(f"void k(int n, double A[40]) {{\nint i;\n{region}{region}}}\n")
    (tmp_path / "s.json").write_text('{"polyopt_schedule": 1, "function": "k", "steps": []}')
    assert_error(polyopt("opt", "k.c", "--function", "k", "--schedule", "s.json", cwd=tmp_path),
                 2, "k() in k.c has 2; a schedule cannot choose between the regions of one "
                 "function: move each into a function of its own")


# --- polyopt opt on Python --------------------------------------------------------------------

KERNELS_PY = '''\
import polyopt

@polyopt.jit
def scale(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i]

@polyopt.jit(parallel=False)
def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s

def plain(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0
'''


def test_what_a_python_file_prints_at_import_stays_off_standard_output(tmp_path: Path) -> None:
    """Standard output is the command's C or report (hostile session 45b, 01: the JSON
    began with the file's print)."""
    (tmp_path / "k.py").write_text('print("hello from import")\n\ndef f(x):\n'
                                   '    for i in range(x.shape[0]):\n        x[i] = 1.0\n')
    deps = polyopt("deps", "k.py", "--function", "f", "--signature", "float64[:]",
                   "--format", "json", cwd=tmp_path)
    assert deps.returncode == 0, deps.stderr
    assert json.loads(deps.stdout)["schema"] == "polyopt-deps"
    assert "hello from import" in deps.stderr
    opt = polyopt("opt", "k.py", "--function", "f", "--signature", "float64[:]", "-o", "-",
                  cwd=tmp_path)
    assert opt.returncode == 0 and opt.stdout.startswith("/* Generated by polyopt"), opt.stdout


def test_opt_python(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(KERNELS_PY)
    assert_error(polyopt("opt", "k.py", cwd=tmp_path), 1, "several @polyopt.jit functions "
                 "(scale, total); choose one with --function NAME")
    proc = polyopt("opt", "k.py", "--function", "scale", "--signature",
                   "float32[:], float32[:], float32", "--verify", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    c = (tmp_path / "k.scale.c").read_text()
    assert "void polyopt_scale(" in c and "float *restrict x" in c
    assert "verify scale(): OK" in proc.stderr
    proc = polyopt("opt", "k.py", "--function", "plain", "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0 and "polyopt_plain(" in proc.stdout
    proc = polyopt("opt", "k.py", "--function", "total", "-o", "-", cwd=tmp_path)
    assert "#pragma omp parallel" not in proc.stdout  # the decorator's options are kept
    proc = polyopt("opt", "k.py", "--function", "total", "--parallel", "-o", "-", cwd=tmp_path)
    assert "reduction(+:s)" in proc.stdout  # ... unless the command line says otherwise


def test_python_errors(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(KERNELS_PY)
    assert_error(polyopt("opt", "k.py", "--function", "nothere", cwd=tmp_path), 1,
                 "no function named 'nothere'")
    assert_error(polyopt("opt", "k.py", "--function", "scale", "--signature", "float64[:]",
                         cwd=tmp_path), 1, "the signature has 1 types but the function takes 3")
    assert_error(polyopt("opt", "k.py", "--function", "scale", "--signature",
                         "float64[:], complex[:], float64", cwd=tmp_path), 1, "unknown type")
    (tmp_path / "none.py").write_text("def f(x):\n    return x\n")
    assert_error(polyopt("opt", "none.py", cwd=tmp_path), 1, "no @polyopt.jit function")
    (tmp_path / "boom.py").write_text("import polyopt\nx = 1\nraise RuntimeError('no data')\n")
    assert_error(polyopt("deps", "boom.py", cwd=tmp_path), 1,
                 "importing it failed at line 3: RuntimeError: no data")
    (tmp_path / "syntax.py").write_text("def f(:\n")
    assert_error(polyopt("deps", "syntax.py", cwd=tmp_path), 1, "syntax error")
    (tmp_path / "w.py").write_text("import polyopt\n\n@polyopt.jit\ndef w(x):\n"
                                   "    while x[0] > 0:\n        x[0] -= 1\n")
    proc = polyopt("opt", "w.py", "-o", "-", cwd=tmp_path)
    assert_error(proc, 1, "w.py:5:5: error: `while` loop")
    assert "        while x[0] > 0:\n        ^" in proc.stderr


# --- polyopt deps -----------------------------------------------------------------------------


def test_deps_formats_and_output_file(tmp_path: Path) -> None:
    text = polyopt("deps", "examples/c/gemm.c")
    assert text.returncode == 0 and "== kernel_gemm() region 1" in text.stdout
    out = tmp_path / "r.json"
    assert polyopt("deps", "examples/c/gemm.c", "--format", "json", "-o", str(out)).returncode == 0
    assert '"schema": "polyopt-deps"' in out.read_text()
    dot = polyopt("deps", "examples/c/gemm.c", "--format", "dot").stdout
    assert dot.startswith('digraph "polyopt dependences: examples/c/gemm.c" {')
    html = polyopt("deps", "examples/polybench/gemm.py", "--function", "kernel", "--format",
                   "html").stdout
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html


# --- golden files -----------------------------------------------------------------------------

OPT_GOLDEN = ["gemm", "atax", "durbin", "nussinov", "band-mv", "gesummv"]


@pytest.mark.parametrize("name", OPT_GOLDEN)
def test_opt_golden(request: pytest.FixtureRequest, name: str) -> None:
    """Region code for the source order (stable under scheduler changes), with OpenMP marks."""
    proc = polyopt("opt", f"examples/c/{name}.c", "--schedule", SOURCE_ORDER, "-o", "-")
    assert proc.returncode == 0, proc.stderr
    check_golden(request, f"opt/{name}.c", proc.stdout)


def test_opt_python_golden(request: pytest.FixtureRequest) -> None:
    proc = polyopt("opt", "examples/polybench/atax.py", "--function", "kernel", "--signature",
                   "float64[:,:], float64[:], float64[:], float64[:]", "--schedule",
                   SOURCE_ORDER, "-o", "-")
    assert proc.returncode == 0, proc.stderr
    # the header names the source file: compare it relative to the checkout
    text = proc.stdout.replace(str(ROOT) + "/", "")
    check_golden(request, "opt/atax.py.c", text)


@pytest.mark.parametrize("name, fmt", [("gemm", "text"), ("seidel-2d", "text"),
                                       ("jacobi-2d", "json"), ("durbin", "dot")])
def test_deps_golden(request: pytest.FixtureRequest, name: str, fmt: str) -> None:
    proc = polyopt("deps", f"examples/c/{name}.c", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    text = re.sub(r'"generator": "polyopt [^"]*"', '"generator": "polyopt"', proc.stdout)
    check_golden(request, f"deps/{name}.{fmt}", text)


def test_deps_python_golden(request: pytest.FixtureRequest) -> None:
    proc = polyopt("deps", "examples/polybench/seidel_2d.py", "--function", "kernel")
    assert proc.returncode == 0, proc.stderr
    check_golden(request, "deps/seidel_2d.py.text", proc.stdout)


# --- every example: optimized, compiled, run, same output -------------------------------------


def _numbers_match(a: str, b: str) -> bool:
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb, strict=True):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > 1e-8 * max(abs(fx), abs(fy)):
            return False
    return True


def _build_and_run(example: Path, workdir: Path) -> tuple[str, str, str]:
    """(original output, optimized output, problem) for one example."""
    name = example.stem
    opt_c = workdir / f"{name}.opt.c"
    # on a team at any size: the examples' small sizes test the parallel code
    proc = polyopt("opt", str(example), "-o", str(opt_c), "--parallel-min", "0")
    if proc.returncode != 0:
        return "", "", f"polyopt opt failed:\n{proc.stderr}"
    outputs = []
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    for src, tag in ((example, "orig"), (opt_c, "opt")):
        exe = workdir / f"{name}.{tag}"
        cc = subprocess.run([CC, "-O2", "-fopenmp", "-o", str(exe), str(src), "-lm"],
                            capture_output=True, text=True, check=False)
        if cc.returncode != 0:
            return "", "", f"{src.name} does not compile:\n{cc.stderr[:4000]}"
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env,
                             check=False)
        if run.returncode != 0:
            return "", "", f"{exe.name} failed with status {run.returncode}"
        outputs.append(run.stdout)
    return outputs[0], outputs[1], ""


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str, str]]:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")
    workdir = tmp_path_factory.mktemp("examples")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda e: (e.stem, _build_and_run(e, workdir)), EXAMPLES)
        return dict(results)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_example_gives_the_same_output(example_runs: dict[str, tuple[str, str, str]],
                                       example: Path) -> None:
    original, optimized, problem = example_runs[example.stem]
    assert not problem, problem
    assert original.strip(), "the example printed nothing"
    assert _numbers_match(original, optimized), f"original: {original!r}\noptimized: {optimized!r}"


def test_examples_cover_polybench() -> None:
    names = {e.stem for e in EXAMPLES}
    polybench = {"2mm", "3mm", "adi", "atax", "bicg", "cholesky", "correlation", "covariance",
                 "deriche", "doitgen", "durbin", "fdtd-2d", "floyd-warshall", "gemm", "gemver",
                 "gesummv", "gramschmidt", "heat-3d", "jacobi-1d", "jacobi-2d", "lu", "ludcmp",
                 "mvt", "nussinov", "seidel-2d", "symm", "syr2k", "syrk", "trisolv", "trmm"}
    assert polybench <= names


def test_verify_that_cannot_compare_is_not_a_mismatch(tmp_path: Path, capsys) -> None:
    """The original divides by array values, zeros among the harness's random inputs:
    it traps, so nothing was compared; that is not a mismatch (exit 3) but an error
    naming the signal (hostile session 42b, finding 05)."""
    src = tmp_path / "div.c"
    src.write_text("void f(int n, int *I, int *J, int *K) {\n#pragma scop\n"
                   "  for (int i = 0; i < n; i++)\n    I[i] = J[i] / K[i];\n"
                   "#pragma endscop\n}\n")
    code = cli.main(["opt", str(src), "--verify", "-o", str(tmp_path / "out.c")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "NOT VERIFIED" in err and "SIGFPE" in err and "run without --verify" in err
    assert not (tmp_path / "out.c").exists()


def test_a_warning_is_the_command_s_own_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Hostile session 42b, finding 07: the isl-budget warning was located at
    `<frozen runpy>:88`, the command's own Python frame."""
    from polyopt.model.errors import warn_user

    def warns(args) -> int:
        warn_user("polyopt: scheduling f() is too complex: keeping the source loop order")
        return 0

    monkeypatch.setitem(cli.COMMANDS, "opt", warns)
    assert cli.main(["opt", "k.c"]) == 0
    err = capsys.readouterr().err
    assert err == ("polyopt: warning: scheduling f() is too complex: keeping the source "
                   "loop order\n")


def test_verify_of_an_optimized_region_that_crashes_is_a_failure(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """Where the original ran and the optimized code crashed, --verify has its answer: a
    failure (exit 3), not "cannot verify" (hostile session 43b, finding 01)."""
    real = cli_opt.emit_region

    def crashing(region, tree, scop=None):
        return "{ *(volatile int *)0 = 1; }\n" + real(region, tree, scop)

    monkeypatch.setattr(cli_opt, "emit_region", crashing)
    src = tmp_path / "k.c"
    src.write_text("void f(int n, double *x) {\n#pragma scop\n"
                   "  for (int i = 0; i < n; i++)\n    x[i] = 2.0 * x[i];\n#pragma endscop\n}\n")
    code = cli.main(["opt", str(src), "--verify", "-o", str(tmp_path / "out.c")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "FAILED: optimized crashed (SIGSEGV" in err and not (tmp_path / "out.c").exists()


@pytest.mark.parametrize("define", ["-D=3", "-D3", "-D N-1"])
def test_a_bad_macro_definition_is_a_bad_command_line(define: str, tmp_path: Path,
                                                      capsys) -> None:
    """It was the preprocessor's error on the file, exit 1 (hostile session 43b)."""
    src = tmp_path / "k.c"
    src.write_text("void f(int n, double *x) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
                   "    x[i] = 2.0 * x[i];\n#pragma endscop\n}\n")
    assert cli.main(["opt", str(src), *define.split(" ", 1), "-o", "-"]) == 2
    assert "expected NAME or NAME=VALUE" in capsys.readouterr().err
    assert cli.main(["opt", str(src), "-DN=3", "-DF(x)=x", "-o", "-"]) == 0


def test_a_ctrl_c_while_the_command_loads_exits_130_without_a_traceback(tmp_path: Path) -> None:
    """Hostile session 47b, finding 01: a Ctrl-C in the first half second (the command's
    modules loading) printed a KeyboardInterrupt traceback."""
    script = (
        "import sys, importlib.abc\n"
        "class Interrupt(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'polyopt.cli.command':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "import polyopt.cli\n"
        "sys.exit(polyopt.cli.main(['deps', 'k.c']))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr
