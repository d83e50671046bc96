"""Where the dependence graph's pieces go: statement boxes in layers, edge routes, and
edge labels placed where they overlap no other label and no statement box.

Layers come from :func:`polyopt.report.graph.rows` and networkx's
``multipartite_layout`` orders each layer; a layer is as tall as its tallest box (a
statement's text wraps, it is never cut).  An edge to the next layer is a straight
line, one that skips layers an arc on the left of every box, one that goes up (inside
a cycle) an arc on the right, a self-dependence a loop on the box's right.  Each label
then tries points along its edge, on either side, and takes the first free one; where
none is free it slides outward until it is, and a thin leader line joins it to its
edge.  Text sizes are upper bounds from DejaVu Sans (wider than the usual sans-serif
fonts), so a label drawn in another font takes no more room than reserved.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import networkx as nx

NODE_W, H_GAP, V_GAP, WRAP = 290, 70, 70, 38
HEAD, LINE, PAD = 20.0, 15.0, 10.0  # the title line, each source line, the inner margin
LABEL_SIZE, SOURCE_SIZE = 11.0, 11.5
T_TRIES = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)

# advance widths in em, an upper bound over DejaVu Sans, Liberation Sans and Helvetica
_NARROW, _WIDE = set("fijlrt.,:;'|!()[] "), set("mwMW@%")


def text_width(text: str, size: float, mono: bool = False) -> float:
    """An upper bound of the width ``text`` takes at ``size`` px."""
    if mono:
        return 0.61 * size * len(text)
    em = sum(0.42 if c in _NARROW else 1.0 if c in _WIDE else 0.78 if c.isupper()
             else 0.66 for c in text)
    return em * size + 2


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    def overlaps(self, o: Box, gap: float = 2.0) -> bool:
        return (self.x < o.x + o.w + gap and o.x < self.x + self.w + gap
                and self.y < o.y + o.h + gap and o.y < self.y + self.h + gap)

    def moved(self, dx: float) -> Box:
        return Box(self.x + dx, self.y, self.w, self.h)


Point = tuple[float, float]


@dataclass(frozen=True)
class Placed:
    """An edge's curve (a cubic Bézier), its label's box and baseline start, and the
    leader line from the curve to a label that had to slide away (None otherwise)."""

    curve: tuple[Point, Point, Point, Point]
    label: Box
    at: Point
    leader: tuple[Point, Point] | None


def wrap(source: str) -> tuple[str, ...]:
    """A statement's text in lines of at most :data:`WRAP` characters."""
    return tuple(textwrap.wrap(source, WRAP, break_on_hyphens=False)) or ("",)


def node_height(lines: tuple[str, ...]) -> float:
    return HEAD + LINE * len(lines) + PAD


def place_nodes(g: nx.MultiDiGraph, row_of: dict[str, int],
                heights: dict[str, float]) -> dict[str, Box]:
    """Every statement's box: layers top to bottom, each ordered by networkx."""
    layers = nx.DiGraph()
    layers.add_nodes_from((n, {"layer": row_of[n]}) for n in g.nodes)
    if not layers.number_of_nodes():
        return {}
    pos = nx.multipartite_layout(layers, subset_key="layer", align="horizontal")
    by_layer: dict[int, list[str]] = {}
    for n in sorted(g.nodes, key=lambda n: (row_of[n], float(pos[n][0]))):
        by_layer.setdefault(row_of[n], []).append(n)
    widest = max(len(v) for v in by_layer.values())
    out: dict[str, Box] = {}
    y = 0.0
    for r in sorted(by_layer):
        names = by_layer[r]
        indent = (widest - len(names)) / 2 * (NODE_W + H_GAP)
        for m, n in enumerate(names):
            out[n] = Box(indent + m * (NODE_W + H_GAP), y, NODE_W, heights[n])
        y += max(heights[n] for n in names) + V_GAP
    return out


def bezier(c: tuple[Point, Point, Point, Point], t: float) -> Point:
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = c
    u = 1 - t
    return (u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
            u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3)


def label_box(p: Point, width: float, right: bool) -> tuple[Box, Point]:
    """The box of a label beside point ``p`` (to its right or left) and its baseline."""
    x = p[0] + 6 if right else p[0] - 6 - width
    base = p[1] + 4
    return Box(x, base - 0.95 * LABEL_SIZE, width, 1.25 * LABEL_SIZE), (x, base)


def place_label(curve: tuple[Point, Point, Point, Point], width: float, right_first: bool,
                taken: list[Box]) -> Placed:
    """The first free spot along the curve; else the middle one, slid outward."""
    sides = (right_first, not right_first)
    for t in T_TRIES:
        for right in sides:
            box, at = label_box(bezier(curve, t), width, right)
            if not any(box.overlaps(o) for o in taken):
                return Placed(curve, box, at, None)
    p = bezier(curve, 0.5)
    box, at = label_box(p, width, right_first)
    step = 8.0 if right_first else -8.0
    while any(box.overlaps(o) for o in taken):
        box, at = box.moved(step), (at[0] + step, at[1])
    end = (box.x if right_first else box.x + box.w, at[1] - 4)
    return Placed(curve, box, at, (p, end))


def bounds(boxes: list[Box], points: list[Point]) -> Box:
    """The smallest box around ``boxes`` and ``points``."""
    xs = [b.x for b in boxes] + [p[0] for p in points]
    ys = [b.y for b in boxes] + [p[1] for p in points]
    x1 = max([b.x + b.w for b in boxes] + [p[0] for p in points])
    y1 = max([b.y + b.h for b in boxes] + [p[1] for p in points])
    return Box(min(xs), min(ys), x1 - min(xs), y1 - min(ys))
