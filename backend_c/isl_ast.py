"""Typed views of isl's AST: the kind of a node or expression, a node's children.

islpy's stubs type ``get_type()`` as ``int`` and lack the members named after C
keywords (``for``, ``if``, ``and``, ``or``), so comparing a node's type with
``isl.ast_node_type.for_`` does not type-check.  These lookups return real enums.
"""

from __future__ import annotations

from enum import Enum
from typing import cast

import islpy as isl


class NodeKind(Enum):
    """The kinds of isl AST node the printer walks."""

    FOR = "for_"
    IF = "if_"
    BLOCK = "block"
    MARK = "mark"
    USER = "user"


_NODE_KINDS: dict[object, NodeKind] = {
    t: NodeKind(t.name) for t in isl.ast_node_type if t.name in {k.value for k in NodeKind}}

#: The operators islpy names ``and_`` and ``or_`` (absent from its stubs).
AND = isl.ast_expr_op_type["and_"]
OR = isl.ast_expr_op_type["or_"]


def node_kind(node: isl.AstNode) -> NodeKind:
    return _NODE_KINDS[node.get_type()]


# islpy returns these enums already: a cast, not a lookup (hashing an Enum runs Python
# code, and the printer asks for expressions' kinds tens of thousands of times)
def expr_kind(e: isl.AstExpr) -> isl.ast_expr_type:
    return cast(isl.ast_expr_type, e.get_type())


def op_type(e: isl.AstExpr) -> isl.ast_expr_op_type:
    return cast(isl.ast_expr_op_type, e.get_op_type())


def op_args(e: isl.AstExpr) -> list[isl.AstExpr]:
    return [e.get_op_arg(k) for k in range(e.get_op_n_arg())]


def block_children(node: isl.AstNode) -> list[isl.AstNode]:
    children = node.block_get_children()
    return [children.get_at(k) for k in range(children.n_ast_node())]


def user_call(node: isl.AstNode) -> tuple[str, list[isl.AstExpr]]:
    """A statement node's statement name and the values of its iterators."""
    call = node.user_get_expr()
    return call_statement(call), op_args(call)[1:]


def call_statement(call: isl.AstExpr) -> str:
    """The statement a user node's call expression runs."""
    return str(call.get_op_arg(0).get_id().get_name())
