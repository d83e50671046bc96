"""C expressions in affine position (loop bounds, subscripts, ``if`` tests) as
:mod:`polyopt.model.aff` expressions and formulas.

``min``/``max`` may be written as calls (``min(a, b)``, ``MIN(a, b)``) or as the
ternaries such macros expand to (``a < b ? a : b``).

Integer ``/`` and ``%`` by a positive constant truncate toward zero in C, which is
not a quasi-affine function of a possibly negative dividend; in a condition each one
splits the comparison by the dividend's sign, where it is a floor or a ceiling::

    i % 2 == 1   =>   (i >= 0 and i - 2*floor(i/2) == 1) or (i < 0 and i + 2*floor(-i/2) == 1)

so ``if (i % 2 == 1)`` stays an affine guard (isl simplifies the case that cannot
happen).  In bounds and subscripts they are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import product

from polyopt.frontends.refusal import NotAffine, affine_product
from pycparser import c_ast, c_generator

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
    floordiv,
    scale,
)
from polyopt.model.c_region import MIN_MAX_CALLS
from polyopt.model.dtypes import DType

COMPARISONS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")
_GEN = c_generator.CGenerator()
#: the most truncating divisions one comparison may hold (each doubles its cases)
MAX_DIVISIONS = 3


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
    if node.type == "char" or "'" in node.value:  # pycparser types 'ab' as an int
        return char_value(node), DType.INT32
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


_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
            '"': 34, "?": 63}
_OCTAL_ESCAPE = re.compile(r"[0-7]{1,3}")
_HEX_ESCAPE = re.compile(r"x[0-9a-fA-F]+")


def char_value(node: c_ast.Constant) -> int:
    """The value of a character constant of the basic character set (``'a'``, ``'\\n'``,
    ``'\\101'``, ``'\\x41'``).  Others are refused: a wide or Unicode one (``L'a'``), one of
    several characters or outside ASCII (its value depends on the compiler and the file's
    encoding: UTF-8's ``'é'`` is gcc's 50089) and one above 127 (whether ``char`` is
    signed decides ``'\\xe9'``: -23 with gcc on x86)."""
    text_ = node.value
    what = f"character constant {text_}"
    if not text_.startswith("'"):
        raise NotAffine(node, what, "wide and Unicode character constants (L'a', u'a', U'a', "
                        "u8'a') are not supported; write the number")
    body = text_[1:-1]
    if body.startswith("\\"):
        esc = body[1:]
        if esc in _ESCAPES:
            value = _ESCAPES[esc]
        elif _OCTAL_ESCAPE.fullmatch(esc):
            value = int(esc, 8)
        elif _HEX_ESCAPE.fullmatch(esc):
            value = int(esc[1:], 16)
        elif _OCTAL_ESCAPE.match(esc):  # `'\\0101'`: `'\\010'` and `'1'`
            raise NotAffine(node, what, "holds several characters, whose value depends on the "
                            "compiler; write the number")
        else:
            raise NotAffine(node, what, f"`\\{esc}` is not a C escape sequence")
    elif len(body) == 1 and body.isascii():
        value = ord(body)
    else:
        raise NotAffine(node, what, "holds several characters or one outside ASCII, whose value "
                        "depends on the compiler and the file's encoding; write the number")
    if value > 127:
        raise NotAffine(node, what, "is above 127: its value depends on whether the compiler's "
                        "`char` is signed; write the number")
    return value


def is_unsigned(node: c_ast.Constant) -> bool:
    m = _INT.match(node.value)
    return node.type != "char" and m is not None and "u" in m.group(2).lower()


class AffineConverter:
    """Converts pycparser expressions to affine expressions.

    ``lookup(id_node)`` returns the Lin for a name (iterator or parameter) or
    raises NotAffine.
    """

    def __init__(self, lookup: Callable[[c_ast.ID], Lin],
                 opaque: frozenset[str] = frozenset()) -> None:
        self.lookup = lookup
        self.opaque = opaque  # min/max names the file defines otherwise (file_min_max)
        # while a comparison is split: each division's case (its dividend is >= 0 or < 0)
        self._case: dict[int, bool] = {}

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
            if node.name.name in self.opaque:
                is_min = MIN_MAX_CALLS[node.name.name]
                kind, sign = ("minimum", "<") if is_min else ("maximum", ">")
                raise NotAffine(node, f"call to {node.name.name}()",
                                f"is the file's own function, which polyopt does not read as "
                                f"the {kind} (its body is not `return a {sign} b ? a : b;` or "
                                f"the like, over ints); write the bound with `?:`")
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
        if node.op in ("/", "%") and id(node) in self._case:
            return self._truncating(node, self._case[id(node)])
        if node.op in ("/", "%"):
            raise NotAffine(node, describe(node), "integer division and remainder are not "
                            "supported in bounds and subscripts (C truncates toward zero, which "
                            "is not affine); in an `if` condition they are, by a positive "
                            "constant")
        raise NotAffine(node, describe(node),
                        "is not an affine expression of loop iterators and parameters")

    def _truncating(self, node: c_ast.BinaryOp, nonnegative: bool) -> Lin:
        """``a / c`` or ``a % c`` where the dividend ``a`` is known non-negative (floor) or
        negative (C rounds the quotient toward zero: a ceiling)."""
        num = self.aff(node.left)
        if not isinstance(num, Lin):
            raise NotAffine(node, describe(node), "a min or max cannot be divided")
        den = _positive_constant(node.right)
        assert den is not None
        quotient = floordiv(num, den) if nonnegative else -floordiv(-num, den)
        return quotient if node.op == "/" else num - quotient.scale(den)

    def _comparison(self, node: c_ast.BinaryOp) -> Formula:
        """``node`` as a formula, split by the sign of each truncating division's dividend."""
        found = list(divisions(node))
        if len(found) > MAX_DIVISIONS:
            raise NotAffine(node, describe(node), f"more than {MAX_DIVISIONS} integer divisions "
                            "or remainders in one comparison are not supported")
        parts: list[tuple[list[Formula], Formula]] = []
        for signs in product((True, False), repeat=len(found)):  # a partition of the space
            self._case = {id(d): s for d, s in zip(found, signs, strict=True)}
            try:
                guards: list[Formula] = [
                    Cmp(">=" if s else "<", self.aff(d.left), Lin.constant(0))
                    for d, s in zip(found, signs, strict=True)]
                parts.append((guards, Cmp(COMPARISONS[node.op], self.aff(node.left),
                                          self.aff(node.right))))
            finally:
                self._case = {}
        return cases(parts)

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
            # the same test written otherwise: `i > 5 ? i - 5 : 0` tests i - 5 > 0
            parts = [self.aff(x) for x in (cond.left, cond.right, node.iftrue, node.iffalse)]
            if all(isinstance(x, Lin) for x in parts):
                left, right, yes, no = (x for x in parts if isinstance(x, Lin))
                same, swapped = _zero(left - right - (yes - no)), _zero(left - right - (no - yes))
                if same or swapped:
                    return MinMax(smaller_first == same, (yes, no))
        raise NotAffine(node, describe(node), "a conditional expression in an affine position must "
                        "be a min or max (`a < b ? a : b`)")

    def formula(self, node: c_ast.Node) -> Formula:
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            parts = (self.formula(node.left), self.formula(node.right))
            return And(parts) if node.op == "&&" else Or(parts)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return Not(self.formula(node.expr))
        if isinstance(node, c_ast.TernaryOp):  # `c ? a : b` as a test: (c && a) || (!c && b)
            test = self.formula(node.cond)
            return cases([((test,), self.formula(node.iftrue)),
                          ((Not(test),), self.formula(node.iffalse))])
        if isinstance(node, c_ast.Constant) and (node.type == "char" or node.type.endswith("int")):
            return TRUE if int_literal(node)[0] else Const(False)
        if (isinstance(node, c_ast.BinaryOp) and node.op in ("==", "!=")
                and _is_truth(node.left) and _is_truth(node.right)):
            # two truth values compared: `(i > 1) == (j < 4)`, `!(i < n) != (j % 2 == 0)`
            a, b = self.formula(node.left), self.formula(node.right)
            if node.op == "!=":
                b = Not(b)
            return cases([((a,), b), ((Not(a),), Not(b))])
        if isinstance(node, c_ast.BinaryOp) and node.op in COMPARISONS:
            return self._comparison(node)
        try:  # an integer's truth: `if (i % 2)` runs where `i % 2 != 0`
            return self._comparison(c_ast.BinaryOp("!=", node, c_ast.Constant("int", "0"),
                                                   node.coord))
        except NotAffine:
            pass
        raise NotAffine(node, describe(node), "is not an affine condition (compare loop "
                        "iterators and parameters with < <= > >= == !=)")


