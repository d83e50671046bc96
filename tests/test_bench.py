"""The benchmark harness (``python -m bench``): a small end-to-end run and its helpers."""

from __future__ import annotations

import csv
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after the installed polyopt

from bench import check, png, timing  # noqa: E402
from bench.report import csv_columns  # noqa: E402

# --- timing helpers ------------------------------------------------------------------


def test_median_odd_even() -> None:
    assert timing.median([3.0, 1.0, 2.0]) == 2.0
    assert timing.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert timing.median([5.0]) == 5.0
    with pytest.raises(ValueError):
        timing.median([])


def test_interleave_order() -> None:
    assert timing.interleave(["A", "B", "C"], 2) == ["A", "B", "C", "A", "B", "C"]
    assert timing.interleave(["A"], 0) == []


def test_rounds_for() -> None:
    assert timing.rounds_for(1.0, 3) == 3
    assert timing.rounds_for(0.1, 3) == 5
    assert timing.rounds_for(0.001, 3) == 15
    assert timing.rounds_for(1.0, 1) == timing.MIN_REPEAT
    assert timing.rounds_for(1.0, 9) == 9


def _fake_runners(log: list[str], times: dict[str, list[float]]) -> dict[str, timing.Runner]:
    def make(name: str) -> timing.Runner:
        it = iter(times[name])

        def run() -> float:
            log.append(name)
            return next(it)
        return run
    return {name: make(name) for name in times}


def test_run_interleaved_warms_up_then_interleaves() -> None:
    log: list[str] = []
    times = {"A": [9.0, 1.0, 5.0, 3.0], "B": [9.0, 2.0, 2.0, 8.0]}
    t = timing.run_interleaved(_fake_runners(log, times), 3)
    assert log == ["A", "B", "A", "B", "A", "B", "A", "B"]
    assert t.warmup == {"A": 9.0, "B": 9.0}
    assert t.samples == {"A": [1.0, 5.0, 3.0], "B": [2.0, 2.0, 8.0]}
    assert t.median("A") == 3.0 and t.median("B") == 2.0


def test_run_interleaved_rounds_from_warmup_and_failures() -> None:
    log: list[str] = []
    calls = {"n": 0}

    def flaky() -> float:
        calls["n"] += 1
        log.append("F")
        if calls["n"] == 2:
            raise RuntimeError("boom")
        return 0.5

    runners = {**_fake_runners(log, {"A": [0.001] * 20}), "F": flaky}
    t = timing.run_interleaved(runners, lambda w: timing.rounds_for(w, 3))
    # the slowest warm-up (F: 0.5 s) is not short, so 3 rounds
    assert len(t.samples["A"]) == 3
    assert t.errors["F"].startswith("RuntimeError")
    assert t.samples["F"] == []
    # warm-up A F, round 1 A F (F raises and is dropped), rounds 2 and 3: A only
    assert log == ["A", "F", "A", "F", "A", "A"]


# --- the Numba port -------------------------------------------------------------------


def test_prange_rewrite_only_outermost_parallel_loop() -> None:
    import ast

    from bench import numba_port
    from bench.kernels import gemm_ijk

    first = gemm_ijk.__code__.co_firstlineno
    i_line, j_line = first + 3, first + 4  # `for i`, `for j`
    tree, converted = numba_port.rewrite(gemm_ijk, {i_line, j_line})
    assert converted == [i_line]  # j is inside the prange loop: left alone
    text = ast.unparse(tree)
    assert "for i in prange(n):" in text and "for j in range(m):" in text
    assert "for k in range(p):" in text
    tree, converted = numba_port.rewrite(gemm_ijk, set())
    assert converted == [] and "prange" not in ast.unparse(tree)


def test_prange_only_where_no_array_needs_a_copy_per_thread() -> None:
    """doitgen's loops over ``r`` and ``q`` are parallel on copies of ``sum_``; Numba's
    ``prange`` would share ``sum_`` (a race: the bench once reported Numba parallel's
    doitgen WRONG at LARGE).  Only the loops that need no copy become ``prange``."""
    import polyopt
    from bench import numba_port
    from bench.specs import load_spec
    from bench.variants import BASELINE_OPTIONS

    spec = load_spec("polybench", "doitgen")
    analysis = polyopt.jit(spec.kernel, **BASELINE_OPTIONS).dependences(**spec.args("MINI"))
    copied = {lp.line for lp in analysis.loops if lp.private_arrays}
    lines = numba_port.parallel_lines(analysis)
    assert copied and lines and not copied & lines


