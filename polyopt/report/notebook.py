"""``fn.report()``: the text report as a ``str`` (as before), which a notebook shows as
HTML: the annotated source, the dependence graph, what was done, and the tables
(``_repr_html_``, IPython's rich display hook)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from polyopt.model.names import user_text
from polyopt.report import html as report_html
from polyopt.report.analysis import analysis, text_report
from polyopt.report.applied import AppliedReport, applied_report
from polyopt.report.applied import text as applied_text
from polyopt.report.data import SourceExcerpt, scop_report
from polyopt.scheduler.pipeline import Plan


class KernelReport(str):
    """The text report; ``_repr_html_`` renders the same report as an HTML fragment
    (computed when a notebook asks for it)."""

    _html: Callable[[], str]

    def __new__(cls, text: str, html: Callable[[], str]) -> KernelReport:
        obj = super().__new__(cls, text)
        obj._html = html
        return obj

    def _repr_html_(self) -> str:
        return self._html()


def kernel_report(plan: Plan, fn: Callable[..., Any], name: str) -> KernelReport:
    """The report on ``fn`` as ``plan`` compiles it."""
    done = applied_report(plan)
    text = text_report(analysis(plan.source, plan.source_deps)) + "\n" + applied_text(done)
    text += "".join(f"\nnote: {n}" for n in plan.notes)  # what isl's budget gave up
    return KernelReport(text, lambda: fragment(plan, fn, name, done))


def fragment(plan: Plan, fn: Callable[..., Any], name: str, done: AppliedReport) -> str:
    """The HTML report of one function, without a page around it: its styles scoped to
    a ``div.polyopt-report`` so that they leave the notebook's own alone."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):  # defined in a string passed to exec
        lines, first = [], 1
    source = SourceExcerpt(inspect.getsourcefile(fn) or "<unknown>", max(first, 1),
                           tuple(x.rstrip("\n") for x in lines))
    s = scop_report(plan.source, plan.source_deps, f"{name}()", "python-function", source, done)
    return user_text(f'<div class="polyopt-report"><style>{scoped_css()}</style>'
                     f"{report_html.scop_section(0, s)}</div>")


def scoped_css() -> str:
    """The page's styles for the parts a fragment has, each selector under
    ``.polyopt-report``."""
    out = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", report_html.CSS):
        names = [x.strip() for x in selectors.split(",")]
        if any(n.split()[0] in ("body", "header", "main", "nav") for n in names):
            continue
        out.append(", ".join(f".polyopt-report {n}" for n in names) + " {" + body + "}")
    return "\n".join(out)
