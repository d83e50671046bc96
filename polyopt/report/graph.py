"""The statement dependence graph: built with networkx, laid out by
:mod:`polyopt.report.layout` and drawn as inline SVG by this module (no Graphviz, no
matplotlib, no external asset).

Nodes are statements (their text wrapped, in full); an edge ``S0 -> S1`` stands for
every dependence from S0 to S1 (its label lists their kinds and arrays; it is drawn in
the colour of the first of flow, anti, output).  Rows follow a topological order of
the graph's cycles (:func:`rows`), so edges point down, except inside a cycle where
they are drawn as arcs on the right; a dependence of a statement on itself is a loop
on the node's right side.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import networkx as nx

from polyopt.report.data import ScopReport
from polyopt.report.layout import (
    HEAD,
    LABEL_SIZE,
    LINE,
    SOURCE_SIZE,
    Box,
    Placed,
    Point,
    bounds,
    node_height,
    place_label,
    place_nodes,
    text_width,
    wrap,
)

KIND_STYLE = {  # kind -> (colour, label)
    "flow": ("#1f5fbf", "flow (RAW)"),
    "anti": ("#c46a00", "anti (WAR)"),
    "output": ("#8a2be2", "output (WAW)"),
}
_SHORT = {"flow": "RAW", "anti": "WAR", "output": "WAW"}
MARGIN = 30


@dataclass(frozen=True)
class Edge:
    """All dependences from one statement to another (or to itself)."""

    source: str
    sink: str
    kinds: tuple[str, ...]  # "flow", "anti", "output", in that order
    arrays: tuple[str, ...]
    value_based: bool  # at least one is an exact (value-based) flow dependence
    count: int

    @property
    def kind(self) -> str:
        """The kind the edge is drawn as: flow before anti before output."""
        return self.kinds[0]

    @property
    def label(self) -> str:
        return f"{'/'.join(_SHORT[k] for k in self.kinds)} {', '.join(self.arrays)}"


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
    """The graph's dependences grouped by (source, sink), in statement order."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for u, v, data in g.edges(data=True):
        groups.setdefault((u, v), []).append(data)
    order = {n: k for k, n in enumerate(g.nodes)}
    out = []
    for (u, v), items in sorted(groups.items(), key=lambda kv: (order[kv[0][0]],
                                                                order[kv[0][1]])):
        kinds = tuple(k for k in KIND_STYLE if any(x["kind"] == k for x in items))
        arrays = tuple(dict.fromkeys(x["array"] for x in items))
        out.append(Edge(u, v, kinds, arrays, any(x["value_based"] for x in items), len(items)))
    return out


def rows(g: nx.MultiDiGraph) -> dict[str, int]:
    """The row of every statement.

    The components of cycles are ordered topologically; each occupies as many rows
    as it has statements (in source order) and starts below every component with an
    edge into it, so edges between components always point down.
    """
    order = {n: k for k, n in enumerate(g.nodes)}
    simple = nx.DiGraph()
    simple.add_nodes_from(g.nodes)
    simple.add_edges_from((u, v) for u, v in g.edges() if u != v)
    dag = nx.condensation(simple)
    start: dict[int, int] = {}
    out: dict[str, int] = {}
    for c in nx.topological_sort(dag):
        members = sorted(dag.nodes[c]["members"], key=order.__getitem__)
        start[c] = max((start[p] + len(dag.nodes[p]["members"]) for p in dag.predecessors(c)),
                       default=0)
        for k, n in enumerate(members):
            out[n] = start[c] + k
    return out


