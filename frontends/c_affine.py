"""C expressions in affine position (loop bounds, subscripts, ``if`` tests) as
:mod:`polyopt.model.aff` expressions and formulas.

``min``/``max`` may be written as calls (``min(a, b)``, ``MIN(a, b)``) or as the
ternaries such macros expand to (``a < b ? a : b``).  Integer ``/`` and ``%`` are
refused here: C truncates toward zero, which is not a quasi-affine function of
a possibly negative operand.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from polyopt.frontends.refusal import NotAffine, affine_product
from pycparser import c_ast, c_generator

from polyopt.model.aff import TRUE, Aff, And, Cmp, Const, Formula, Lin, MinMax, Not, Or, add, scale
from polyopt.model.c_region import MIN_MAX_CALLS
from polyopt.model.dtypes import DType

COMPARISONS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")
_GEN = c_generator.CGenerator()


def text(node: c_ast.Node) -> str:
    """C source of ``node`` as pycparser prints it (macros already expanded)."""
    out: str = _GEN.visit(node)
    return out


def describe(node: c_ast.Node) -> str:
    out = text(node)
    return f"`{out if len(out) <= 60 else out[:57] + '...'}`"


def int_literal(node: c_ast.Constant, unsigned_ok: bool = False) -> tuple[int, DType]:
    """The value and C type of an integer or character constant.  An unsigned one
    (``10u``, ``10UL``) is refused unless ``unsigned_ok``: the caller then makes sure C's
    conversion to unsigned changes nothing (see :func:`is_unsigned`)."""
    if node.type == "char":
        body = node.value[1:-1]
        if body.startswith("\\"):
            escapes = {"n": 10, "t": 9, "0": 0, "\\": 92, "'": 39, '"': 34, "r": 13}
            if body[1:] in escapes:
                return escapes[body[1:]], DType.INT32
            raise NotAffine(node, f"character constant {node.value}", "is not supported")
        return ord(body), DType.INT32
    m = _INT.match(node.value)
    if m is None:
        raise NotAffine(node, f"constant {node.value}", "is not an integer constant")
    digits, suffix = m.groups()
    if "u" in suffix.lower() and not unsigned_ok:
        raise NotAffine(node, f"constant {node.value}",
                        "unsigned constants are not supported in bounds, subscripts and "
                        "conditions (they make the comparison or arithmetic unsigned); drop the `u`")
    value = int(digits, 0) if not (digits.startswith("0") and digits[1:].isdigit()) else int(digits, 8)
    if value >= 2**63:
        raise NotAffine(node, f"constant {node.value}", "does not fit in a signed 64-bit integer")
    dtype = DType.INT64 if "l" in suffix.lower() or value >= 2**31 else DType.INT32
    return value, dtype


def is_unsigned(node: c_ast.Constant) -> bool:
    m = _INT.match(node.value)
    return node.type != "char" and m is not None and "u" in m.group(2).lower()


class AffineConverter:
    """Converts pycparser expressions to affine expressions.

    ``lookup(id_node)`` returns the Lin for a name (iterator or parameter) or
    raises NotAffine.
    """

    def __init__(self, lookup: Callable[[c_ast.ID], Lin]) -> None:
        self.lookup = lookup

    def aff(self, node: c_ast.Node) -> Aff:
        if isinstance(node, c_ast.Constant):
            if node.type != "char" and not node.type.endswith("int"):
                raise NotAffine(node, f"constant {node.value}", "is not an integer")
            return Lin.constant(int_literal(node)[0])
        if isinstance(node, c_ast.ID):
            return self.lookup(node)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            inner = self.aff(node.expr)
            return scale(inner, -1) if node.op == "-" else inner
        if isinstance(node, c_ast.Cast) and _is_int_cast(node):
            return self.aff(node.expr)
        if isinstance(node, c_ast.BinaryOp):
            return self._binop(node)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and \
                node.name.name in MIN_MAX_CALLS:
            args = node.args.exprs if node.args is not None else []
            if len(args) < 2:
                raise NotAffine(node, f"{node.name.name}()", "needs two or more arguments")
            return MinMax(MIN_MAX_CALLS[node.name.name], tuple(self.aff(a) for a in args))
        if isinstance(node, c_ast.TernaryOp):
            return self._ternary(node)
        raise NotAffine(node, describe(node),
                        "is not an affine expression of loop iterators and parameters")

    def _binop(self, node: c_ast.BinaryOp) -> Aff:
        if node.op in ("+", "-"):
            a, b = self.aff(node.left), self.aff(node.right)
            return add(a, scale(b, -1) if node.op == "-" else b)
        if node.op == "*":
            return affine_product(node, self.aff(node.left), self.aff(node.right))
        if node.op in ("/", "%"):
            raise NotAffine(node, describe(node), "integer division and remainder are not "
                            "supported in bounds, subscripts and conditions (C truncates toward "
                            "zero, which is not affine)")
        raise NotAffine(node, describe(node),
                        "is not an affine expression of loop iterators and parameters")

    def _ternary(self, node: c_ast.TernaryOp) -> Aff:
        """``a < b ? a : b`` (and the other spellings of min and max)."""
        cond = node.cond
        if isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">="):
            lhs, rhs = text(cond.left), text(cond.right)
            t, f = text(node.iftrue), text(node.iffalse)
            smaller_first = cond.op in ("<", "<=")
            if (lhs, rhs) == (t, f) or (lhs, rhs) == (f, t):
                picks_left = (lhs, rhs) == (t, f)
                is_min = smaller_first == picks_left
                return MinMax(is_min, (self.aff(node.iftrue), self.aff(node.iffalse)))
        raise NotAffine(node, describe(node), "a conditional expression in an affine position must "
                        "be a min or max (`a < b ? a : b`)")

    def formula(self, node: c_ast.Node) -> Formula:
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            parts = (self.formula(node.left), self.formula(node.right))
            return And(parts) if node.op == "&&" else Or(parts)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return Not(self.formula(node.expr))
        if isinstance(node, c_ast.Constant) and (node.type == "char" or node.type.endswith("int")):
            return TRUE if int_literal(node)[0] else Const(False)
        if isinstance(node, c_ast.BinaryOp) and node.op in COMPARISONS:
            return Cmp(COMPARISONS[node.op], self.aff(node.left), self.aff(node.right))
        raise NotAffine(node, describe(node), "is not an affine condition (compare loop "
                        "iterators and parameters with < <= > >= == !=)")


def _is_int_cast(node: c_ast.Cast) -> bool:
    t = node.to_type.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
        set(t.type.names) <= {"int", "long", "signed"}
