"""What ``polyopt deps`` reports on: for each scop (a C region or a Python
function), its :class:`~polyopt.report.Analysis`, the legality of loop
interchanges and fusions, and the source lines it came from.  The text, JSON,
HTML and DOT writers all read these objects.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import DependenceInfo
from polyopt.model.scop import Scop
from polyopt.report.analysis import Analysis, analysis
from polyopt.report.applied import AppliedReport
from polyopt.report.legality import LegalityInfo, legality


@dataclass(frozen=True)
class SourceExcerpt:
    """Lines ``first_line`` ... of a file."""

    filename: str
    first_line: int
    lines: tuple[str, ...]

    @property
    def last_line(self) -> int:
        return self.first_line + len(self.lines) - 1


@dataclass(frozen=True, eq=False)
class ScopReport:
    """The report on one scop."""

    title: str  # "kernel_gemm() region 1 (lines 16-25)" or "gemm()"
    kind: str  # "c-region" or "python-function"
    scop: Scop
    analysis: Analysis
    legality: tuple[LegalityInfo, ...]
    source: SourceExcerpt
    applied: AppliedReport | None = None  # what was done (None: not scheduled)

    def dependence_index(self, d: Dependence | DependenceInfo) -> int:
        """The position of a dependence in ``analysis.dependences``."""
        target = d.dependence if isinstance(d, DependenceInfo) else d
        for k, info in enumerate(self.analysis.dependences):
            if info.dependence is target:
                return k
        raise KeyError("dependence not in this report")


@dataclass(frozen=True, eq=False)
class Report:
    """Everything ``polyopt deps`` says about one file."""

    filename: str
    language: str  # "c" or "python"
    scops: tuple[ScopReport, ...]


def scop_report(scop: Scop, deps: Dependences, title: str, kind: str,
                source: SourceExcerpt, applied: AppliedReport | None = None) -> ScopReport:
    """Analyse ``scop`` in its original order (its file named as ``source`` names it);
    ``applied`` says what the schedule did to it."""
    a = replace(analysis(scop, deps), filename=source.filename)
    return ScopReport(title, kind, scop, a, legality(scop, deps), source, applied)