def svg(s: ScopReport) -> str:
    """The dependence graph of ``s`` as a standalone ``<svg>`` element."""
    g = dependence_graph(s)
    row_of = rows(g)
    lines = {n: wrap(data["source"]) for n, data in g.nodes(data=True)}
    boxes = place_nodes(g, row_of, {n: node_height(x) for n, x in lines.items()})
    drawn = edges(g)
    taken = list(boxes.values())
    placed: list[tuple[Edge, Placed]] = []
    counters = {"up": 0, "skip": 0, "self": 0, "down": 0}
    for e in drawn:
        gap = row_of[e.sink] - row_of[e.source]
        route = "self" if e.source == e.sink else "up" if gap <= 0 else \
            "skip" if gap > 1 else "down"
        curve = _curve(boxes, e, route, counters[route])
        counters[route] += 1
        p = place_label(curve, text_width(e.label, LABEL_SIZE), route != "skip", taken)
        taken.append(p.label)
        placed.append((e, p))
    points = [q for _, p in placed for q in p.curve]
    b = bounds(taken, points) if taken else Box(0, 0, 0, 0)
    x0, y0 = b.x - MARGIN, b.y - MARGIN
    width = max(b.w, 600) + 2 * MARGIN
    legend_y = b.y + b.h + 16
    height = legend_y + 40 - y0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="depgraph" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="{x0:.0f} {y0:.0f} {width:.0f} {height:.0f}" '
        f'role="img" aria-label="{html.escape(f"dependence graph of {s.title}")}">',
        "<defs>",
    ]
    for kind, (colour, _) in KIND_STYLE.items():
        parts.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{colour}"/></marker>')
    parts.append("</defs>")
    parts.append(f'<rect x="{x0:.0f}" y="{y0:.0f}" width="{width:.0f}" height="{height:.0f}" '
                 'fill="#ffffff"/>')
    parts += [_edge(e, p) for e, p in placed]
    for n, data in g.nodes(data=True):
        parts.append(_node(n, data, boxes[n], lines[n]))
    parts.append(_legend(b.x, legend_y))
    if not g.number_of_nodes():
        parts.append(f'<text x="{b.x}" y="{b.y + 20}" class="empty">no statements</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _node(name: str, data: dict[str, Any], box: Box, lines: tuple[str, ...]) -> str:
    x, y = box.x, box.y
    tip = f"{name} line {data['line']}: {data['source']}"
    source = "".join(
        f'<tspan x="{x + 10:.1f}" y="{y + HEAD + LINE * (k + 1) - 3:.1f}">{html.escape(t)}</tspan>'
        for k, t in enumerate(lines))
    return (
        f'<g class="stmt" id="node-{html.escape(name)}">'
        f"<title>{html.escape(tip)}</title>"
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{box.w}" height="{box.h:.1f}" rx="6" '
        f'fill="#f4f7fb" stroke="#44546a" stroke-width="1.2"/>'
        f'<text x="{x + 10:.1f}" y="{y + 16:.1f}" font-family="sans-serif" font-size="13" '
        f'font-weight="bold" fill="#1b2733">{html.escape(name)}'
        f'<tspan font-weight="normal" fill="#55606e"> line {data["line"]}</tspan></text>'
        f'<text font-family="monospace" font-size="{SOURCE_SIZE}" fill="#1b2733">{source}</text>'
        "</g>")


def _curve(boxes: dict[str, Box], e: Edge, route: str,
           k: int) -> tuple[Point, Point, Point, Point]:
    """A self-loop on the box's right; an upward edge as an arc right of every box it
    spans, an edge that skips layers as an arc on their left, and an edge to the next
    layer as a straight line (``k`` spreads arcs of the same kind of route)."""
    s, t = boxes[e.source], boxes[e.sink]
    if route == "self":
        x0, y0 = s.x + s.w, s.y + s.h / 2
        return (x0, y0 - 10), (x0 + 34, y0 - 30), (x0 + 34, y0 + 30), (x0, y0 + 10)
    if route == "skip":
        cx = min(b.x for b in boxes.values() if s.y <= b.y <= t.y) - 40 - 18 * k
        return (s.x, s.y + s.h / 2 + 6), (cx, s.y + s.h / 2 + 6), \
            (cx, t.y + t.h / 2 - 6), (t.x, t.y + t.h / 2 - 6)
    if route == "up":
        cx = max(b.x + b.w for b in boxes.values() if t.y <= b.y <= s.y) + 60 + 22 * k
        return (s.x + s.w, s.y + s.h / 2 + 8), (cx, s.y + s.h / 2 + 8), \
            (cx, t.y + t.h / 2 - 8), (t.x + t.w, t.y + t.h / 2 - 8)
    (x0, y0), (x1, y1) = (s.x + s.w / 2, s.y + s.h), (t.x + t.w / 2, t.y)
    return ((x0, y0), (x0 + (x1 - x0) / 3, y0 + (y1 - y0) / 3),
            (x0 + 2 * (x1 - x0) / 3, y0 + 2 * (y1 - y0) / 3), (x1, y1))


def _edge(e: Edge, p: Placed) -> str:
    colour = KIND_STYLE[e.kind][0]
    dash = "" if e.value_based or e.kind != "flow" else ' stroke-dasharray="5,3"'
    title = f"<title>{html.escape(f'{e.label}: {e.source} -> {e.sink} ({e.count})')}</title>"
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = p.curve
    path = f"M{ax:.1f},{ay:.1f} C{bx:.1f},{by:.1f} {cx:.1f},{cy:.1f} {dx:.1f},{dy:.1f}"
    leader = ""
    if p.leader is not None:
        (lx0, ly0), (lx1, ly1) = p.leader
        leader = (f'<line x1="{lx0:.1f}" y1="{ly0:.1f}" x2="{lx1:.1f}" y2="{ly1:.1f}" '
                  f'stroke="{colour}" stroke-width="0.8" stroke-dasharray="2,2"/>')
    return (
        f'<g class="dep dep-{e.kind}">{title}<path d="{path}" fill="none" stroke="{colour}" '
        f'stroke-width="1.6"{dash} marker-end="url(#arrow-{e.kind})"/>{leader}'
        f'<text x="{p.at[0]:.1f}" y="{p.at[1]:.1f}" font-family="sans-serif" '
        f'font-size="{LABEL_SIZE:g}" fill="{colour}" stroke="#ffffff" stroke-width="3" '
        f'paint-order="stroke">{html.escape(e.label)}</text></g>')


def _legend(x: float, y: float) -> str:
    items = []
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
