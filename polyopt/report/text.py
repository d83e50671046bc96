"""``polyopt deps --format text``: the readable tables of :func:`polyopt.report.text_report`,
followed by each dependence's relation and the legality of loop interchanges and fusions."""

from __future__ import annotations

from polyopt.report.analysis import text_report
from polyopt.report.applied import text as applied_text
from polyopt.report.data import Report, ScopReport
from polyopt.report.legality import FUSION


def render(report: Report) -> str:
    parts = [_scop(s) for s in report.scops]
    return "\n".join(parts)


def _scop(s: ScopReport) -> str:
    out = [f"== {s.title} ==", text_report(s.analysis).rstrip("\n"), ""]
    if s.applied is not None:
        out += [applied_text(s.applied).rstrip("\n"), ""]
    if s.analysis.dependences:
        out.append("Relations")
        for k, d in enumerate(s.analysis.dependences):
            kind = {"flow": "RAW", "anti": "WAR", "output": "WAW"}[d.kind]
            out.append(f"  #{k} {kind} {d.source} -> {d.sink} on {d.array}: {d.relation}")
        out.append("")
    out.append("Loop interchange and fusion")
    if not s.legality:
        out.append("  (no directly nested or adjacent loops)")
    for t in s.legality:
        what = (f"fusion of loops {t.loops[0]} and {t.loops[1]}" if t.transformation == FUSION
                else f"interchange of loops {t.loops[0]} and {t.loops[1]}")
        if t.legal:
            out.append(f"  {what}: legal")
        else:
            out.append(f"  {what}: impossible, it {t.reason}")
    return "\n".join(out) + "\n"
