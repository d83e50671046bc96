"""Which loop interchanges and fusions the report calls legal.

The report asks the transformations themselves, :func:`~polyopt.transforms.
interchange.interchange` and :func:`~polyopt.transforms.fuse.fuse`, on the
source order as ``polyopt.schedule`` starts from it, so a report and a user
schedule cannot disagree.  The pairs judged are each loop with every loop
directly below it, and each two adjacent sibling loops::

    for t in range(T):           # (t, either i): refused, t's body is two loops
        for i in range(1, n):    # (i, j): illegal, it would reverse the flow
            for j in range(m):   #   A[i, j] -> A[i-1, j+1], distance (1, -1)
                A[i, j] = A[i - 1, j + 1] + 1.0
        for i in range(n):       # fusion of the two i loops: legal (fuse shifts the
            B[i] = A[i, 0]       #   second loop when that keeps dependences forward)

A verdict is legal when the transformation returns a tree.  Otherwise it is
the transformation's refusal: the dependences it would break, or why it does
not apply (loops that are not perfectly nested).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.fuse import fuse
from polyopt.transforms.interchange import interchange
from polyopt.transforms.tree import normalize

Transformation = Literal["interchange", "fusion"]
INTERCHANGE: Transformation = "interchange"
FUSION: Transformation = "fusion"


@dataclass(frozen=True)
class LegalityInfo:
    """Whether one interchange or fusion is legal, and what prevents it."""

    transformation: Transformation
    loops: tuple[str, str]  # loop labels: (outer, inner) or (first, second)
    loop_ids: tuple[str, str]
    legal: bool
    blocking: tuple[Dependence, ...]  # the dependences it would break
    reason: str  # "" when legal; else why not, as a phrase after "it"


def legality(scop: Scop, deps: Dependences) -> tuple[LegalityInfo, ...]:
    """Every interchange of directly nested loops and every fusion of adjacent loops,
    in source order (a nest, then its fusion with the next)."""
    tree = normalize(scop.schedule)  # one loop per band, as user schedules start
    out: list[LegalityInfo] = []
    _walk(scop, deps, tree, tree, out)
    return tuple(out)


def _walk(scop: Scop, deps: Dependences, tree: Node, node: Node,
          out: list[LegalityInfo]) -> None:
    if isinstance(node, Band):
        a = node.dims[0]
        for b in _loops_below(node.child):
            names = (loop_label(scop, a), loop_label(scop, b))
            out.append(_verdict(scop, INTERCHANGE, (a, b), names, partial(
                interchange, scop, deps, tree, a.loop_id, b.loop_id, names)))
        _walk(scop, deps, tree, node.child, out)
    elif isinstance(node, Sequence):
        kids = node.children
        for c, nxt in zip(kids, (*kids[1:], None), strict=True):
            _walk(scop, deps, tree, c, out)
            if isinstance(c, Band) and isinstance(nxt, Band):
                x, y = c.dims[0], nxt.dims[0]
                out.append(_verdict(scop, FUSION, (x, y), (loop_label(scop, x), loop_label(scop, y)),
                                    partial(fuse, scop, deps, tree, x.loop_id, y.loop_id)))


def _loops_below(node: Node) -> list[LoopDim]:
    """The outermost loops directly below a band (through one sequence)."""
    if isinstance(node, Band):
        return [node.dims[0]]
    if isinstance(node, Sequence):
        return [c.dims[0] for c in node.children if isinstance(c, Band)]
    return []


def _verdict(scop: Scop, kind: Transformation, pair: tuple[LoopDim, LoopDim],
             labels: tuple[str, str], attempt: Callable[[], Node]) -> LegalityInfo:
    """The verdict of ``attempt``, the transformation applied to the source tree."""
    blocking: tuple[Dependence, ...] = ()
    reason = ""
    try:
        attempt()
    except IllegalTransformationError as exc:
        blocking = tuple(d for d in exc.violated if isinstance(d, Dependence))
        reason = f"would reverse the {describe(scop, blocking[0])}" if blocking \
            else f"is refused: {exc}"
    except PolyoptError as exc:
        reason = f"is refused: {exc}"
    ids = (pair[0].loop_id, pair[1].loop_id)
    return LegalityInfo(kind, labels, ids, not reason, blocking, reason)
