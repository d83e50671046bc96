"""The long fuzz runner counts a crash and runs everything after it in a fresh child."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).parent / "fuzz_run.py"


def test_a_crash_is_counted_and_the_rest_of_the_batch_still_runs(tmp_path: Path) -> None:
    env = dict(os.environ, PROGEN_SELFTEST_CRASH="1:default")
    out = subprocess.run(
        [sys.executable, str(RUNNER), "--n", "3", "--seed", "5", "--batch", "3",
         "--options", "default,sequential", "--findings", str(tmp_path), "--shrink-s", "0",
         "--quiet"],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("fuzz: 3 programs x 2 option sets:") and "crash 1," in last, last
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    verdicts = {(r["index"], r["option"]): r["verdict"] for r in rows}
    assert sorted(verdicts) == [(k, o) for k in range(3) for o in ("default", "sequential")]
    assert verdicts[(1, "default")] == "crash"
    assert all(v != "crash" for key, v in verdicts.items() if key != (1, "default"))
    assert list(tmp_path.glob("crash-default-*.py"))  # the crashing program is kept


def test_a_stopped_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    """Programs with every result are counted, not run again; a batch left in part (or a
    line cut short by the stop) is run again from its start."""
    sys.path.insert(0, str(RUNNER.parent))
    import fuzz_run

    names = ["default", "sequential"]

    def row(k: int, option: str, verdict: str = "ok") -> str:
        return json.dumps({"index": k, "option": option, "verdict": verdict,
                           "seed": fuzz_run.program_seed(5, k)})

    results = tmp_path / "results.jsonl"
    results.write_text("\n".join([
        row(0, "default"), row(0, "sequential", "refused"),  # done
        row(1, "default"),  # half done: runs again
        json.dumps({"index": 2, "option": "default", "verdict": "ok", "seed": 1}),  # other run
        row(3, "default"), row(3, "sequential"),  # beyond --n 3
    ]) + "\n" + row(1, "sequential")[:20])
    out = subprocess.run(
        [sys.executable, str(RUNNER), "--n", "3", "--seed", "5", "--batch", "2",
         "--options", ",".join(names), "--findings", str(tmp_path), "--shrink-s", "0",
         "--resume"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "resuming: 1 programs already have every result"
    assert lines[-1].startswith("fuzz: 3 programs x 2 option sets: ok "), lines[-1]
    assert "refused 1" in lines[-1] and "crash 0" in lines[-1]
    rows = [json.loads(x) for x in results.read_text().splitlines()]
    assert sorted((r["index"], r["option"]) for r in rows) == [
        (k, o) for k in range(3) for o in names]
    assert {r["seed"] for r in rows if r["index"] == 2} == {fuzz_run.program_seed(5, 2)}


def test_the_summary_reads_a_run_without_touching_it(tmp_path: Path) -> None:
    """``--summary`` counts the programs with every result and lists the failures; the
    run may still be appending, so the file is left as it is (a half-written line too)."""
    sys.path.insert(0, str(RUNNER.parent))
    import fuzz_run

    def row(k: int, option: str, verdict: str = "ok", detail: str = "") -> str:
        return json.dumps({"index": k, "option": option, "verdict": verdict, "detail": detail,
                           "seed": fuzz_run.program_seed(7, k)})

    text = "\n".join([row(0, "default"), row(0, "sequential", "wrong", "A: 1 of 4 differ"),
                      row(1, "default")]) + "\n" + row(1, "sequential")[:15]
    results = tmp_path / "results.jsonl"
    results.write_text(text)
    out = subprocess.run(
        [sys.executable, str(RUNNER), "--n", "10", "--seed", "7", "--options",
         "default,sequential", "--findings", str(tmp_path), "--summary"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        f"program 0 (seed {fuzz_run.program_seed(7, 0)}) sequential: wrong: A: 1 of 4 differ",
        "so far: 1 of 10 programs x 2 option sets: ok 1, wrong 1, error 0, crash 0, refused 0, "
        "unstable 0"]
    assert results.read_text() == text