# --- result checking and the PNG writer ------------------------------------------------


def test_check_tolerances() -> None:
    e = np.linspace(1.0, 2.0, 50)
    assert check.mismatch(e, e * (1 + 1e-9)) is None
    assert check.mismatch(e, e + 1e-3) is not None
    assert check.mismatch(e.astype(np.float32), e.astype(np.float32) * (1 + 1e-5)) is None
    assert check.mismatch(np.arange(5), np.arange(5) + (np.arange(5) == 3)) is not None
    nan = e.copy()
    nan[3] = np.nan
    assert check.mismatch(nan, nan.copy()) is None
    assert check.mismatch(nan, e) == "NaN in different places"
    assert check.mismatch(e, e[:10]) is not None


def test_png_writer(tmp_path: Path) -> None:
    path = tmp_path / "chart.png"
    png.bar_chart(path, ["gemm", "atax"], [("polyopt 2t", [3.0, 0.5]), ("NumPy", [None, 2.0])],
                  "test")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    start = data.index(b"IDAT") + 4
    length = int.from_bytes(data[start - 8:start - 4], "big")
    raw = zlib.decompress(data[start:start + length])
    assert len(raw) == height * (1 + 3 * width)


# --- end to end ------------------------------------------------------------------------


def test_harness_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "results"
    # `python -m bench` from the checkout, but with the installed polyopt first: run
    # elsewhere, the checkout appended to the path after polyopt is imported
    run_bench = ("import runpy, sys; import polyopt; sys.path.append(sys.argv.pop(1)); "
                 "sys.argv[0] = 'bench'; runpy.run_module('bench', run_name='__main__', "
                 "alter_sys=True)")
    proc = subprocess.run(
        [sys.executable, "-c", run_bench, str(ROOT), "--size", "MINI", "--kernels",
         "gemm,atax,jacobi-1d", "--repeat", "3", "--suite", "polybench", "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for suffix in (".md", ".csv", ".png"):
        assert (out / f"polybench-MINI{suffix}").stat().st_size > 0
    with (out / "polybench-MINI.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == csv_columns()
    assert [r["kernel"] for r in rows] == ["gemm", "atax", "jacobi-1d"]
    for r in rows:
        assert "WRONG" not in r.values(), r
        for key in ("baseline", "polyopt-1t", "polyopt-2t", "polyopt-array"):
            assert r[f"{key}_status"] == "ok", r
            assert float(r[f"{key}_ms"]) > 0 and int(r[f"{key}_runs"]) >= 3
        assert r["numpy_status"] == "ok"
        assert float(r["compile_cold_s"]) > 0 and float(r["compile_warm_s"]) > 0
        # of the cold time, plan+emit and the C compiler, each measured again alone
        assert float(r["compile_plan_emit_s"]) > 0 and float(r["compile_cc_s"]) > 0
    assert (out / "polybench-MINI.png").read_bytes().startswith(b"\x89PNG")
    assert "geometric-mean speedup" in proc.stdout
    assert "on the NumPy-style array code" in proc.stdout and "3 kernels with both" in proc.stdout
    assert "plan+emit (CPU time, frontend to C source, no C compiler) over 3 kernels" in proc.stdout


def test_jacobi_2d_ceiling_probe_builds_and_measures() -> None:
    from bench import ceiling
    from bench.report import _ceiling_note

    got = ceiling.jacobi_2d((1,))
    assert got is not None and set(got) == {1} and got[1] > 0.1, got
    note = _ceiling_note({1: 10.0, 2: 18.0}, 6.0)
    assert "10.0 on 1 thread, 18.0 on 2 threads GFLOP/s" in note and "3.00×" in note
    assert "could not" in _ceiling_note(None, 6.0)


def test_fma_peak_probe_builds_and_measures() -> None:
    from bench import ceiling

    got = ceiling.fma_peak(1)
    # both measured; their ratio (float32 has twice the lanes) is the bench's to report:
    # on a loaded host one run measured float32 below float64
    assert got is not None and got["float64"] > 1.0 and got["float32"] > 1.0, got


def test_c_suite_sets_the_dataset_sizes_and_compares_checksums() -> None:
    from bench import c_suite

    text = c_suite.sized_source(c_suite.EXAMPLES / "gemm.c", "LARGE")
    assert "# define NI 1000" in text and "# define NJ 1100" in text and "# define NK 1200" in text
    assert "#define NL 1200" in c_suite.sized_source(c_suite.EXAMPLES / "2mm.c", "LARGE")
    band = c_suite.EXAMPLES / "band-mv.c"  # no Python module: its own sizes
    assert c_suite.sized_source(band, "LARGE") == band.read_text()
    assert c_suite.agree([1.0, 2.0], [1.0 + 1e-9, 2.0])
    assert not c_suite.agree([1.0], [1.001]) and not c_suite.agree([1.0], [1.0, 2.0])


def test_c_suite_measures_one_kernel(tmp_path: Path) -> None:
    from bench import c_suite

    (r,) = c_suite.run("MINI", 1, {"gemm"})
    assert not r.error, r.error
    assert set(r.kernel_s) == set(c_suite.VARIANTS) and all(t > 0 for t in r.kernel_s.values())
    assert "gemm" in c_suite.table([r], "MINI") and "geomean" not in c_suite.table([], "MINI")


def test_c_suite_times_every_region_inside_the_program() -> None:
    from bench import c_suite

    two = "#include <stdio.h>\nvoid f(void) {\n#pragma scop\nx = 1;\n#pragma endscop\n" \
          "#pragma scop\ny = 2;\n#pragma endscop\n}\n"
    text = c_suite.timed(two)
    assert text.index("double polyopt_bench_now(void);") < text.index("void f")
    assert "double polyopt_bench_t0 = polyopt_bench_now();\n#pragma scop\nx = 1;" in text
    assert "#pragma endscop\npolyopt_bench_report(polyopt_bench_t1);\n}" in text
    assert c_suite.region_seconds("noise\npolyopt-bench-region 0.25\n"
                                  "polyopt-bench-region 0.5\n") == 0.75
    with pytest.raises(RuntimeError):
        c_suite.region_seconds("")
    with pytest.raises(ValueError):
        c_suite.timed("int main(void) { return 0; }\n")


def test_overhead_report_says_when_numba_is_missing() -> None:
    from bench.overhead import Overhead
    from bench.report import compile_markdown

    with_numba = compile_markdown([], Overhead(1.5e-6, 1.0e-6, 0.5e-6), [])
    assert "| 1.50 µs | 1.00 µs | 0.50 µs | PASS | 0.50 µs | 3.00× |" in with_numba
    without = compile_markdown([], Overhead(3e-6, 1e-6, None, "Numba is not installed"), [])
    assert "| 3.00 µs | 1.00 µs | 2.00 µs | MISS | – | – |" in without
    assert "Numba: Numba is not installed." in without


def test_numpy_plan_emit_measures_both_versions_of_a_kernel() -> None:
    """bench.numpy_plan_emit (the compile-time table of docs/design/array-code.md)."""
    from bench.numpy_plan_emit import plan_emit_seconds

    for suite in ("polybench", "polybench-numpy"):
        assert 0 < plan_emit_seconds(suite, "jacobi-1d", 1) < 60


def test_the_numpy_column_skips_a_python_loop_over_every_element() -> None:
    """NumPy-style seidel-2d loops over ``j`` in Python: 2 * 10^9 iterations at LARGE,
    which the bench used to wait 30 minutes on; at MEDIUM it is timed."""
    from bench.specs import load_spec
    from bench.variants import too_slow_in_python

    seidel = load_spec("polybench", "seidel-2d")
    why = too_slow_in_python(seidel, "LARGE")
    assert why is not None and "2.0e+09 iterations of a Python loop at LARGE" in why
    assert too_slow_in_python(seidel, "MEDIUM") is None
    assert too_slow_in_python(load_spec("polybench", "gemm"), "LARGE") is None
