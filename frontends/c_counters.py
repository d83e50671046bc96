"""The values a region's loop counters have after it, for the code that follows.

The rewritten region counts with loop counters of its own (``c0``, ``c1``), so a
counter declared outside the region keeps its old value, where the original loops
leave it one step past their last iteration::

    int i = -5;                            int i = -5;
    #pragma scop                           { ... for (int c0 = 0; c0 < n; c0 += 1) ... }
    for (i = 0; i < n; i++)         =>     { for (i = 0; i < n; i++) ; }
      a[i] = i * 0.5;                      printf("%d", i);    /* n, as before */
    #pragma endscop
    printf("%d", i);

Where such a counter is used after the region (or is a global, a parameter or a
static), the region is followed by its *skeleton*: its loops and conditions with every
other statement removed.  Loop bounds and conditions in a scop are affine in values the
region does not write, so the skeleton steps each counter exactly as the original did;
gcc folds its empty loops into the final values.
"""

from __future__ import annotations

from collections.abc import Collection

from polyopt.frontends.c_names import loop_counters
from pycparser import c_ast


def skeleton(items: tuple[c_ast.Node, ...], live: Collection[str]) -> c_ast.Compound | None:
    """The loops and conditions of ``items`` that step a counter of ``live`` (and those
    around them), with empty bodies elsewhere; None when there are none."""
    kept = [k for k in (_skeleton(item, live) for item in items) if k is not None]
    return c_ast.Compound(kept) if kept else None


def _skeleton(node: c_ast.Node, live: Collection[str]) -> c_ast.Node | None:
    if isinstance(node, c_ast.For):
        body = _skeleton(node.stmt, live)
        if body is None and not set(loop_counters(node)) & set(live):
            return None
        return c_ast.For(node.init, node.cond, node.next, body or c_ast.EmptyStatement())
    if isinstance(node, c_ast.Compound):
        return skeleton(tuple(node.block_items or ()), live)
    if isinstance(node, c_ast.If):
        then, other = _skeleton(node.iftrue, live), (
            _skeleton(node.iffalse, live) if node.iffalse is not None else None)
        if then is None and other is None:
            return None
        return c_ast.If(node.cond, then or c_ast.EmptyStatement(), other)
    return None

