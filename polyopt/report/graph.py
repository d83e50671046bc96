"""The statement dependence graph: built with networkx, laid out in layers and
drawn as inline SVG by this module (no Graphviz, no matplotlib, no external asset).

Nodes are statements; an edge ``S0 -> S1`` stands for every dependence from S0
to S1 (its label lists their kinds and arrays; it is drawn in the colour of the
first of flow, anti, output).  Rows follow a topological order of the graph's
cycles (:func:`rows`), so edges point down, except inside a cycle where they are
drawn as arcs on the right; a dependence of a statement on itself is a loop on
the node's right side.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import networkx as nx

from polyopt.report.data import ScopReport

KIND_STYLE = {  # kind -> (colour, label)
    "flow": ("#1f5fbf", "flow (RAW)"),
    "anti": ("#c46a00", "anti (WAR)"),
    "output": ("#8a2be2", "output (WAW)"),
}
_SHORT = {"flow": "RAW", "anti": "WAR", "output": "WAW"}
NODE_W, NODE_H, H_GAP, V_GAP, MARGIN = 250, 46, 70, 70, 30


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
    by_row: dict[int, list[str]] = {}
    for n in g.nodes:
        by_row.setdefault(row_of[n], []).append(n)
    n_rows = max(by_row, default=-1) + 1
    widest = max((len(r) for r in by_row.values()), default=1)
    drawn = edges(g)
    side = 60 + 22 * sum(1 for e in drawn if e.source != e.sink and row_of[e.sink] <= row_of[e.source])
    skips = any(row_of[e.sink] - row_of[e.source] > 1 for e in drawn)
    left = MARGIN + (190 if skips else 0)
    width = max(widest * (NODE_W + H_GAP) - H_GAP + left + MARGIN + max(side, 120), 660)
    pos: dict[str, tuple[float, float]] = {}
    for r, names_ in by_row.items():
        for m, n in enumerate(names_):
            pos[n] = (left + m * (NODE_W + H_GAP), MARGIN + r * (NODE_H + V_GAP))
    legend_y = MARGIN + n_rows * (NODE_H + V_GAP)
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
    counters = {"up": 0, "skip": 0, "self": 0, "down": 0}
    for e in drawn:
        gap = row_of[e.sink] - row_of[e.source]
        route = "self" if e.source == e.sink else "up" if gap <= 0 else \
            "skip" if gap > 1 else "down"
        parts.append(_edge(e, pos, route, counters[route]))
        counters[route] += 1
    for n, data in g.nodes(data=True):
        parts.append(_node(n, data, pos[n]))
    parts.append(_legend(legend_y))
    if not g.number_of_nodes():
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + 20}" class="empty">no statements</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _node(name: str, data: dict[str, Any], xy: tuple[float, float]) -> str:
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


def _edge(e: Edge, pos: dict[str, tuple[float, float]], route: str, k: int) -> str:
    """A self-loop on the node's right, an upward edge as an arc on the right of the
    column, a downward edge that skips rows as an arc on the left, and an edge to the
    next row as a straight line (``k`` spreads arcs of the same kind of route)."""
    colour = KIND_STYLE[e.kind][0]
    dash = "" if e.value_based or e.kind != "flow" else ' stroke-dasharray="5,3"'
    title = f"<title>{html.escape(f'{e.label}: {e.source} -> {e.sink} ({e.count})')}</title>"
    (sx, sy), (tx, ty) = pos[e.source], pos[e.sink]
    if route == "self":
        x0, y0 = sx + NODE_W, sy + NODE_H / 2
        path = (f"M{x0:.1f},{y0 - 10:.1f} C{x0 + 34:.1f},{y0 - 30:.1f} "
                f"{x0 + 34:.1f},{y0 + 30:.1f} {x0:.1f},{y0 + 10:.1f}")
        lx, ly = x0 + 30, y0 - 16
    elif route == "skip":
        reach = 40 + 16 * (k % 6)
        x0, y0 = sx, sy + NODE_H / 2 + 6
        x1, y1 = tx, ty + NODE_H / 2 - 6
        path = (f"M{x0:.1f},{y0:.1f} C{x0 - reach:.1f},{y0:.1f} {x1 - reach:.1f},{y1:.1f} "
                f"{x1:.1f},{y1:.1f}")
        lx, ly = min(x0, x1) - 0.75 * reach - 4, (y0 + y1) / 2
        return _path(e, path, colour, dash, title, lx, ly, anchor="end")
    elif route == "up":  # inside a cycle
        reach = 60 + 22 * k
        x0, y0 = sx + NODE_W, sy + NODE_H / 2 + 8
        x1, y1 = tx + NODE_W, ty + NODE_H / 2 - 8
        path = (f"M{x0:.1f},{y0:.1f} C{x0 + reach:.1f},{y0:.1f} {x1 + reach:.1f},{y1:.1f} "
                f"{x1:.1f},{y1:.1f}")
        lx, ly = max(x0, x1) + 0.75 * reach + 4, (y0 + y1) / 2
    else:
        x0, y0 = sx + NODE_W / 2, sy + NODE_H
        x1, y1 = tx + NODE_W / 2, ty
        path = f"M{x0:.1f},{y0:.1f} L{x1:.1f},{y1:.1f}"
        lx, ly = (x0 + x1) / 2 + 6, (y0 + y1) / 2 + 4
    return _path(e, path, colour, dash, title, lx, ly)


def _path(e: Edge, path: str, colour: str, dash: str, title: str, lx: float, ly: float,
          anchor: str = "start") -> str:
    return (
        f'<g class="dep dep-{e.kind}">{title}<path d="{path}" fill="none" stroke="{colour}" '
        f'stroke-width="1.6"{dash} marker-end="url(#arrow-{e.kind})"/>'
        f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" font-family="sans-serif" '
        f'font-size="11" fill="{colour}" stroke="#ffffff" stroke-width="3" '
        f'paint-order="stroke">{html.escape(e.label)}</text></g>')


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
