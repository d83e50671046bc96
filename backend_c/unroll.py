"""Unrolling in the printer: a loop marked ``unroll`` written out copy by copy.

Asking isl to unroll a register tile's point loops (``MR x NR`` copies) made
``build_ast`` the most expensive step of planning a matmul: isl computes the domain
of every copy.  The tile is whole (:mod:`polyopt.transforms.split`), so its point
loops have constant trip counts; isl builds them as ordinary loops and the printer
writes each copy with the loop counter replaced by its value::

    for (c6 = 8 * c4; c6 <= 8 * c4 + 7; c6 += 1)       S(8 * c4, c5)
      S(c6, c5);                                 ->    S(8 * c4 + 1, c5)
                                                       ...
                                                       S(8 * c4 + 7, c5)

the same expressions as isl's own unrolling, so the C is unchanged.  A marked loop
whose trip count is not a constant (a user's unroll-and-jam of a ragged loop), or
whose body holds anything but statements and other such loops, makes the AST be
built again with isl unrolling (:func:`expandable` says which).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import islpy as isl
from polyopt.backend_c.ast_expr import ast_lin
from polyopt.backend_c.isl_ast import (
    NodeKind,
    block_children,
    expr_kind,
    node_kind,
    op_args,
    op_type,
)

from polyopt.model.schedule_tree import LoopDim

_ID = isl.ast_expr_type.id
_OP = isl.ast_expr_type.op
_LE = isl.ast_expr_op_type.le
_LT = isl.ast_expr_op_type.lt


def unrolled_loop(node: isl.AstNode, marks: Mapping[str, LoopDim]) -> isl.AstNode | None:
    """The loop under ``node`` when ``node`` is the mark of a loop to unroll."""
    if node_kind(node) is not NodeKind.MARK or not marks[node.mark_get_id().get_name()].mark.unroll:
        return None
    inner = node.mark_get_node()
    return inner if node_kind(inner) is NodeKind.FOR else None


def trip_count(loop: isl.AstNode) -> int | None:
    """The constant number of iterations of a ``for`` node stepping by 1, or None."""
    if loop.for_is_degenerate():
        return 1
    if loop.for_get_inc().get_val().to_python() != 1:
        return None
    cond = loop.for_get_cond()
    if expr_kind(cond) is not _OP or op_type(cond) not in (_LE, _LT):
        return None
    counter, bound = op_args(cond)
    start, end = ast_lin(loop.for_get_init()), ast_lin(bound)
    if expr_kind(counter) is not _ID or start is None or end is None:
        return None
    span = end - start
    if not span.is_constant():
        return None
    return max(0, int(span.const) + (1 if op_type(cond) is _LE else 0))


def copies(loop: isl.AstNode) -> Iterator[tuple[str, isl.AstExpr]]:
    """(counter, value) of each copy of an unrolled loop: ``init``, ``init + 1``, ..."""
    trips = trip_count(loop)
    assert trips is not None
    counter = str(loop.for_get_iterator().get_id().get_name())
    init = loop.for_get_init()
    for r in range(trips):
        yield counter, init if r == 0 else init.add(
            isl.AstExpr.from_val(isl.Val.int_from_si(init.get_ctx(), r)))


def substitute(e: isl.AstExpr, values: Mapping[str, isl.AstExpr]) -> isl.AstExpr:
    """``e`` with the loop counters in ``values`` replaced by their values."""
    if not values:
        return e
    kind = expr_kind(e)
    if kind is _ID:
        return values.get(str(e.get_id().get_name()), e)
    if kind is not _OP:
        return e
    for k, arg in enumerate(op_args(e)):
        new = substitute(arg, values)
        if new is not arg:
            e = e.set_op_arg(k, new)
    return e


def expandable(node: isl.AstNode, marks: Mapping[str, LoopDim], inside: bool = False) -> bool:
    """Every loop to unroll in ``node`` has a constant trip count and a body of
    statements and such loops only (``inside``: ``node`` is in such a body)."""
    kind = node_kind(node)
    if kind is NodeKind.BLOCK:
        return all(expandable(c, marks, inside) for c in block_children(node))
    if kind is NodeKind.MARK:
        loop = unrolled_loop(node, marks)
        if loop is not None:
            return trip_count(loop) is not None and expandable(loop.for_get_body(), marks, True)
        return expandable(node.mark_get_node(), marks, inside)
    if kind is NodeKind.USER:
        return True
    if inside:  # an if or an ordinary loop among the copies
        return False
    if kind is NodeKind.FOR:
        return expandable(node.for_get_body(), marks)
    return expandable(node.if_get_then_node(), marks) and (
        not node.if_has_else_node() or expandable(node.if_get_else_node(), marks))