def _is_truth(node: c_ast.Node) -> bool:
    """Whether ``node`` is 0 or 1 whatever its operands: a comparison, ``!``, ``&&``, ``||``."""
    if isinstance(node, c_ast.BinaryOp):
        return node.op in COMPARISONS or node.op in ("&&", "||")
    return isinstance(node, c_ast.UnaryOp) and node.op == "!"


def _positive_constant(node: c_ast.Node) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type.endswith("int"):
        try:
            value = int_literal(node)[0]
        except NotAffine:
            return None
        return value if value > 0 else None
    return None


def divisions(node: c_ast.Node) -> Iterator[c_ast.BinaryOp]:
    """The truncating ``a / c`` and ``a % c`` (``c`` a positive constant) in ``node``, inner ones
    first."""
    for _, child in node.children():
        yield from divisions(child)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("/", "%") and \
            _positive_constant(node.right) is not None:
        yield node


def _is_int_cast(node: c_ast.Cast) -> bool:
    t = node.to_type.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
        set(t.type.names) <= {"int", "long", "signed"}


def _zero(e: Lin) -> bool:
    return not e.terms and e.const == 0


def file_min_max(ast: c_ast.FileAST) -> frozenset[str]:
    """The min/max names (:data:`MIN_MAX_CALLS`) that the file declares as functions of
    its own and does not define as that minimum or maximum of two ints: a call of one in
    a bound is then the file's, not the minimum (hostile session 44b: a ``max`` that
    returned one more)."""
    declared: set[str] = set()
    plain: set[str] = set()
    for ext in ast.ext:
        decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if not (isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.FuncDecl)
                and decl.name in MIN_MAX_CALLS):
            continue
        declared.add(decl.name)
        if isinstance(ext, c_ast.FuncDef) and _computes(ext, MIN_MAX_CALLS[decl.name]):
            plain.add(decl.name)
    return frozenset(declared - plain)


