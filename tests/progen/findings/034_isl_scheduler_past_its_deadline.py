"""Finding 034 (polyopt, fixed): isl's scheduler ran for minutes inside its budget.

Found by ``tests/fuzz_run.py --n 201 --seed 2902`` (program 200, generator seed
129174428791501) under ``c_region`` only: ``polyopt opt`` ran for over 300 s on the C
region kept beside this file (as found, not shrunk: each try of a shrinker would take
minutes).  All of it was one call of ``ScheduleConstraints.compute_schedule``, asked by
the time-tiling phase, under its budget of 300,000 isl operations.  isl counts pivots,
and a pivot costs more as the numbers in its tableau grow: this call spent 0.2 s on its
first 100,000 pivots and over 60 s before its 300,000th, while PolyBench's slowest call
needs 255,000 pivots and 0.7 s.  No operation count both keeps PolyBench's schedules
and bounds the time.

isl holds the GIL, so a Python timer cannot stop it.  A call that needs more than a
quick budget now runs in a forked process, killed at a wall-clock deadline
(``ISL_SCHEDULER_SECONDS``); time tiling then keeps its own schedule.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from polyopt.model import forked
from polyopt.scheduler import isl_schedule

REGION = Path(__file__).with_suffix(".c")

# a 1-D stencil: isl's schedule for it is the skewed band (t, t + i)
DOMAIN = "[T, N] -> { S1[t, i] : 0 <= t < T and 1 <= i < N - 1; S2[t, i] : 0 <= t < T and 1 <= i < N - 1 }"
VALIDITY = ("[T, N] -> { S1[t, i] -> S2[t, i'] : i - 1 <= i' <= i + 1 and 0 <= t < T "
            "and 1 <= i < N - 1 and 1 <= i' < N - 1; S2[t, i] -> S1[t + 1, i'] : "
            "i - 1 <= i' <= i + 1 and 0 <= t < T - 1 and 1 <= i < N - 1 and 1 <= i' < N - 1 }")


def _constraints() -> isl.ScheduleConstraints:
    validity = isl.UnionMap(VALIDITY)
    sc = isl.ScheduleConstraints.on_domain(isl.UnionSet(DOMAIN))
    return sc.set_validity(validity).set_proximity(validity).set_coincidence(validity)


def test_the_forked_search_gives_the_schedule_isl_gives_here(monkeypatch) -> None:
    here = isl_schedule._compute(_constraints(), 60.0)
    assert here is not None
    monkeypatch.setattr(isl_schedule, "ISL_SCHEDULER_QUICK_OPS", 1)  # always fork
    forked = isl_schedule._compute(_constraints(), 60.0)
    assert forked is not None
    assert str(forked) == str(here)


def _record_forks(monkeypatch) -> list[int]:
    """Every scheduler call forks from now on; the list fills with the children's pids.
    (A helper, not a fixture: tests/test_fuzz_programs.py collects these functions.)"""
    monkeypatch.setattr(isl_schedule, "ISL_SCHEDULER_QUICK_OPS", 1)
    pids: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def test_past_the_deadline_there_is_no_schedule_and_no_child_left(monkeypatch) -> None:
    children = _record_forks(monkeypatch)
    assert isl_schedule._compute(_constraints(), 0.0) is None
    assert len(children) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped: no zombie
        os.waitpid(children[0], os.WNOHANG)


def test_an_interrupted_wait_kills_the_child_and_raises(monkeypatch) -> None:
    children = _record_forks(monkeypatch)

    def interrupted(fd: int, deadline: float) -> bytes | None:
        raise KeyboardInterrupt

    monkeypatch.setattr(forked, "_read_until", interrupted)
    with pytest.raises(KeyboardInterrupt):
        isl_schedule._compute(_constraints(), 60.0)
    with pytest.raises(ChildProcessError):
        os.waitpid(children[0], os.WNOHANG)


def test_the_region_is_optimized_past_the_stall_and_computes_the_same(tmp_path) -> None:
    out = tmp_path / "out.c"
    # a deadline of half a second, so that the test takes seconds; the subprocess's
    # timeout only stops a regression from hanging the suite
    run = subprocess.run(
        [sys.executable, "-c",
         "import sys; import polyopt.model.isl_budget as b; b.ISL_SCHEDULER_SECONDS = 0.5; "
         "from polyopt.cli import command; "
         f"sys.exit(command.main(['opt', '--strict-fp', {str(REGION)!r}, '-o', {str(out)!r}]))"],
        capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    results = []
    for src, flags in ((REGION, ["-O0"]), (out, ["-O2", "-fopenmp"])):
        exe = tmp_path / (src.stem + ".exe")
        subprocess.run(["gcc", *flags, "-ffp-contract=off", str(src), "-o", str(exe), "-lm"],
                       check=True)
        results.append(subprocess.run([str(exe)], capture_output=True, text=True,
                                      check=True).stdout)
    assert results[0] == results[1]  # --strict-fp: bit-exact
    assert results[0].count("\n") > 180
