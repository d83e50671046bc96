"""``polyopt deps``: the dependence report of a C file's regions or of a Python
function, as text, JSON, HTML or DOT (:mod:`polyopt.report`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from polyopt.analysis.dependences import analyze
from polyopt.cli.errors import EXIT_OK
from polyopt.cli.inputs import check_input, cpp_options, is_python, python_kernel, selected_regions
from polyopt.cli.options import region_defaults
from polyopt.cli.output import write_output
from polyopt.frontends.c import CppOptions, parse_c_file
from polyopt.frontends.python import parse_function
from polyopt.model.errors import IllegalTransformationError, UnsupportedError
from polyopt.model.names import user_text
from polyopt.model.options import Options
from polyopt.model.scop import Scop
from polyopt.report import dot as report_dot
from polyopt.report import html as report_html
from polyopt.report import json_doc as report_json
from polyopt.report import text as report_text
from polyopt.report.applied import AppliedReport, applied_report
from polyopt.report.data import Report, ScopReport, SourceExcerpt, scop_report
from polyopt.scheduler.pipeline import plan


def run(args: argparse.Namespace) -> int:
    path = check_input(args)
    report = build_report(path, args.function, args.signature, cpp_options(args))
    write_output(args.output or "-", render(report, args.format), path)
    return EXIT_OK


def build_report(path: Path, function: str | None = None, signature: str | None = None,
                 cpp: CppOptions | None = None) -> Report:
    """The dependence report of a C file's regions or of a Python file's function."""
    if is_python(path):
        pk = python_kernel(path, function, signature)
        scop = parse_function(pk.kernel.py_func, pk.signature)
        one = scop_report(scop, analyze(scop), f"{pk.name}()", "python-function", pk.source(),
                          _applied(scop, pk.kernel.options))
        return Report(str(path), "python", (one,))
    cfile = parse_c_file(path, cpp, function)
    lines = tuple(cfile.text.splitlines())
    scops: list[ScopReport] = []
    for r in selected_regions(cfile, function):
        excerpt = SourceExcerpt(str(path), r.start_line, lines[r.start_line - 1:r.end_line])
        scops.append(scop_report(r.scop, analyze(r.scop), r.label, "c-region", excerpt,
                                 _applied(r.scop, region_defaults(), r.copyable)))
    return Report(str(path), "c", tuple(scops))


def _applied(scop: Scop, options: Options,
             copyable: frozenset[str] = frozenset()) -> AppliedReport | None:
    """What ``polyopt opt`` (or the decorator) would do to ``scop``; None when it would
    refuse the program (the dependence report still stands)."""
    try:
        return applied_report(plan(scop, options, copyable=copyable))
    except UnsupportedError:
        return None
    except IllegalTransformationError as exc:  # an illegal prange: the report says why
        print(f"polyopt: note: the program as written is refused: {exc}", file=sys.stderr)
        return None


def render(report: Report, fmt: str) -> str:
    """The report in one of :data:`~polyopt.cli.arguments.FORMATS`."""
    writers = {"text": report_text.render, "json": report_json.render,
               "html": report_html.render, "dot": report_dot.render}
    return user_text(writers[fmt](report))  # the user's names (polyopt.model.names)
