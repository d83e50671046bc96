"""The analysis of a contracted program reuses the dependences of the program before
(``dependences._Earlier``), where the new order runs their pairs as the old one did.
The result must be what a fresh analysis gives: here, for every NumPy-style PolyBench
kernel (whose temporaries contract), relation for relation."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from test_polybench import make_inputs  # noqa: E402

import polyopt  # noqa: E402
from examples.polybench_numpy import KERNELS  # noqa: E402
from polyopt.analysis import dependences  # noqa: E402

REUSED: list[int] = []


@pytest.fixture(autouse=True)
def count_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    real = dependences._Earlier.relation

    def relation(self, src, dst):  # type: ignore[no-untyped-def]
        found = real(self, src, dst)
        REUSED.append(found[0])
        return found

    monkeypatch.setattr(dependences._Earlier, "relation", relation)


def _memory(deps: dependences.Dependences) -> dict[tuple[str, str, str], object]:
    return {(d.kind.value, d.source.tag, d.sink.tag): d.relation for d in deps.memory}


@pytest.mark.parametrize("name", list(KERNELS))
def test_reused_dependences_are_those_of_a_fresh_analysis(name: str) -> None:
    args = make_inputs(name, "MINI")
    k = polyopt.jit(KERNELS[name].kernel)
    plan = k.plan(k._sig_for((), args))
    fresh = dependences._analyze(plan.scop)  # not memoized: computed from scratch
    got, want = _memory(plan.deps), _memory(fresh)
    assert got.keys() == want.keys(), name
    for key, rel in want.items():
        assert got[key].is_equal(rel), (name, key)


def test_the_reuse_is_exercised() -> None:
    """3mm's contracted analysis takes most of its pairs from the one before."""
    REUSED.clear()
    args = make_inputs("3mm", "MINI")
    k = polyopt.jit(KERNELS["3mm"].kernel)
    k.plan(k._sig_for((), args))
    assert sum(REUSED) > len(REUSED) // 2, REUSED
