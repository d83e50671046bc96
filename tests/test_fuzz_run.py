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
