"""Integer constant expressions with C's bitwise operators, divisions and casts, folded
before the regions are read, as the C compiler folds them.

The subset has no bitwise operators, but macros use them on constants all the time
(``#define N (1 << 10)``, ``#define HALF (N >> 1)``, ``~0``, ``MASK ^ 5`` for a
``#define MASK (N - 1)``); such an
expression is a number, so it may stand in a bound, a subscript or a value::

    for (i = 0; i < (1 << 6); i++)        ->    for (i = 0; i < 64; i++)
    B[i] = A[i] + ((1 << 6) >> 1);        ->    B[i] = A[i] + 32;

A division or remainder of constants (``N / 2`` of a ``#define N 32``) folds as C
truncates it, and a cast of one to ``int`` or ``long`` (``((int)N >> 1)``) to its value.
Only signed ``int`` and ``long`` constants are folded, in C's type of the result (the
left operand's for a shift), and only where C defines the value: a shift count from 0
to the width minus one, no bit shifted out of a non-negative value into or past the
sign bit, no shift of a negative value left, no division by zero.  Anything else is left as written, and
refused later as a bitwise operator.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from polyopt.frontends.c_affine import int_literal, is_unsigned
from polyopt.frontends.refusal import NotAffine
from pycparser import c_ast

from polyopt.model.dtypes import DType

_BINARY: dict[str, Callable[[int, int], int]] = {
    "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_, "|": operator.or_,
    "^": operator.xor}


def fold_constants(node: c_ast.Node) -> None:
    """Replace, below ``node``, each bitwise expression of integer constants by its value."""
    for name, child in node.children():
        folded = _folded(child)
        if folded is not None:
            replace_child(node, name, folded)
        else:
            fold_constants(child)


def _folded(node: c_ast.Node) -> c_ast.Node | None:
    """The constant ``node`` folds to (None when it is no bitwise constant expression)."""
    if isinstance(node, c_ast.BinaryOp) and node.op in _BINARY:
        a, b = signed_value(node.left), signed_value(node.right)
        if a is None or b is None:
            return None
        bits = 64 if DType.INT64 in (a[1], b[1]) else 32
        if node.op in ("<<", ">>"):
            bits = 64 if a[1] is DType.INT64 else 32  # a shift has its left operand's type
            if not 0 <= b[0] < bits or (node.op == "<<" and a[0] < 0):
                return None
        value = _BINARY[node.op](a[0], b[0])
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            return None  # shifted into the sign bit: C leaves it undefined
        return constant_node(value, DType.INT64 if bits == 64 else DType.INT32, node)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("/", "%"):
        a, b = signed_value(node.left), signed_value(node.right)
        if a is None or b is None or b[0] == 0:
            return None
        dtype = DType.INT64 if DType.INT64 in (a[1], b[1]) else DType.INT32
        quotient = abs(a[0]) // abs(b[0]) * (1 if (a[0] < 0) == (b[0] < 0) else -1)
        value = quotient if node.op == "/" else a[0] - b[0] * quotient  # C truncates
        low, high = dtype.bounds
        return constant_node(value, dtype, node) if low <= value <= high else None
    if isinstance(node, c_ast.UnaryOp) and node.op == "~":
        a = signed_value(node.expr)
        return None if a is None else constant_node(~a[0], a[1], node)
    if isinstance(node, c_ast.Cast):
        cast, a = _cast_type(node), signed_value(node.expr)
        if cast is None or a is None or not cast.bounds[0] <= a[0] <= cast.bounds[1]:
            return None
        return constant_node(a[0], cast, node)
    return None


def _cast_type(node: c_ast.Cast) -> DType | None:
    """INT32 or INT64 for a cast to ``int`` or ``long`` (signed), else None."""
    decl = node.to_type.type
    if not isinstance(decl, c_ast.TypeDecl) or not isinstance(decl.type, c_ast.IdentifierType):
        return None
    words = [w for w in decl.type.names if w not in ("signed", "const")]
    if words in (["int"], []):
        return DType.INT32 if "signed" in decl.type.names or words else None
    if words in (["long"], ["long", "int"], ["long", "long"], ["long", "long", "int"]):
        return DType.INT64
    return None


_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul}


def signed_value(node: c_ast.Node) -> tuple[int, DType] | None:
    """The value and type of a signed integer constant expression (``N - 1`` of a
    macro too), folded first when it is a bitwise one."""
    folded = _folded(node)
    if folded is not None:
        node = folded
    if isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC:
        a, b = signed_value(node.left), signed_value(node.right)
        if a is None or b is None:
            return None
        dtype = DType.INT64 if DType.INT64 in (a[1], b[1]) else DType.INT32
        value = _ARITHMETIC[node.op](a[0], b[0])
        low, high = dtype.bounds
        return (value, dtype) if low <= value <= high else None
    negative = isinstance(node, c_ast.UnaryOp) and node.op == "-"
    inner = node.expr if negative else node
    if not isinstance(inner, c_ast.Constant) or inner.type == "char" or \
            not inner.type.endswith("int") or is_unsigned(inner):
        return None
    try:
        value, dtype = int_literal(inner)
    except NotAffine:
        return None
    return (-value if negative else value), dtype


def constant_node(value: int, dtype: DType, at: c_ast.Node) -> c_ast.Node:
    suffix = "L" if dtype is DType.INT64 else ""
    text = c_ast.Constant("long int" if suffix else "int", f"{abs(value)}{suffix}", at.coord)
    return c_ast.UnaryOp("-", text, at.coord) if value < 0 else text


def replace_child(parent: c_ast.Node, name: str, new: c_ast.Node) -> None:
    """Put ``new`` where ``parent``'s child ``name`` is (``args[2]``-style names index a
    list attribute)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        getattr(parent, attr)[int(index)] = new
    else:
        setattr(parent, name, new)