_INT_TYPE_WORDS = frozenset({"int", "long", "signed", "const"})


def _computes(fn: c_ast.FuncDef, is_min: bool) -> bool:
    """Whether ``fn`` is ``int f(int a, int b) { return a > b ? a : b; }`` (a maximum)
    or one of its equivalent spellings, or the minimum's when ``is_min``."""
    ftype = fn.decl.type
    assert isinstance(ftype, c_ast.FuncDecl)
    params = ftype.args.params if ftype.args is not None else []
    names = [p.name for p in params if isinstance(p, c_ast.Decl)]
    if len(names) != 2 or len(params) != 2 or names[0] == names[1] or not all(
            _int_type(t) for t in (ftype.type, *(p.type for p in params))):
        return False
    choice = _choice(fn.body.block_items or [])
    if choice is None:
        return False
    cond, iftrue, iffalse = choice
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=")):
        return False
    parts = [cond.left, cond.right, iftrue, iffalse]
    if not all(isinstance(x, c_ast.ID) for x in parts):
        return False
    left, right, yes, no = (str(x.name) for x in parts)
    if {left, right} != set(names) or {yes, no} != set(names):
        return False
    picks_left = yes == left  # when left > right (or <): the larger (smaller) one
    less = str(cond.op) in ("<", "<=")
    return picks_left == less if is_min else picks_left != less


def _choice(body: list[c_ast.Node]) -> tuple[c_ast.Node, c_ast.Node, c_ast.Node] | None:
    """(test, then, else) of a body that returns one of two values: ``return c ? x : y;``,
    ``if (c) return x; else return y;`` or ``if (c) return x; return y;``."""
    def returned(n: c_ast.Node | None) -> c_ast.Node | None:
        if isinstance(n, c_ast.Compound) and n.block_items and len(n.block_items) == 1:
            n = n.block_items[0]
        return n.expr if isinstance(n, c_ast.Return) else None

    if len(body) == 1 and isinstance(e := returned(body[0]), c_ast.TernaryOp):
        return e.cond, e.iftrue, e.iffalse
    first = body[0] if body else None
    if not isinstance(first, c_ast.If):
        return None
    rest = first.iffalse if len(body) == 1 else body[1] if len(body) == 2 and \
        first.iffalse is None else None
    yes, no = returned(first.iftrue), returned(rest)
    return None if yes is None or no is None else (first.cond, yes, no)


def _int_type(t: c_ast.Node) -> bool:
    """A signed integer type at least as wide as int (``int``, ``long``, ``const int``)."""
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return False
    words = set(t.type.names) | set(t.quals or [])
    return words <= _INT_TYPE_WORDS and bool(words & {"int", "long"})

