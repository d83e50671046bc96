"""Python expressions in affine position (loop bounds, subscripts, ``if`` tests)
as :mod:`polyopt.model.aff` expressions and formulas.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from polyopt.frontends.refusal import NotAffine, affine_product

from polyopt.model.aff import (
    TRUE,
    Aff,
    And,
    Cmp,
    Const,
    Formula,
    Lin,
    MinMax,
    Not,
    Or,
    add,
    cases,
    fdiv,
    scale,
)

T = TypeVar("T")
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class AffineConverter:
    """Converts AST nodes to affine expressions.

    ``lookup(name_node)`` returns the Lin for a name (iterator, parameter or
    alias) or raises NotAffine; ``size(node)`` returns the Lin for ``X.shape[d]``
    or ``len(x)`` or None when the node is neither; ``inline(call)`` returns a helper
    call as the expression the helper returns, and where that is (for messages), or
    None for another call; ``fixed_width(name_node)`` the NumPy integer type of a
    name whose arithmetic wraps (a ``np.uint8`` argument), else None.
    """

    def __init__(
        self,
        lookup: Callable[[ast.Name], Lin],
        size: Callable[[ast.AST], Lin | None],
        inline: Callable[[ast.Call], tuple[ast.expr, str] | None] = lambda call: None,
        module_alias: Callable[[str], str | None] = lambda name: None,
        fixed_width: Callable[[ast.Name], str | None] = lambda name: None,
    ) -> None:
        self.lookup = lookup
        self.size = size
        self.inline = inline
        self.module_alias = module_alias
        self.fixed_width = fixed_width

    def _inlined(self, node: ast.AST, convert: Callable[[ast.AST], T]) -> T | None:
        """``convert`` of the expression a helper call returns (``if odd(i):``); None
        when ``node`` calls no helper."""
        found = self.inline(node) if isinstance(node, ast.Call) else None
        if found is None:
            return None
        try:
            return convert(found[0])
        except NotAffine as e:
            raise NotAffine(e.node, e.construct, e.reason + found[1]) from None

    def aff(self, node: ast.AST) -> Aff:
        sz = self.size(node)
        if sz is not None:
            return sz
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int):
                raise NotAffine(node, "constant", f"{node.value!r} is not an integer")
            return Lin.constant(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            if isinstance(node.op, ast.USub):
                self._exact(node, node.operand)
            inner = self.aff(node.operand)
            return scale(inner, -1) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "min",
            "max",
        ):
            if len(node.args) < 2 or node.keywords:
                raise NotAffine(node, f"{node.func.id}()", "needs two or more positional arguments")
            return MinMax(node.func.id == "min", tuple(self.aff(a) for a in node.args))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "int" and len(node.args) == 1 and not node.keywords:
            return self.aff(node.args[0])  # an int's value; a NumPy int's as a Python int
        inlined = self._inlined(node, self.aff)
        if inlined is not None:
            return inlined
        raise NotAffine(node, _describe(node), "is not an affine expression of loop variables and sizes")

    def _exact(self, node: ast.expr, *operands: ast.expr) -> None:
        """Refuse arithmetic on a NumPy integer of fixed width: CPython computes
        ``n - 20`` in ``n``'s type (246 for ``np.uint8(10)``), bounds and subscripts
        are exact integers."""
        for x in operands:
            if not isinstance(x, ast.Name):
                continue
            width = self.fixed_width(x)
            if width is not None:
                raise NotAffine(node, _describe(node), f"computes in {width}, as `{x.id}` is a "
                                f"NumPy {width} that NumPy's arithmetic wraps; bounds, subscripts "
                                f"and `if` tests are exact: write `int({x.id})`")

    def _binop(self, node: ast.BinOp) -> Aff:
        self._exact(node, node.left, node.right)
        if isinstance(node.op, ast.Div):
            raise NotAffine(node, f"true division {_describe(node)}", "gives a float; loop bounds, "
                            "subscripts and `if` tests must be integers (use `//`)")
        if isinstance(node.op, (ast.Add, ast.Sub)):
            a, b = self.aff(node.left), self.aff(node.right)
            return add(a, scale(b, -1) if isinstance(node.op, ast.Sub) else b)
        if isinstance(node.op, ast.Mult):
            return affine_product(node, self.aff(node.left), self.aff(node.right))
        if isinstance(node.op, ast.Pow):
            return _power(node, self.aff(node.left), self.aff(node.right))
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            a, b = self.aff(node.left), self.aff(node.right)
            if not (isinstance(b, Lin) and b.is_constant()) or b.const == 0:
                raise NotAffine(node, _describe(node), "divides by a non-constant (not affine)")
            den = b.const
            if den < 0:  # floor(a / -d) == floor(-a / d)
                a, den = scale(a, -1), -den
                q = fdiv(a, den)
                if isinstance(node.op, ast.FloorDiv):
                    return q
                # a_orig % b = a_orig - b*floor(a_orig/b), with b negative
                return add(scale(a, -1), scale(q, den))
            q = fdiv(a, den)
            if isinstance(node.op, ast.FloorDiv):
                return q
            return add(a, scale(q, -den))
        raise NotAffine(node, _describe(node), "is not an affine expression of loop variables and sizes")

    def _is_bool(self, node: ast.AST) -> bool:
        """Whether ``node`` is a bool whatever its operands: a comparison, a ``not``, a bool
        constant, or ``and``/``or``/``a if c else b`` of those (``i and j`` is an int)."""
        if isinstance(node, ast.Compare) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return True
        if isinstance(node, ast.Constant):
            return isinstance(node.value, bool)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.attr in ("True_", "False_") and self.module_alias(node.value.id) == "np"
        if isinstance(node, ast.BoolOp):
            return all(self._is_bool(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self._is_bool(node.body) and self._is_bool(node.orelse)
        return False

    def formula(self, node: ast.AST) -> Formula:
        if isinstance(node, ast.BoolOp):
            parts = tuple(self.formula(v) for v in node.values)
            return And(parts) if isinstance(node.op, ast.And) else Or(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Not(self.formula(node.operand))
        if isinstance(node, ast.IfExp):  # `a if c else b` as a test: (c and a) or (not c and b)
            test = self.formula(node.test)
            return cases([((test,), self.formula(node.body)),
                          ((Not(test),), self.formula(node.orelse))])
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return TRUE if node.value else Const(False)
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.attr in ("True_", "False_") and self.module_alias(node.value.id) == "np"):
            return TRUE if node.attr == "True_" else Const(False)
        if (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                and self._is_bool(node.left) and self._is_bool(node.comparators[0])):
            # two truth values compared: `(i > 1) == (j < 4)`, `(i < n) != True`
            a, b = self.formula(node.left), self.formula(node.comparators[0])
            if isinstance(node.ops[0], ast.NotEq):
                b = Not(b)
            return cases([((a,), b), ((Not(a),), Not(b))])
        if isinstance(node, ast.Compare):
            cmps: list[Formula] = []
            left = self.aff(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                if type(op) not in _CMP:
                    raise NotAffine(node, _describe(node), "uses a comparison other than < <= > >= == !=")
                right = self.aff(right_node)
                cmps.append(Cmp(_CMP[type(op)], left, right))
                left = right
            return cmps[0] if len(cmps) == 1 else And(tuple(cmps))
        inlined = self._inlined(node, self.formula)
        if inlined is not None:
            return inlined
        try:  # an int's truth: `if i % 2:` runs where `i % 2 != 0`
            return Cmp("!=", self.aff(node), Lin.constant(0))
        except NotAffine:
            pass
        raise NotAffine(node, _describe(node), "is not an affine condition (compare loop variables and sizes)")


def _describe(node: ast.AST) -> str:
    try:
        return f"`{ast.unparse(node)}`"
    except Exception:  # pragma: no cover - unparse handles every node Python parses
        return type(node).__name__


__all__ = ["AffineConverter", "NotAffine"]


def _power(node: ast.BinOp, base: Aff, exponent: Aff) -> Lin:
    """``2**4`` folded as CPython computes it; a power of a variable is not affine, a
    negative exponent gives a float, and a power past int64 is refused."""
    if not (isinstance(base, Lin) and base.is_constant()
            and isinstance(exponent, Lin) and exponent.is_constant()):
        raise NotAffine(node, _describe(node), "is a power of a variable (not affine)")
    if exponent.const < 0:
        raise NotAffine(node, _describe(node), "gives a float; loop bounds, subscripts and "
                        "`if` tests must be integers")
    if abs(base.const) > 1 and exponent.const > 63:
        raise NotAffine(node, _describe(node), "does not fit in int64")
    value = base.const ** exponent.const
    if not -2**63 <= value < 2**63:
        raise NotAffine(node, _describe(node), "does not fit in int64")
    return Lin.constant(value)
