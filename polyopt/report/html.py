"""``polyopt deps --format html``: one self-contained page a person opens in a browser.

For each scop: the source with every loop annotated with its verdict, the
dependence graph drawn as inline SVG (:mod:`polyopt.report.graph`), and the
tables of loops, statements, dependences and loop transformations.  The page
has no scripts and loads nothing: styles are inline.
"""

from __future__ import annotations

import html

import polyopt
from polyopt.report.analysis import LoopInfo
from polyopt.report.applied import AppliedReport
from polyopt.report.data import Report, ScopReport
from polyopt.report.graph import svg
from polyopt.report.groups import ScalarGroup, id_ranges
from polyopt.report.groups import rows as dependence_rows
from polyopt.report.json_doc import SCHEMA_VERSION
from polyopt.report.legality import FUSION

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1b2733;
       background: #fafbfc; }
header { background: #1b2733; color: #fff; padding: 16px 28px; }
header h1 { margin: 0 0 4px 0; font-size: 22px; }
header p { margin: 0; color: #c9d3df; font-size: 13px; }
main { padding: 8px 28px 40px 28px; max-width: 1400px; }
nav ul { padding-left: 18px; }
section.scop { background: #fff; border: 1px solid #dde3ea; border-radius: 8px; padding: 4px 20px 18px;
               margin: 18px 0; }
h2 { font-size: 19px; border-bottom: 1px solid #dde3ea; padding-bottom: 6px; }
h3 { font-size: 15px; margin: 20px 0 8px; }
pre.source { background: #f6f8fa; border: 1px solid #e1e6eb; padding: 8px 0; overflow-x: auto;
             font-size: 12.5px; line-height: 1.5; }
pre.source .line { display: block; padding: 0 12px; white-space: pre; }
pre.source .loopline { background: #eef4ff; }
pre.source .ln { display: inline-block; width: 3.5em; color: #8a96a3; text-align: right;
                 margin-right: 1em; user-select: none; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; margin-left: 10px;
         font-family: sans-serif; font-size: 11px; font-weight: 600; }
.parallel { background: #d9f2df; color: #17602a; }
.reduction { background: #dcecfb; color: #15508a; }
.sequential { background: #fbe0dc; color: #8a2415; }
.stmt-tag { background: #eceff3; color: #44546a; }
table { border-collapse: collapse; font-size: 13px; margin-bottom: 6px; }
th, td { border: 1px solid #dde3ea; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; }
td code, .rel { font-family: monospace; font-size: 12px; }
td code { white-space: nowrap; }
.rel { display: inline-block; max-width: 520px; word-break: break-word; color: #44546a; }
figure { margin: 0; overflow-x: auto; border: 1px solid #e1e6eb; border-radius: 6px;
         background: #fff; }
.legal { color: #17602a; font-weight: 600; }
.illegal { color: #8a2415; font-weight: 600; }
.summary { color: #44546a; font-size: 14px; }
"""


def render(report: Report) -> str:
    e = html.escape
    title = f"polyopt dependence report: {report.filename}"
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        "<header><h1>polyopt dependence report</h1>",
        f"<p>{e(report.filename)} &middot; {e(report.language)} &middot; polyopt "
        f"{e(polyopt.__version__)} &middot; report schema {SCHEMA_VERSION}</p></header>",
        "<main>",
    ]
    if len(report.scops) > 1:
        body.append("<nav><ul>")
        body += [f'<li><a href="#scop-{k}">{e(s.title)}</a></li>'
                 for k, s in enumerate(report.scops)]
        body.append("</ul></nav>")
    for k, s in enumerate(report.scops):
        body.append(scop_section(k, s))
    body.append("</main></body></html>")
    return "\n".join(body) + "\n"


def _verdict(lp: LoopInfo) -> str:
    if lp.verdict == "parallel":
        text = "parallel"
    elif lp.verdict == "reduction":
        text = "parallel as a reduction (" + ", ".join(f"{o}:{v}" for o, v in lp.reductions) + ")"
    else:
        text = "sequential"
    return text + (", vectorizable" if lp.vectorizable else "")


def scop_section(k: int, s: ScopReport) -> str:
    """One scop's section: what the page and a notebook's ``fn.report()`` show."""
    e = html.escape
    a = s.analysis
    counts = {v: sum(1 for lp in a.loops if lp.verdict == v)
              for v in ("parallel", "reduction", "sequential")}
    out = [
        f'<section class="scop" id="scop-{k}">',
        f"<h2>{e(s.title)}</h2>",
        f'<p class="summary">{len(a.statements)} statement(s), {len(a.loops)} loop(s): '
        f'{counts["parallel"]} parallel, {counts["reduction"]} parallel as a reduction, '
        f'{counts["sequential"]} sequential; {len(a.dependences)} dependence(s).</p>',
        "<h3>Source</h3>",
        _source(k, s),
        "<h3>Dependence graph</h3>",
        f"<figure>{svg(s)}</figure>",
        *(["<h3>What was done</h3>", applied_section(s.applied)] if s.applied else []),
        "<h3>Loops</h3>",
        _loops(s),
        "<h3>Statements</h3>",
        _table(["statement", "line", "source", "loops"],
               [[e(st.name), str(st.line), f"<code>{e(st.source)}</code>", e(", ".join(st.loops))]
                for st in a.statements]),
        "<h3>Dependences</h3>",
        _dependences(s),
        "<h3>Loop interchange and fusion</h3>",
        _transformations(s),
        "</section>",
    ]
    return "\n".join(out)


def applied_section(r: AppliedReport) -> str:
    """The steps taken, the final loops with their marks, the temporaries, the threshold."""
    e = html.escape
    steps = _table(["#", "phase", "what", "as a user step"], [
        [str(k), e(a.phase), e(a.what),
         "<code>" + e("".join(str(x) for x in a.steps)) + "</code>" if a.steps
         else "(no user step)"] for k, a in enumerate(r.applied, 1)])
    rows = "".join(f'<span class="line"><span class="ln"></span>{"&nbsp;" * (2 * x.depth)}'
                   f'{e(x.label)}{"".join(_mark(m) for m in x.marks)}</span>' for x in r.loops)
    temps = _table(["temporary", "what"], [[e(n), e(w)] for n, w in r.temporaries])
    return (f"{steps}<p>Replay: <code>{e(r.replay)}</code></p>"
            f'<pre class="source">{rows}</pre>{temps}'
            f"<p>Parallel threshold: a parallel loop runs on one thread when a call runs fewer "
            f"than {r.parallel_threshold} statement instances (<code>POLYOPT_PARALLEL_MIN</code>)."
            "</p>")


def _mark(m: str) -> str:
    kind = "parallel" if m.startswith("parallel") else "stmt-tag"
    return f' <span class="badge {kind}">{html.escape(m)}</span>'


def _source(k: int, s: ScopReport) -> str:
    e = html.escape
    loops_at: dict[int, list[LoopInfo]] = {}
    for lp in s.analysis.loops:
        if lp.line is not None:
            loops_at.setdefault(lp.line, []).append(lp)
    stmts_at: dict[int, list[str]] = {}
    for st in s.analysis.statements:
        stmts_at.setdefault(st.line, []).append(st.name)
    rows = []
    for n, text in enumerate(s.source.lines, s.source.first_line):
        badges = "".join(f'<span class="badge {lp.verdict}">{e(lp.label)}: {e(_verdict(lp))}</span>'
                         for lp in loops_at.get(n, []))
        badges += "".join(f'<span class="badge stmt-tag">{e(x)}</span>' for x in stmts_at.get(n, []))
        cls = "line loopline" if n in loops_at else "line"
        rows.append(f'<span class="{cls}" id="scop-{k}-line-{n}"><span class="ln">{n}</span>'
                    f"{e(text.rstrip())}{badges}</span>")
    return f'<pre class="source">{"".join(rows)}</pre>'


def _loops(s: ScopReport) -> str:
    e = html.escape
    rows = []
    for lp in s.analysis.loops:
        why = (f'<span title="{e(lp.reason)}">{e(lp.why)}</span>' if lp.why else "")
        if lp.private:
            why = (why + "<br>" if why else "") + "private: " + e(", ".join(lp.private))
        if lp.private_arrays:
            why = (why + "<br>" if why else "") + "private arrays (a copy per thread): " + e(
                ", ".join(lp.private_arrays))
        rows.append([e(lp.label), str(lp.line or ""),
                     f'<span class="badge {lp.verdict}">{e(_verdict(lp))}</span>', why])
    return _table(["loop", "line", "verdict", "why"], rows)


def _dependences(s: ScopReport) -> str:
    e = html.escape
    rows = []
    for row in dependence_rows(s.analysis.dependences):
        if isinstance(row, ScalarGroup):
            rows.append([e(id_ranges(row.ids)), e(row.counts), f"{row.value_based} value-based",
                         f"<code>{e(', '.join(row.statements))}: {e(row.scalar)}</code>",
                         "(scalar)", e(", ".join(row.carried_by) or "loop-independent"), "-",
                         str(row.reductions or ""), _relations(row)])
            continue
        k, d = row
        vec = ", ".join(f"{lp}: {dist if dist is not None else dirn}"
                        for lp, dist, dirn in zip(d.loops, d.distance, d.direction, strict=True))
        rows.append([
            str(k), e(d.kind), "value-based" if d.value_based else "memory-based",
            f"<code>{e(d.source)}: {e(d.source_access)}</code>",
            f"<code>{e(d.sink)}: {e(d.sink_access)}</code>",
            e(", ".join(d.carried_by) or "loop-independent"), e(f"({vec})" if vec else "-"),
            "yes" if d.reduction else "", f'<span class="rel">{e(d.relation)}</span>',
        ])
    return _table(["#", "kind", "exactness", "source", "sink", "carried by",
                   "distance / direction", "reduction", "relation"], rows)


def _relations(g: ScalarGroup) -> str:
    """A scalar group's relations, folded (a ``<details>`` needs no script)."""
    items = "".join(f"<li>#{k} {html.escape(d.kind)} {html.escape(d.source)} -> "
                    f"{html.escape(d.sink)}: {html.escape(d.relation)}</li>"
                    for k, d in zip(g.ids, g.members, strict=True))
    return (f'<details><summary>{len(g.ids)} relations</summary><ul class="rel">{items}</ul>'
            "</details>")


def _transformations(s: ScopReport) -> str:
    e = html.escape
    if not s.legality:
        return "<p>No directly nested or adjacent loops.</p>"
    rows = []
    for t in s.legality:
        what = "fusion" if t.transformation == FUSION else "interchange"
        verdict = ('<span class="legal">legal</span>' if t.legal
                   else '<span class="illegal">impossible</span>')
        blocking = ", ".join(f"#{s.dependence_index(d)}" for d in t.blocking)
        rows.append([what, e(f"{t.loops[0]}, {t.loops[1]}"), verdict,
                     e(f"it {t.reason}") if t.reason else "", blocking])
    return _table(["transformation", "loops", "verdict", "why", "dependences"], rows)


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    if not rows:
        body = f'<tr><td colspan="{len(header)}">none</td></tr>'
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
