"""Random programs against CPython: a bounded run of the program generator.

``tests/progen`` draws programs in the accepted subset (in bounds by construction) and
runs each under an option set: the jit's option matrix, random user schedules, ``polyopt
opt`` on the Python file, and the program as a C region against the same C at ``-O0``.
Results must match CPython's (bit-exact under ``strict_fp``, within the shadow run's error
bound otherwise, integers exactly).  ``tests/fuzz_run.py`` runs the same as long as asked.

The programs here are drawn from fixed seeds and are smaller than the long run's (two
nests, two statements per body) to keep the run short; each program runs under four of
the option sets, in rotation.  A (program, option set) that fails for a known reason is
marked ``xfail(strict=True)`` with the reproducer of its class.  The bug classes the fuzzer
found are under ``tests/progen/findings/``, collected here.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from progen import matrix, oracle, render_py
from progen.draw import Draw, HypothesisSource
from progen.generate import Features, generate

SMALL = Features(nests=2, depth=3, statements=2, temps=2, accumulators=2)
PROGRAMS = 32
SETS_PER_PROGRAM = 4
WORKDIR = Path(tempfile.mkdtemp(prefix="progen-test-"))
FINDINGS = Path(__file__).parent / "progen" / "findings"

# (seed, option set) -> why it fails today (none: every class found so far is fixed)
KNOWN: dict[tuple[int, str], str] = {}


def cases() -> list:
    out = []
    sets = matrix.ALL_SETS
    for seed in range(PROGRAMS):
        for k in range(SETS_PER_PROGRAM):
            name = sets[(seed * SETS_PER_PROGRAM + k) % len(sets)].name
            reason = KNOWN.get((seed, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(seed, name, marks=marks, id=f"{seed}-{name}"))
    return out


@functools.cache
def prepared(seed: int) -> oracle.Prepared:
    return oracle.draw_usable(seed, WORKDIR, SMALL)


def _assert_ok(prep: oracle.Prepared, r: matrix.Result) -> None:
    assert r.verdict == "ok", (f"{r.verdict} under {r.option}: {r.detail}\n\n"
                               f"{render_py.function(prep.program)}")


@pytest.mark.parametrize("seed,option", cases())
def test_random_program_matches_cpython(seed: int, option: str) -> None:
    prep = prepared(seed)
    _assert_ok(prep, matrix.run_option(prep, matrix.BY_NAME[option], WORKDIR))


# Shrinking a failure takes minutes: `make test` reports the failing program as drawn;
# PROGEN_SHRINK=1 lets hypothesis shrink it to a minimal one.
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if os.environ.get("PROGEN_SHRINK")
                                             else [])


@settings(max_examples=10, derandomize=True, deadline=None, database=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(st.data())
def test_hypothesis_programs_match_cpython(data) -> None:
    """The same property through hypothesis, which shrinks a failure to a small program."""
    prep = oracle.prepare(generate(Draw(HypothesisSource(data)), SMALL), WORKDIR)
    assume(prep is not None)
    assert prep is not None
    _assert_ok(prep, matrix.run_option(prep, matrix.BY_NAME["default"], WORKDIR))


def _findings() -> dict:
    """The findings' test functions, under names pytest collects here."""
    out = {}
    for path in sorted(FINDINGS.glob("[0-9][0-9][0-9]_*.py")):
        spec = importlib.util.spec_from_file_location(f"progen_finding_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name in dir(mod):
            if name.startswith("test_"):
                out[f"test_finding_{path.stem}_{name[5:]}"] = getattr(mod, name)
    return out


globals().update(_findings())


def test_a_reproducer_runs_under_its_option_sets_threshold() -> None:
    """A finding under ``small_calls`` is only reproduced at that set's threshold: the
    script sets it before polyopt generates the code."""
    import subprocess
    import sys

    from progen import reproducer

    prep = prepared(0)
    option = matrix.BY_NAME["small_calls"]
    assert option.parallel_min is not None
    text = reproducer.script(prep.program, option, "wrong", "detail")
    assert f"os.environ['POLYOPT_PARALLEL_MIN'] = '{option.parallel_min}'" in text
    path = WORKDIR / "small_calls_reproducer.py"
    path.write_text(text)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
