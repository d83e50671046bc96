"""The report's interchange and fusion verdicts are what ``polyopt.schedule`` does.

For every PolyBench kernel and every loop pair the report judges, the step the
report calls legal is accepted, and the step it calls impossible raises: an
:class:`~polyopt.IllegalTransformationError` naming the same first dependence
when the report names blocking dependences, and the same refusal otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

import polyopt
from polyopt.cli.deps import build_report
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.names import user_text
from polyopt.report.data import ScopReport
from polyopt.report.legality import INTERCHANGE, LegalityInfo

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt
from examples.polybench import KERNELS  # noqa: E402


def scop_report(module: ModuleType) -> ScopReport:
    (s,) = build_report(Path(str(module.__file__)), "kernel").scops
    return s


def attempt(schedule: polyopt.Schedule, t: LegalityInfo) -> polyopt.Schedule:
    a, b = (user_text(x) for x in t.loops)
    step = schedule.interchange if t.transformation == INTERCHANGE else schedule.fuse
    return step(a, b)


@pytest.mark.parametrize("name", list(KERNELS))
def test_report_verdicts_are_what_schedule_does(name: str) -> None:
    module = KERNELS[name]
    schedule = polyopt.schedule(module.kernel)
    for t in scop_report(module).legality:
        what = f"{t.transformation} of {t.loops}"
        reason = user_text(t.reason)
        try:
            attempt(schedule, t)
        except IllegalTransformationError as exc:
            assert not t.legal and t.blocking, f"{what}: the report says legal; schedule: {exc}"
            assert f"it {reason}" in str(exc), what  # the same first dependence
        except PolyoptError as exc:
            assert not t.legal and not t.blocking, f"{what}: schedule refuses: {exc}"
            assert reason == f"is refused: {exc}", what
        else:
            assert t.legal, f"{what}: schedule accepts what the report calls impossible: {reason}"


# where the report's old direction-vector tests disagreed with the transformations
@pytest.mark.parametrize("name, transformation, loops, legal, why", [
    ("symm", "interchange", ("i", "j"), True, ""),  # temp2 is a private scalar
    ("jacobi-1d", "fusion", ("i@35", "i@37"), True, ""),  # after shifting the second loop
    ("gemm", "interchange", ("i", "k"), False, "not perfectly nested"),
    ("seidel-2d", "interchange", ("i", "j"), False, "would reverse the flow"),
])
def test_verdicts_the_old_report_got_wrong_or_right(name: str, transformation: str,
                                                     loops: tuple[str, str], legal: bool,
                                                     why: str) -> None:
    by = {(t.transformation, tuple(user_text(x) for x in t.loops)): t
          for t in scop_report(KERNELS[name]).legality}
    t = by[(transformation, loops)]
    assert t.legal == legal and why in t.reason
