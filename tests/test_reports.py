"""Dependence reports: the JSON schema, loop verdicts and the dependences that block
interchange and fusion (checked against hand-derived answers), DOT, and the HTML page
rendered in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from polyopt.frontends.python_source import without_comment

from polyopt.cli.deps import build_report
from polyopt.report import dot as report_dot
from polyopt.report import html as report_html
from polyopt.report import json_doc as report_json
from polyopt.report import text as report_text
from polyopt.report.data import Report, ScopReport
from polyopt.report.graph import dependence_graph, edges, rows

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "docs" / "deps-schema.json").read_text())
OUTPUT = ROOT / "test-output"


def report(name: str, **kw: Any) -> Report:
    return build_report(ROOT / "examples" / "c" / f"{name}.c", **kw)


def only(r: Report) -> ScopReport:
    assert len(r.scops) == 1
    return r.scops[0]


# --- a small JSON Schema checker (the subset deps-schema.json uses) ----------------------------


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        validate(value, SCHEMA["$defs"][name], path)
        return
    types = schema.get("type")
    if types is not None:
        allowed = types if isinstance(types, list) else [types]
        checks = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
        ok = any((isinstance(value, int) and not isinstance(value, bool)) if t == "integer"
                 else isinstance(value, checks[t]) for t in allowed)
        assert ok, f"{path}: {value!r} is not of type {types}"
    if "const" in schema:
        assert value == schema["const"], f"{path}: {value!r} != {schema['const']!r}"
    if "enum" in schema:
        assert value in schema["enum"], f"{path}: {value!r} not in {schema['enum']}"
    if "pattern" in schema:
        assert re.search(schema["pattern"], value), f"{path}: {value!r} !~ {schema['pattern']}"
    if "minimum" in schema and isinstance(value, int) and not isinstance(value, bool):
        assert value >= schema["minimum"], f"{path}: {value} < {schema['minimum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{path}: missing {key!r}"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                validate(value[key], sub, f"{path}.{key}")
    if isinstance(value, list):
        assert len(value) >= schema.get("minItems", 0), f"{path}: too few items"
        assert len(value) <= schema.get("maxItems", len(value)), f"{path}: too many items"
        for k, item in enumerate(value):
            if "items" in schema:
                validate(item, schema["items"], f"{path}[{k}]")


@pytest.mark.parametrize("name", ["gemm", "nussinov", "durbin", "band-mv", "covariance"])
def test_json_follows_the_schema(name: str) -> None:
    doc = json.loads(report_json.render(report(name)))
    validate(doc, SCHEMA)
    assert doc["schema_version"] == report_json.SCHEMA_VERSION
    scop = doc["scops"][0]
    n = len(scop["dependences"])
    assert [d["id"] for d in scop["dependences"]] == list(range(n))
    for lp in scop["loops"]:
        assert all(0 <= k < n for k in lp["blocking"])
        assert (lp["verdict"] == "sequential") == bool(lp["blocking"])


def test_python_report_follows_the_schema() -> None:
    r = build_report(ROOT / "examples/polybench/durbin.py", "kernel")
    doc = json.loads(report_json.render(r))
    validate(doc, SCHEMA)
    assert doc["language"] == "python" and doc["scops"][0]["kind"] == "python-function"
    assert doc["file"].endswith("examples/polybench/durbin.py")


def test_a_python_statements_source_has_no_comment(tmp_path: Path) -> None:
    """deps-schema: statement.source is "the source line, without comments" (a fill's
    allocation line loses its comment too); a `#` in a string literal is not one."""
    path = tmp_path / "kern.py"
    path.write_text(
        "import numpy as np\nimport polyopt\n\n@polyopt.jit\ndef esc(a, c):\n"
        "    n = a.shape[0]\n    t = np.full(n, 2.0)  # filled first\n"
        "    for i in range(1, n):\n"
        "        c[i] = a[i] * t[i]   # note: see <ticket> & \"q\"\n")
    r = build_report(path, "esc", "f8[:], f8[:]")
    doc = json.loads(report_json.render(r))
    validate(doc, SCHEMA)
    assert [st["source"] for st in doc["scops"][0]["statements"]] == [
        "t = np.full(n, 2.0)", "c[i] = a[i] * t[i]"]
    text = report_text.render(r)
    assert "<ticket>" not in text and "filled first" not in text
    assert without_comment("    x = f('a#b')  # c\n") == "    x = f('a#b')\n"
    assert without_comment("y = '#' ; z = 1 #x") == "y = '#' ; z = 1"
    assert without_comment("    y[i] = (a[i] +  # continued\n") == "    y[i] = (a[i] +\n"
    assert without_comment('    t = """a # b\n') == '    t = """a # b\n'  # a string goes on


# --- verdicts and legality, against hand-derived answers ------------------------------------


def test_gemm_verdicts() -> None:
    s = only(report("gemm"))
    verdicts = {lp.label: (lp.verdict, lp.vectorizable) for lp in s.analysis.loops}
    assert verdicts == {"i": ("parallel", False), "j@49": ("parallel", True),
                        "k": ("reduction", False), "j@52": ("parallel", True)}
    assert s.analysis.loop("k").reductions == (("+", "C"),)
    by = {(t.transformation, t.loops): t for t in s.legality}
    assert by[("interchange", ("k", "j@52"))].legal
    # i's body is two loops: interchange refuses before looking at dependences
    refused = by[("interchange", ("i", "k"))]
    assert not refused.legal and not refused.blocking and "not perfectly nested" in refused.reason


