"""The dependence graph's layout at PolyBench sizes: statement text wraps (never cut),
the layout is deterministic, and in headless Chromium no two labels overlap — in the
``polyopt deps`` page and in the notebook's ``_repr_html_`` — measured from the
rendered SVG (each ``<text>``'s box, written into the DOM by a small script)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_reports import _browser

import polyopt
from polyopt.cli.deps import build_report
from polyopt.report import html as report_html
from polyopt.report.graph import svg
from polyopt.report.layout import WRAP, Box, place_label, text_width

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after the installed polyopt
from examples.polybench import adi, correlation, deriche  # noqa: E402

OUTPUT = ROOT / "test-output"
KERNELS = ["deriche", "adi", "correlation"]

# Runs in the page after it is laid out: every graph's labels, as boxes in page pixels
MEASURE = """<script>
const out = [];
for (const g of document.querySelectorAll("svg.depgraph")) {
  const texts = [];
  for (const t of g.querySelectorAll("g.stmt text, g.dep text")) {
    const r = t.getBoundingClientRect();
    const node = t.closest("g.stmt");
    texts.push({owner: node ? node.id : "edge", label: t.textContent,
                box: [r.left, r.top, r.width, r.height]});
  }
  const rects = [...g.querySelectorAll("g.stmt rect")].map(r => {
    const b = r.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; });
  out.push({texts: texts, nodes: rects});
}
const pre = document.createElement("pre");
pre.id = "boxes";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def _chromium(tmp_path: Path, page: Path, *args: str) -> str:
    browser = _browser()
    assert browser is not None
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    if not any(a.startswith("--window-size") for a in args):
        flags.append("--window-size=1400,1000")
    run = subprocess.run([browser, *flags, *args, page.as_uri()], capture_output=True,
                         text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def _overlap(a: list[float], b: list[float], tol: float = 0.5) -> bool:
    return (a[0] + tol < b[0] + b[2] and b[0] + tol < a[0] + a[2]
            and a[1] + tol < b[1] + b[3] and b[1] + tol < a[1] + a[3])


def _check_page(tmp_path: Path, name: str, body: str, graphs: int) -> None:
    """Screenshot ``body`` (not blank), then measure its labels and check them apart."""
    page = tmp_path / f"{name}.html"
    figures = re.findall(r"<svg.*?</svg>", body, re.S)
    assert len(figures) == graphs
    # the screenshot is of the graphs alone, at their size
    w = max(int(x) for x in re.findall(r'<svg[^>]* width="(\d+)"', body))
    h = sum(int(x) for x in re.findall(r'<svg[^>]* height="(\d+)"', body))
    page.write_text('<!DOCTYPE html><html><body style="margin:0">' + "".join(figures)
                    + "</body></html>")
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / f"graph-{name}.png"
    shot.unlink(missing_ok=True)
    _chromium(tmp_path, page, f"--screenshot={shot}", f"--window-size={w},{h}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, "a blank screenshot"
    measured = body.replace("</body>", MEASURE + "</body>")
    assert measured != body
    page.write_text(measured)  # the whole page: its styles may move the graph
    dom = _chromium(tmp_path, page, "--dump-dom")
    found = re.search(r'<pre id="boxes">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    figures = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                         .replace("&lt;", "<").replace("&gt;", ">"))
    assert len(figures) == graphs
    for fig in figures:
        texts: list[dict[str, Any]] = fig["texts"]
        assert sum(1 for t in texts if t["owner"] == "edge") > 5  # PolyBench-sized graphs
        for a, b in itertools.combinations(texts, 2):
            assert not _overlap(a["box"], b["box"]), f"{name}: {a} overlaps {b}"
        for t in texts:  # an edge label covers no statement box
            if t["owner"] == "edge":
                for r in fig["nodes"]:
                    assert not _overlap(t["box"], r), f"{name}: {t} covers a statement"
            else:  # a statement's text stays in its box
                assert any(r[0] <= t["box"][0] and t["box"][0] + t["box"][2] <= r[0] + r[2]
                           for r in fig["nodes"]), f"{name}: {t} leaves its box"


@pytest.fixture
def chromium() -> None:
    if _browser() is None:
        pytest.skip("no Chromium found (install Debian's `chromium`; .ci/run does)")


@pytest.mark.parametrize("name", KERNELS)
def test_deps_page_labels_apart_in_chromium(chromium: None, tmp_path: Path, name: str) -> None:
    page = report_html.render(build_report(ROOT / "examples" / "c" / f"{name}.c"))
    _check_page(tmp_path, f"deps-{name}", page, 1)


def test_notebook_labels_apart_in_chromium(chromium: None, tmp_path: Path) -> None:
    parts = [polyopt.jit(m.kernel).report(**m.init(**m.SIZES["MINI"]))._repr_html_()
             for m in (deriche, adi, correlation)]
    body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>" + "".join(parts) \
        + "</body></html>"
    _check_page(tmp_path, "notebook", body, 3)


# --- without a browser ------------------------------------------------------------------------


@pytest.mark.parametrize("name", KERNELS)
def test_statement_text_wraps_and_is_never_cut(name: str) -> None:
    r = build_report(ROOT / "examples" / "c" / f"{name}.c")
    (s,) = r.scops
    drawn = svg(s)
    assert "…" not in drawn
    for st in s.analysis.statements:
        words = st.source.split()
        assert all(report_html.html.escape(w) in drawn for w in words), st.source
    lines = re.findall(r"<tspan x=\"[0-9.-]+\" y=\"[0-9.-]+\">([^<]*)</tspan>", drawn)
    assert lines and all(len(report_html.html.unescape(x)) <= WRAP for x in lines)
    assert drawn == svg(s)  # deterministic


def test_a_label_slides_to_a_free_spot() -> None:
    curve = ((0.0, 0.0), (0.0, 30.0), (0.0, 60.0), (0.0, 90.0))
    width = text_width("RAW A", 11)
    # the whole column beside the edge is taken on both sides
    taken = [Box(-200, -20, 400, 130)]
    p = place_label(curve, width, True, taken)
    assert not p.label.overlaps(taken[0]) and p.leader is not None
    free = place_label(curve, width, True, [])
    assert free.leader is None and free.label.x > 0  # right of the edge, in the middle
