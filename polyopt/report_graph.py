"""The statement dependence graph: built with networkx, laid out in layers and
drawn as inline SVG by this module (no Graphviz, no matplotlib, no external asset).

Nodes are statements; an edge ``S0 -> S1`` stands for the dependences of one
kind from S0 to S1 (their arrays in its label).  Layers come from a
topological order of the graph's strongly connected components, so edges run
downward except inside a cycle, where they are drawn as arcs; a dependence of a
statement on itself is a loop on the node's right side.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import networkx as nx

from polyopt.report_data import ScopReport

KIND_STYLE = {  # kind -> (colour, label)
    "flow": ("#1f5fbf", "flow (RAW)"),
    "anti": ("#c46a00", "anti (WAR)"),
    "output": ("#8a2be2", "output (WAW)"),
}
_SHORT = {"flow": "RAW", "anti": "WAR", "output": "WAW"}
NODE_W, NODE_H, H_GAP, V_GAP, MARGIN = 250, 46, 70, 70, 30


@dataclass(frozen=True)
class Edge:
    """All dependences of one kind from one statement to another."""

    source: str
    sink: str
    kind: str
    arrays: tuple[str, ...]
    value_based: bool  # at least one is an exact (value-based) flow dependence
    carried: bool  # at least one is carried by a loop
    count: int

    @property
    def label(self) -> str:
        return f"{_SHORT[self.kind]} {', '.join(self.arrays)}"


def dependence_graph(s: ScopReport) -> nx.MultiDiGraph:
    """Statements as nodes, one edge per dependence (``index`` into the report's list)."""
    g = nx.MultiDiGraph(title=s.title)
    for st in s.analysis.statements:
        g.add_node(st.name, line=st.line, source=st.source)
    for k, d in enumerate(s.analysis.dependences):
        g.add_edge(d.source, d.sink, key=k, index=k, kind=d.kind, array=d.array,
                   value_based=d.value_based, carried=bool(d.carried_by))
    return g


def edges(g: nx.MultiDiGraph) -> list[Edge]:
    """The graph's dependences grouped by (source, sink, kind), in a stable order."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for u, v, data in g.edges(data=True):
        groups.setdefault((u, v, data["kind"]), []).append(data)
    out = []
    for (u, v, kind), items in sorted(groups.items(), key=lambda kv: _edge_order(g, kv[0])):
        arrays = tuple(dict.fromkeys(x["array"] for x in items))
        out.append(Edge(u, v, kind, arrays, any(x["value_based"] for x in items),
                        any(x["carried"] for x in items), len(items)))
    return out


def _edge_order(g: nx.MultiDiGraph, key: tuple[str, str, str]) -> tuple[int, int, int]:
    order = {n: k for k, n in enumerate(g.nodes)}
    return order[key[0]], order[key[1]], list(KIND_STYLE).index(key[2])


def layers(g: nx.MultiDiGraph) -> list[list[str]]:
    """Statements by layer: components of a cycle share a layer, edges go down otherwise."""
    order = {n: k for k, n in enumerate(g.nodes)}
    simple = nx.DiGraph()
    simple.add_nodes_from(g.nodes)
    simple.add_edges_from((u, v) for u, v in g.edges() if u != v)
    dag = nx.condensation(simple)
    out: list[list[str]] = []
    for generation in nx.topological_generations(dag):
        members = [n for c in generation for n in dag.nodes[c]["members"]]
        out.append(sorted(members, key=order.__getitem__))
    return out


def svg(s: ScopReport) -> str:
    """The dependence graph of ``s`` as a standalone ``<svg>`` element."""
    g = dependence_graph(s)
    rows = layers(g)
    width = max((len(r) for r in rows), default=1) * (NODE_W + H_GAP) - H_GAP + 2 * MARGIN + 120
    pos: dict[str, tuple[float, float]] = {}
    for k, row in enumerate(rows):
        row_w = len(row) * (NODE_W + H_GAP) - H_GAP
        x0 = (width - 120 - row_w) / 2
        for m, n in enumerate(row):
            pos[n] = (x0 + m * (NODE_W + H_GAP), MARGIN + k * (NODE_H + V_GAP))
    legend_y = MARGIN + len(rows) * (NODE_H + V_GAP)
    height = legend_y + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="depgraph" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{html.escape(f"dependence graph of {s.title}")}">',
        "<defs>",
    ]
    for kind, (colour, _) in KIND_STYLE.items():
        parts.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{colour}"/></marker>')
    parts.append("</defs>")
    parts.append(f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>')
    drawn = edges(g)
    pair_count: dict[tuple[str, str], int] = {}
    for e in drawn:
        k = pair_count.get((e.source, e.sink), 0)
        pair_count[(e.source, e.sink)] = k + 1
        parts.append(_edge(e, pos, k))
    for n, data in g.nodes(data=True):
        parts.append(_node(n, data, pos[n]))
    parts.append(_legend(legend_y))
    if not g.number_of_nodes():
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + 20}" class="empty">no statements</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _node(name: str, data: dict, xy: tuple[float, float]) -> str:
    x, y = xy
    source = data["source"]
    if len(source) > 34:
        source = source[:33] + "…"
    return (
        f'<g class="stmt" id="node-{html.escape(name)}">'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="6" '
        f'fill="#f4f7fb" stroke="#44546a" stroke-width="1.2"/>'
        f'<text x="{x + 10:.1f}" y="{y + 18:.1f}" font-family="sans-serif" font-size="13" '
        f'font-weight="bold" fill="#1b2733">{html.escape(name)}'
        f'<tspan font-weight="normal" fill="#55606e"> line {data["line"]}</tspan></text>'
        f'<text x="{x + 10:.1f}" y="{y + 36:.1f}" font-family="monospace" font-size="11.5" '
        f'fill="#1b2733">{html.escape(source)}</text></g>')


def _edge(e: Edge, pos: dict[str, tuple[float, float]], k: int) -> str:
    colour = KIND_STYLE[e.kind][0]
    dash = "" if e.value_based or e.kind != "flow" else ' stroke-dasharray="5,3"'
    title = f"<title>{html.escape(f'{e.label}: {e.source} -> {e.sink} ({e.count})')}</title>"
    (sx, sy), (tx, ty) = pos[e.source], pos[e.sink]
    if e.source == e.sink:
        r = 16 + 9 * k
        x0, y0 = sx + NODE_W, sy + NODE_H / 2
        path = (f"M{x0:.1f},{y0 - 10:.1f} C{x0 + 2 * r:.1f},{y0 - 2 * r:.1f} "
                f"{x0 + 2 * r:.1f},{y0 + 2 * r:.1f} {x0:.1f},{y0 + 10:.1f}")
        lx, ly = x0 + 1.6 * r + 4, y0 + 4
    elif abs(sy - ty) < 1:  # same layer: an arc above the boxes
        x0, x1 = sx + NODE_W / 2, tx + NODE_W / 2
        lift = 34 + 14 * k
        path = f"M{x0:.1f},{sy:.1f} C{x0:.1f},{sy - lift:.1f} {x1:.1f},{sy - lift:.1f} {x1:.1f},{ty:.1f}"
        lx, ly = (x0 + x1) / 2, sy - 0.75 * lift
    else:
        down = ty > sy
        x0, y0 = sx + NODE_W / 2, (sy + NODE_H if down else sy)
        x1, y1 = tx + NODE_W / 2, (ty if down else ty + NODE_H)
        off = (k - 0.0) * 26
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        nx_, ny_ = -(y1 - y0) / length, (x1 - x0) / length
        cx, cy = mx + nx_ * off, my + ny_ * off
        path = f"M{x0:.1f},{y0:.1f} Q{cx:.1f},{cy:.1f} {x1:.1f},{y1:.1f}"
        lx, ly = (mx + cx) / 2 + 6, (my + cy) / 2
    return (
        f'<g class="dep dep-{e.kind}">{title}<path d="{path}" fill="none" stroke="{colour}" '
        f'stroke-width="1.6"{dash} marker-end="url(#arrow-{e.kind})"/>'
        f'<text x="{lx:.1f}" y="{ly:.1f}" font-family="sans-serif" font-size="11" '
        f'fill="{colour}" stroke="#ffffff" stroke-width="3" paint-order="stroke">'
        f'{html.escape(e.label)}</text></g>')


def _legend(y: float) -> str:
    items = []
    x = MARGIN
    for kind, (colour, label) in KIND_STYLE.items():
        items.append(
            f'<line x1="{x}" y1="{y + 10}" x2="{x + 28}" y2="{y + 10}" stroke="{colour}" '
            f'stroke-width="2" marker-end="url(#arrow-{kind})"/>'
            f'<text x="{x + 34}" y="{y + 14}" font-family="sans-serif" font-size="12" '
            f'fill="#1b2733">{label}</text>')
        x += 140
    items.append(
        f'<line x1="{x}" y1="{y + 10}" x2="{x + 28}" y2="{y + 10}" stroke="#1f5fbf" '
        f'stroke-width="2" stroke-dasharray="5,3"/>'
        f'<text x="{x + 34}" y="{y + 14}" font-family="sans-serif" font-size="12" '
        f'fill="#1b2733">memory-based only</text>')
    return f'<g class="legend">{"".join(items)}</g>'
