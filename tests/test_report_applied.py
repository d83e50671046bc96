"""What was done: the plan's record of the scheduler's decisions, the reports that show it
(``fn.report()``, ``polyopt deps``, the notebook's HTML), and ``polyopt.schedule(fn,
start="auto")``, which starts from the automatic schedule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from polyopt.frontends.python import parse_function
from test_reports import SCHEMA, _browser, validate

import polyopt
from polyopt.cli.deps import build_report
from polyopt.model.options import Options
from polyopt.report import json_doc as report_json
from polyopt.report import text as report_text
from polyopt.report.applied import applied_report
from polyopt.scheduler.pipeline import plan
from polyopt.scheduler.steps import StartAuto, Tile

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after the installed polyopt
from examples.polybench import lu  # noqa: E402
from tests.kernels import gemm, mm_exp_mm, transpose  # noqa: E402


def phases(fn: object, **options: object) -> list[str]:
    return [a.phase for a in plan(parse_function(fn, None), Options(**options)).applied]


def test_the_plan_records_each_phase_in_order() -> None:
    got = phases(mm_exp_mm)
    # (its register tiles' ragged rests were cache-tiled too until they ran in one band)
    order = ["accumulator promotion", "distribution", "loop order", "fusion",
             "register tiling", "contraction", "marks"]
    assert [p for p in dict.fromkeys(got)] == order
    assert list(dict.fromkeys(phases(transpose))) == ["tiling", "marks"]
    assert phases(mm_exp_mm, auto=False) == ["marks"] * phases(mm_exp_mm, auto=False).count(
        "marks")


def test_lu_says_it_is_a_parallel_time_tiled_wavefront() -> None:
    p = plan(parse_function(lu.kernel, None), Options())
    r = applied_report(p)
    marks = {x.label: x.marks for x in r.loops}
    assert marks["i.tile+j.tile"] == ("wavefront of time tiles",)
    assert "parallel" in marks["j.tile"] and "time-tiled, tiles of 32" in marks["j.tile"]
    assert any(a.phase == "time tiling" and not a.steps for a in r.applied), \
        "time tiling has no user step and must not claim one"
    assert r.replay == 'polyopt.schedule(fn, start="auto")'


def test_matmul_exp_matmul_says_what_it_did_to_its_temporaries() -> None:
    r = applied_report(plan(parse_function(mm_exp_mm, None), Options()))
    temps = dict(r.temporaries)
    assert "T_rows" in temps and "privatized" in temps["T_rows"]
    assert any("contracted into a buffer of rows" in w for w in temps.values())
    assert any("packed into contiguous panels" in w for w in temps.values())
    fused = [x for x in r.loops if any(m.startswith("fused with") for m in x.marks)]
    assert fused, "the fused i loop is marked with what it was fused with"
    assert any(m.startswith("register tiles of") for x in r.loops for m in x.marks)


def test_recorded_steps_replay_to_the_same_loops() -> None:
    """Where every decision is a user step, those steps from the source order give the
    automatic schedule's loops."""
    k = polyopt.jit(transpose)
    p = k.plan()
    steps = [s for a in p.applied for s in a.steps]
    assert any(isinstance(s, Tile) for s in steps)
    s = polyopt.schedule(k)
    for step in steps:
        s = s._then(type(step), *step.args)
    assert s.loops() == [x.label for x in applied_report(p).loops if not x.statement]


def test_report_is_a_str_with_what_was_done() -> None:
    k = polyopt.jit(gemm)
    r = k.report()
    assert isinstance(r, str)
    assert "polyopt dependence report" in r and "What was done (the automatic schedule)" in r
    assert "[register tiling]" in r and "Parallel threshold" in r
    html = r._repr_html_()
    assert html.startswith('<div class="polyopt-report">') and "<svg" in html
    assert "What was done" in html and "<html" not in html
    assert ".polyopt-report body" not in html  # the notebook's page is left alone


def test_start_auto_compiles_what_jit_compiles(check, rng) -> None:
    k = polyopt.jit(mm_exp_mm)
    s = polyopt.schedule(k, start="auto")
    assert str(s) == 'polyopt.schedule(mm_exp_mm, start="auto")'
    args = (rng.random((20, 12)), rng.random((12, 17)), rng.random((17, 9)), np.zeros((20, 9)))
    fast = s.compile()
    check(fast, *args)
    assert fast.c_source(*args) == k.c_source(*args)
    assert json.loads(s.to_json())["steps"] == [{"op": "auto", "args": []}]
    again = polyopt.user_schedule.Schedule.from_json(k, s.to_json())
    assert again.steps == (StartAuto(),)


def test_start_auto_takes_steps_on_top(check, rng) -> None:
    s = polyopt.schedule(transpose, start="auto").interchange("i", "j")
    assert s.loops()[:2] == ["i.tile", "j.tile"]
    check(s.compile(), rng.random((33, 20)), np.zeros((20, 33)))
    with pytest.raises(polyopt.PolyoptError, match="no loop named 'nope'"):
        polyopt.schedule(transpose, start="auto").parallelize("nope")


def test_start_auto_refusals() -> None:
    with pytest.raises(ValueError, match="start must be"):
        polyopt.schedule(transpose, start="pluto")
    text = json.dumps({"polyopt_schedule": 1, "function": "transpose",
                       "steps": [{"op": "tile", "args": [["i"], [8]]}, {"op": "auto", "args": []}]})
    with pytest.raises(polyopt.ScheduleFormatError, match="only be the first step"):
        polyopt.user_schedule.Schedule.from_json(transpose, text)
    with pytest.raises(polyopt.IllegalTransformationError):
        polyopt.schedule(lu.kernel, start="auto").parallelize("i.tile+j.tile")


def test_deps_json_has_the_applied_schedule() -> None:
    doc = json.loads(report_json.render(build_report(ROOT / "examples" / "c" / "gemm.c")))
    validate(doc, SCHEMA)
    assert doc["schema_version"] >= "1.1"
    applied = doc["scops"][0]["applied"]
    assert applied["origin"] == "auto" and applied["parallel_threshold"] >= 0
    assert any(m.startswith("parallel") for x in applied["loops"] for m in x["marks"])
    assert all({"phase", "what", "steps"} <= set(a) for a in applied["steps"])


def test_deps_text_shows_what_was_done() -> None:
    text = report_text.render(build_report(ROOT / "examples" / "polybench" / "lu.py", "kernel"))
    assert "What was done (the automatic schedule)" in text
    assert "wavefront of time tiles" in text


def test_notebook_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium found (install Debian's `chromium`; .ci/run does)")
    page = tmp_path / "notebook.html"
    page.write_text("<!DOCTYPE html><html><body>"
                    f"{polyopt.jit(mm_exp_mm).report()._repr_html_()}</body></html>")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()]
    dom = subprocess.run([browser, *flags], capture_output=True, text=True, timeout=120,
                         check=False)
    assert dom.returncode == 0, dom.stderr[-3000:]
    assert "<svg" in dom.stdout and "What was done" in dom.stdout and "T_rows" in dom.stdout
