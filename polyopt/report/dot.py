"""``polyopt deps --format dot``: the statement dependence graph in Graphviz's DOT
language, the same graph the HTML report draws (one cluster per scop)."""

from __future__ import annotations

from polyopt.report.data import Report
from polyopt.report.graph import KIND_STYLE, dependence_graph, edges


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render(report: Report) -> str:
    out = [
        f"digraph {_quote('polyopt dependences: ' + report.filename)} {{",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fillcolor="#f4f7fb", fontname="monospace"];',
        '  edge [fontname="sans-serif", fontsize=10];',
    ]
    for k, s in enumerate(report.scops):
        g = dependence_graph(s)
        out.append(f"  subgraph cluster_{k} {{")
        out.append(f"    label={_quote(s.title)};")
        for n, data in g.nodes(data=True):
            label = f"{n} (line {data['line']})\n{data['source']}"
            out.append(f"    {_quote(f's{k}_{n}')} [label={_quote(label)}];")
        for e in edges(g):
            colour = KIND_STYLE[e.kind][0]
            style = "solid" if e.value_based or e.kind != "flow" else "dashed"
            # one edge per statement pair, as the HTML picture draws it
            out.append(f"    {_quote(f's{k}_{e.source}')} -> {_quote(f's{k}_{e.sink}')} "
                       f"[label={_quote(e.label)}, color={_quote(colour)}, "
                       f"fontcolor={_quote(colour)}, style={style}];")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
