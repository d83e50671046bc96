"""C expressions in value position (right-hand sides) as typed :mod:`polyopt.model.expr` trees.

Types follow C, not NumPy: the usual arithmetic conversions (int < long < float
< double) are made explicit with :class:`~polyopt.model.expr.Cast` nodes, so both
operands of every arithmetic or comparison node have the node's type and the
printer never relies on promotion rules.  Integer division and remainder
truncate toward zero (the ``"c/"`` and ``"c%"`` operators); comparisons and
``&&``/``||``/``!`` yield ``int``.  Calls to C math functions keep their C names
and prototypes (``sqrt`` takes and returns double, ``sqrtf`` float).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from polyopt.frontends.c_affine import describe, int_literal, is_unsigned
from polyopt.frontends.c_types import TypeTable, element_dtype
from polyopt.frontends.refusal import NotAffine
from pycparser import c_ast

from polyopt.model.aff import Formula, Not
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.expr import Binary, Call, Cast, Expr, Literal, Load, Select, Unary, guarded, walk

INT = ValueType(DType.INT32)
LONG = ValueType(DType.INT64)
FLOAT = ValueType(DType.FLOAT32)
DOUBLE = ValueType(DType.FLOAT64)

_D1 = ("sqrt exp exp2 expm1 log log2 log10 log1p fabs sin cos tan asin acos atan sinh cosh "
       "tanh asinh acosh atanh floor ceil round trunc rint nearbyint cbrt erf erfc tgamma "
       "lgamma").split()
_D2 = "pow atan2 fmod fmin fmax hypot copysign fdim remainder".split()
# name -> (parameter types, result type)
MATH_FUNCTIONS: dict[str, tuple[tuple[ValueType, ...], ValueType]] = {
    **{f: ((DOUBLE,), DOUBLE) for f in _D1},
    **{f: ((DOUBLE, DOUBLE), DOUBLE) for f in _D2},
    **{f + "f": ((FLOAT,), FLOAT) for f in _D1},
    **{f + "f": ((FLOAT, FLOAT), FLOAT) for f in _D2},
    "fma": ((DOUBLE, DOUBLE, DOUBLE), DOUBLE),
    "fmaf": ((FLOAT, FLOAT, FLOAT), FLOAT),
    "abs": ((INT,), INT),
    "labs": ((LONG,), LONG),
    "llabs": ((LONG,), LONG),
    "__builtin_inf": ((), DOUBLE),
    "__builtin_inff": ((), FLOAT),
    "__builtin_huge_val": ((), DOUBLE),
    "__builtin_huge_valf": ((), FLOAT),
}
_ARITH = {"+", "-", "*", "/", "%"}
_CMP = {"<", "<=", ">", ">=", "==", "!="}


def convert_types(a: ValueType, b: ValueType) -> ValueType:
    """C's usual arithmetic conversions of two operand types: the wider float; else the
    integer promotions (bool, char and short become int), then the wider type, unsigned
    when the unsigned one is at least as wide (``unsigned + long`` is long, as in LP64)."""
    if a.dtype.is_float or b.dtype.is_float:
        floats = [t for t in (a, b) if t.dtype.is_float]
        return max(floats, key=lambda t: t.dtype.bits)
    a, b = _promoted(a), _promoted(b)
    if a.dtype.is_unsigned == b.dtype.is_unsigned:
        return a if a.dtype.bits >= b.dtype.bits else b
    u, s = (a, b) if a.dtype.is_unsigned else (b, a)
    return u if u.dtype.bits >= s.dtype.bits else s


def _promoted(t: ValueType) -> ValueType:
    return INT if t.dtype.bits < 32 else t


def cast(e: Expr, t: ValueType) -> Expr:
    """``e`` converted to ``t`` (no node when it already has that type)."""
    if e.type.dtype == t.dtype:
        return e
    if isinstance(e, Literal) and t.dtype.is_float:
        return Literal(_round(float(e.value), t.dtype), t)
    return Cast(e, t)


def _round(v: float, dtype: DType) -> float:
    if dtype is not DType.FLOAT64:
        # past the type's range it is an infinity, as C makes `1e39f` (gcc warns;
        # NumPy's RuntimeWarning named a line of polyopt instead)
        with np.errstate(over="ignore"):
            return float(np.dtype(dtype.value).type(v))
    return v


def arith(op: str, a: Expr, b: Expr, node: c_ast.Node) -> Expr:
    """A typed C arithmetic node: operands converted to their common type."""
    t = convert_types(a.type, b.type)
    if op == "%" and t.dtype.is_float:
        raise NotAffine(node, "`%` on floating-point values", "is not valid C (use fmod)")
    if not t.dtype.is_float and op in ("/", "%"):
        op = "c" + op
    return Binary(op, cast(a, t), cast(b, t), t)


@dataclass
class ValueScope:
    """What the converter needs to know about names: each callback raises NotAffine."""

    name: Callable[[c_ast.ID], Expr]  # a scalar, parameter or iterator read
    element: Callable[[c_ast.Node], Load]  # an array element read (subscript or dereference)
    # the formula of a test affine in iterators and parameters, None for another test
    affine_test: Callable[[c_ast.Node], Formula | None] = lambda node: None
    # the file's typedefs, so that a cast may name one (`(real)x`, `(uint8_t)x`)
    types: TypeTable | None = None


class ValueConverter:
    def __init__(self, scope: ValueScope) -> None:
        self.scope = scope
        # literals read from unsigned constants (10u): polyopt has no unsigned types, so
        # such a literal may only meet floating-point operands (or stand alone), where
        # C's conversions give what signed arithmetic gives
        self._unsigned: dict[int, Literal] = {}  # by id, kept alive so ids stay unique
        # long double constants (1.5L): C computes the expression around one in long
        # double, polyopt in double; only a cast to double or float right around one
        # (DBL_MAX's expansion) makes it a double
        self._long_double: dict[int, tuple[c_ast.Constant, Literal]] = {}
        self._depth = 0

    def check_unsigned(self, node: c_ast.Node, a: Expr, b: Expr) -> None:
        """Refuse an unsigned constant in integer arithmetic of ``a`` and ``b``."""
        self._mixed_unsigned(node, convert_types(a.type, b.type), a, b)

    def _mixed_unsigned(self, node: c_ast.Node, t: ValueType, *operands: Expr) -> None:
        if not t.dtype.is_float and any(id(e) in self._unsigned for e in operands):
            raise NotAffine(node, describe(node), "an unsigned constant in integer arithmetic "
                            "or comparison is not supported (C makes it unsigned); drop the `u`")

    def convert(self, node: c_ast.Node) -> Expr:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise NotAffine(node, describe(node), "is not supported in a scop region")
        self._depth += 1
        try:
            e: Expr = method(node)
        finally:
            self._depth -= 1
        if self._depth == 0:
            self._no_long_double(e)
        return e

    def _Constant(self, node: c_ast.Constant) -> Expr:
        # pycparser's types: "int", "char", "long int", "unsigned long long int", "float",
        # "double", "long double"...
        if node.type == "char" or node.type.endswith("int"):
            value, dtype = int_literal(node, unsigned_ok=True)
            lit = Literal(value, ValueType(dtype))
            if is_unsigned(node):
                self._unsigned[id(lit)] = lit
            return lit
        if node.type in ("float", "double", "long double"):
            body = node.value.rstrip("fFlL")
            try:
                number = float.fromhex(body) if body.lower().startswith("0x") else float(body)
            except (ValueError, OverflowError):
                raise NotAffine(node, f"constant {node.value}", "cannot be read") from None
            if node.value[-1] in "fF":
                return Literal(_round(number, DType.FLOAT32), FLOAT)
            lit = Literal(number, DOUBLE)
            if node.value[-1] in "lL":
                self._long_double[id(lit)] = (node, lit)  # a double only under a cast
            return lit
        raise NotAffine(node, f"constant {node.value}", "only numbers are supported in a scop region")

    def _no_long_double(self, e: Expr) -> None:
        if not self._long_double:
            return
        for sub in walk(e):
            found = self._long_double.get(id(sub))
            if found is not None:
                bad = found[0]
                raise NotAffine(bad, f"constant {bad.value}", "a long double constant is not "
                                "supported: C computes the expression around it in long "
                                "double, and polyopt computes in double (`1.0L * x * x` keeps "
                                "the product's extra bits); write it without `L`, or cast it "
                                "to double")

    def _ID(self, node: c_ast.ID) -> Expr:
        return self.scope.name(node)

    def _ArrayRef(self, node: c_ast.ArrayRef) -> Expr:
        return self.scope.element(node)

    def _UnaryOp(self, node: c_ast.UnaryOp) -> Expr:
        if node.op == "*":
            return self.scope.element(node)
        if node.op in ("-", "+"):
            inner = self.convert(node.expr)
            self._mixed_unsigned(node, inner.type, inner)  # -10u wraps around
            inner = cast(inner, convert_types(inner.type, INT))
            if node.op == "+":
                return inner
            if isinstance(inner, Literal):
                return Literal(-inner.value, inner.type)
            return Unary("-", inner, inner.type)
        if node.op == "!":
            return Unary("not", self.convert(node.expr), INT)
        if node.op == "sizeof":
            raise NotAffine(node, "`sizeof`", "is not supported in a scop region")
        if node.op in ("++", "--", "p++", "p--"):
            raise NotAffine(node, describe(node), "increments inside expressions are not supported; "
                            "write them as separate statements")
        raise NotAffine(node, f"`{node.op}`", "bitwise and address operators are not supported")

    def _BinaryOp(self, node: c_ast.BinaryOp) -> Expr:
        if node.op in ("&&", "||"):
            a, b = self.convert(node.left), self.convert(node.right)
            test = self.scope.affine_test(node.left)
            if test is not None:  # the right operand is evaluated only where the left lets it
                b = guarded(b, test if node.op == "&&" else Not(test))
            return Binary("and" if node.op == "&&" else "or", a, b, INT)
        if node.op in _ARITH or node.op in _CMP:
            a, b = self.convert(node.left), self.convert(node.right)
            self._mixed_unsigned(node, convert_types(a.type, b.type), a, b)
            if node.op in _CMP:
                t = convert_types(a.type, b.type)
                return Binary(node.op, cast(a, t), cast(b, t), INT)
            return arith(node.op, a, b, node)
        raise NotAffine(node, f"operator `{node.op}`", "bitwise operators are not supported")

    def _TernaryOp(self, node: c_ast.TernaryOp) -> Expr:
        cond = self.convert(node.cond)
        a, b = self.convert(node.iftrue), self.convert(node.iffalse)
        t = convert_types(a.type, b.type)
        self._mixed_unsigned(node, t, a, b)
        test = self.scope.affine_test(node.cond)
        if test is not None:  # each branch's reads happen only where it is chosen
            a, b = guarded(a, test), guarded(b, Not(test))
        return Select(cond, cast(a, t), cast(b, t), t)

    def _Cast(self, node: c_ast.Cast) -> Expr:
        dtype = self._cast_dtype(node.to_type.type)
        if dtype is None:
            raise NotAffine(node, describe(node), "only casts to C's arithmetic types (int, "
                            "unsigned char, long, float, double, _Bool...) and typedefs of "
                            "them are supported")
        t = ValueType(dtype)
        inner = self.convert(node.expr)
        if isinstance(inner, Literal) and id(inner) in self._long_double and t.dtype.is_float:
            # (double)1.79...e+308L
            return Literal(_round(float(inner.value), t.dtype), t)
        return inner if inner.type.dtype == t.dtype else Cast(inner, t)

    def _cast_dtype(self, target: c_ast.Node) -> DType | None:
        """The arithmetic type a cast names, through the file's typedefs."""
        if self.scope.types is not None:
            t = self.scope.types.of(target)
            return t.dtype if not t.dims else None
        if isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.IdentifierType):
            return element_dtype(tuple(target.type.names))[0]
        return None

    def _FuncCall(self, node: c_ast.FuncCall) -> Expr:
        if not isinstance(node.name, c_ast.ID):
            raise NotAffine(node, describe(node), "only calls of named math functions are supported")
        fn = node.name.name
        if fn in ("__builtin_nan", "__builtin_nanf") and node.args is not None and \
                len(node.args.exprs) == 1 and isinstance(node.args.exprs[0], c_ast.Constant) \
                and node.args.exprs[0].value == '""':  # NAN's expansion
            return Literal(float("nan"), FLOAT if fn.endswith("f") else DOUBLE)
        if fn not in MATH_FUNCTIONS:
            raise NotAffine(node, f"call to {fn}()", "unknown function: only C math library "
                            "functions (sqrt, exp, pow, fabs, ...) may be called in a scop region")
        params, result = MATH_FUNCTIONS[fn]
        args = [self.convert(a) for a in (node.args.exprs if node.args is not None else [])]
        if len(args) != len(params):
            raise NotAffine(node, f"{fn}()", f"takes {len(params)} argument(s), got {len(args)}")
        return Call(fn, tuple(cast(a, p) for a, p in zip(args, params, strict=True)), result)