def test_seidel_interchanges_are_blocked_by_a_less_greater_dependence() -> None:
    s = only(report("seidel-2d"))
    by = {t.loops: t for t in s.legality if t.transformation == "interchange"}
    assert set(by) == {("t", "i"), ("i", "j")}
    for pair, t in by.items():
        assert not t.legal and t.blocking, pair
        k = s.dependence_index(t.blocking[0])
        d = s.analysis.dependences[k]
        # direction (<, >) over the two loops, the outer loops at distance 0
        pos = [d.loops.index(x) for x in pair]
        assert (d.direction[pos[0]], d.direction[pos[1]]) == ("<", ">") or (
            d.distance[pos[0]] is not None and d.distance[pos[0]] > 0
            and d.distance[pos[1]] is not None and d.distance[pos[1]] < 0), d
        assert d.array == "A" and t.reason.startswith("would reverse the flow")
    # every loop is sequential, each named by a dependence it carries
    assert all(lp.verdict == "sequential" and lp.reason for lp in s.analysis.loops)


def test_jacobi_fusion_is_legal_with_a_shift() -> None:
    s = only(report("jacobi-2d"))
    fusions = [t for t in s.legality if t.transformation == "fusion"]
    assert [t.loops for t in fusions] == [("i@19", "i@22")]
    (t,) = fusions
    # S1 reads B[i+1], written by S0 one iteration later: fuse shifts S1 by one
    assert t.legal and not t.blocking and not t.reason


def test_fusion_is_blocked_when_no_shift_keeps_a_dependence_forward(tmp_path: Path) -> None:
    path = tmp_path / "k.c"
    path.write_text("void f(int n, double A[9], double B[9], double C[9]) {\n  int i;\n"
                    "#pragma scop\n  for (i = 0; i < n; i++)\n    B[i] = A[i];\n"
                    "  for (i = 0; i < n; i++)\n    C[i] = B[n - 1 - i];\n#pragma endscop\n}\n")
    (t,) = only(build_report(path)).legality
    assert t.transformation == "fusion" and not t.legal
    assert t.reason.startswith("would reverse the flow (read after write) on B")
    (d,) = t.blocking
    assert (d.source.statement, d.sink.statement, d.array) == ("S0", "S1", "B")


def test_independent_loops_can_fuse_and_interchange(tmp_path: Path) -> None:
    path = tmp_path / "k.c"
    path.write_text("void f(int n, double A[9][9], double B[9][9]) {\n  int i, j;\n"
                    "#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n"
                    "      A[i][j] = i;\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n"
                    "      B[i][j] = A[i][j];\n#pragma endscop\n}\n")
    s = only(build_report(path))
    assert all(t.legal and not t.reason for t in s.legality)
    assert [t.transformation for t in s.legality] == ["interchange", "fusion", "interchange"]


def test_text_report_has_relations_and_transformations() -> None:
    text = report_text.render(report("seidel-2d"))
    assert "Relations\n  #0 " in text
    assert "interchange of loops t and i: impossible, it would reverse the flow" in text
    assert "  t (line 18): sequential\n      a recurrence: the value written to A[i, j]" in text


# --- the graph, DOT and HTML ------------------------------------------------------------------


def test_graph_rows_point_down_except_in_cycles() -> None:
    s = only(report("2mm"))
    g = dependence_graph(s)
    assert g.number_of_edges() == len(s.analysis.dependences)
    row = rows(g)
    assert row["S0"] < row["S1"] < row["S3"]  # tmp is produced before D uses it
    for e in edges(g):
        if e.source != e.sink and row[e.sink] <= row[e.source]:
            pytest.fail(f"edge {e.source}->{e.sink} goes up outside a cycle")


def test_dot_is_the_same_graph() -> None:
    r = report("nussinov")
    dot = report_dot.render(r)
    s = only(r)
    drawn = edges(dependence_graph(s))
    assert dot.count(" -> ") == len(drawn)
    assert dot.count("subgraph cluster_") == 1 and dot.rstrip().endswith("}")
    for st in s.analysis.statements:
        assert f'"s0_{st.name}" [label="{st.name} (line {st.line})' in dot


def test_html_is_self_contained() -> None:
    html = report_html.render(report("correlation"))
    assert html.count("<svg") == 1 and "</html>" in html
    assert not re.search(r'(src|href)="(https?:|//)', html), "the page must load nothing"
    assert "<script" not in html and "@import" not in html
    for label in ("Source", "Dependence graph", "Loops", "Statements", "Dependences",
                  "Loop interchange and fusion"):
        assert f"<h3>{label}</h3>" in html
    assert 'class="badge sequential"' in html or 'class="badge parallel"' in html


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium found (install Debian's `chromium`; .ci/run does)")
    page = tmp_path / "nussinov.html"
    page.write_text(report_html.render(report("nussinov")))
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "deps-nussinov.png"
    shot.unlink(missing_ok=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    url = page.as_uri()
    run = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,900", url],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, "no real screenshot"
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True,
                         timeout=120, check=False)
    assert dom.returncode == 0, dom.stderr[-3000:]
    assert "<svg" in dom.stdout and 'class="dep dep-flow"' in dom.stdout
    assert "kernel_nussinov() region 1" in dom.stdout
    for bad in ("This page isn’t working", "ERR_FILE_NOT_FOUND", "Traceback", "undefined"):
        assert bad not in dom.stdout
