"""Python expressions in value position (right-hand sides) as typed :mod:`polyopt.model.expr` trees.

Types follow NumPy 2 on the values CPython would see: array elements are NumPy
scalars of the array's dtype, loop variables and literals are weak Python
scalars, ``math.*`` returns Python floats and ``np.*`` keeps float32.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from polyopt.frontends.python_affine import NotAffine
from polyopt.frontends.python_math import NP_ALIASES, is_library, library_call, unknown_reason

from polyopt.model.aff import FloorDiv, Formula, Lin, Not, conj
from polyopt.model.dtypes import (
    BOOL,
    NP_BOOL,
    WEAK_FLOAT,
    WEAK_INT,
    DType,
    ValueType,
    arithmetic_type,
    comparison_result,
    promote,
    true_divide,
    ufunc_type,
)
from polyopt.model.expr import (
    COMPARISONS,
    Binary,
    Call,
    Cast,
    Expr,
    Literal,
    Load,
    Name,
    Select,
    Unary,
    guarded,
    walk,
)

_BUILTINS = ("min", "max", "abs", "float", "int")

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


_INT64 = (-(2**63), 2**63 - 1)
_NOT_A_VALUE = ("is not supported as a value (values are numbers, scalars, array elements, "
                "arithmetic, comparisons and math or NumPy calls)")


def _int_literal(e: Expr) -> int | None:
    """The value of a Python int constant (not a bool)."""
    return e.value if isinstance(e, Literal) and e.type == WEAK_INT and \
        type(e.value) is int else None


def _fits_int64(node: ast.AST, e: Expr) -> Expr:
    """``e``, the value of ``node``; NotAffine where it is a Python int constant that
    does not fit in 64 bits (a value, not an operand of a constant still folded)."""
    k = _int_literal(e)
    if k is not None and not _INT64[0] <= k <= _INT64[1]:
        raise NotAffine(node, f"`{ast.unparse(node)}`", (
            f"is {k}, which does not fit in 64 bits: Python ints are int64 here "
            f"(README \"Integers\"); write a float ({_as_float(k)}) or pass the value "
            "in an array"))
    return e


def _as_float(k: int) -> str:
    try:
        return repr(float(k))
    except OverflowError:  # beyond float64 too
        return "no float holds it either"


def _fold(op: str, a: int | None, b: int | None) -> Literal | None:
    """``a op b`` of two Python int constants, exactly as CPython computes it; None
    where it is not an int (``/``, a negative power), raises (a division by zero, left
    to the run time's error), or is a power too large to compute here."""
    if a is None or b is None:
        return None
    if op == "+":
        return Literal(a + b, WEAK_INT)
    if op == "-":
        return Literal(a - b, WEAK_INT)
    if op == "*":
        return Literal(a * b, WEAK_INT)
    if op in ("//", "%") and b != 0:
        return Literal(a // b if op == "//" else a % b, WEAK_INT)
    if op == "**" and 0 <= b <= 4096:
        return Literal(a**b, WEAK_INT)
    if op in BITWISE:
        return Literal(a & b if op == "&" else a | b if op == "|" else a ^ b, WEAK_INT)
    return None


@dataclass
class ValueScope:
    """What the value converter needs to know about names in scope."""

    name: Callable[[ast.Name], Expr]  # resolve a bare name (raises NotAffine on failure)
    subscript: Callable[[ast.Subscript], Load]  # an array element read
    size: Callable[[ast.AST], Lin | None]  # X.shape[d] / len(x)
    module_alias: Callable[[str], str | None]  # "math"/"np"/None for a module name in scope
    # the formula of a test affine in loop variables and sizes, None for another test
    affine_test: Callable[[ast.AST], Formula | None] = lambda node: None
    # (function, "math"/"np") for a global name bound to a function of those modules
    imported: Callable[[str], tuple[str, str] | None] = lambda name: None
    # a call to a helper function: (the expression it returns with the call's arguments,
    # where it is defined for messages); None for another call
    helper: Callable[[ast.Call], tuple[ast.expr, str] | None] = lambda call: None
    # what a name is bound to ("the function __main__.sqrt"), None when unbound: messages
    binding: Callable[[str], str | None] = lambda name: None


def lin_to_expr(e: Lin) -> Expr:
    """An affine integer expression as a value (e.g. a size used in arithmetic)."""
    out: Expr | None = None
    for atom, c in e.terms:
        if isinstance(atom, FloorDiv):
            base: Expr = Binary("//", lin_to_expr(atom.num), Literal(atom.den, WEAK_INT), WEAK_INT)
        else:
            base = Name(atom, WEAK_INT)
        term = base if c == 1 else Binary("*", Literal(c, WEAK_INT), base, WEAK_INT)
        out = term if out is None else Binary("+", out, term, WEAK_INT)
    if out is None:
        return Literal(e.const, WEAK_INT)
    if e.const:
        out = Binary("+", out, Literal(e.const, WEAK_INT), WEAK_INT)
    return out


class ValueConverter:
    def __init__(self, scope: ValueScope) -> None:
        self.scope = scope
        # the choices CPython evaluates to one of their operands (``a if c else b``, the
        # builtins ``max`` and ``min``; not ``np.maximum``): id of the node -> (the node,
        # its source), for :mod:`python_choices`, which makes arithmetic on a choice follow
        # the chosen operand's type
        self.choices: dict[int, tuple[Expr, ast.AST]] = {}

    def convert(self, node: ast.AST) -> Expr:
        return _fits_int64(node, self._operand(node))

    def _operand(self, node: ast.AST) -> Expr:
        """``node``'s value, an int constant folded as Python computes it, of any size
        (``2**63 - 1`` fits where ``2**63`` alone does not)."""
        sz = self.scope.size(node)
        if sz is not None:
            return lin_to_expr(sz)
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise NotAffine(node, _describe(node), _NOT_A_VALUE)
        out: Expr = method(node)
        return out

    # --- leaves -------------------------------------------------------------------------

    def _Constant(self, node: ast.Constant) -> Expr:
        v = node.value
        if isinstance(v, bool):
            return Literal(int(v), BOOL)
        if isinstance(v, int):
            return Literal(v, WEAK_INT)  # (its range: convert)
        if isinstance(v, float):
            return Literal(v, WEAK_FLOAT)
        raise NotAffine(node, f"constant {v!r}", "only int and float constants are supported")

    def _Name(self, node: ast.Name) -> Expr:
        return self.scope.name(node)

    def _Attribute(self, node: ast.Attribute) -> Expr:
        """``math.pi``, ``np.inf``...: the module's float constants (Python floats)."""
        module = self.scope.module_alias(node.value.id) if isinstance(node.value, ast.Name) else None
        if module is None:
            raise NotAffine(node, _describe(node), _NOT_A_VALUE)
        if module == "np" and node.attr in ("True_", "False_"):  # NumPy's bools: strong
            return Literal(node.attr == "True_", NP_BOOL)
        if node.attr not in _CONSTANTS[module]:
            raise NotAffine(node, _describe(node), "is not a number polyopt knows (the module "
                            "constants are math.pi, e, tau, inf, nan and np.pi, e, inf, nan, "
                            "True_, False_)")
        return Literal(float(getattr(_MODULES[module], node.attr)), WEAK_FLOAT)

    def _Subscript(self, node: ast.Subscript) -> Expr:
        return self.scope.subscript(node)

    # --- operators ----------------------------------------------------------------------

    def _UnaryOp(self, node: ast.UnaryOp) -> Expr:
        inner = self._operand(node.operand)
        if isinstance(node.op, ast.UAdd):
            return inner
        k = _int_literal(inner)
        if isinstance(node.op, ast.USub) and k is not None:
            return Literal(-k, WEAK_INT)
        inner = _fits_int64(node.operand, inner)
        if isinstance(node.op, ast.USub):
            if inner.type.dtype.is_bool:
                if not inner.type.weak:
                    raise NotAffine(node, "`-` on a NumPy bool", "NumPy raises TypeError "
                                    "(use `not`, or convert with int() first)")
                inner = Cast(inner, WEAK_INT)  # -True is -1
            return Unary("-", inner, inner.type)
        if isinstance(node.op, ast.Not):
            return Unary("not", inner, BOOL)
        return invert(inner, node)

    def _BinOp(self, node: ast.BinOp) -> Expr:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise NotAffine(node, _describe(node), "shifts (`<<`, `>>`) and `@` of scalars are not "
                            "supported (`@` takes arrays)")
        a, b = self._operand(node.left), self._operand(node.right)
        folded = _fold(op, _int_literal(a), _int_literal(b))
        if folded is not None:
            return folded
        a, b = _fits_int64(node.left, a), _fits_int64(node.right, b)
        if (op == "**" and getattr(node, "array_code", False) and a.type.dtype.is_bool
                and isinstance(b, Literal) and type(b.value) is int and b.value == 2):
            a = Cast(a, ValueType(DType.INT8))  # NumPy's array power is np.square here
        return binary(op, a, b, node)

    def _Compare(self, node: ast.Compare) -> Expr:
        out: Expr | None = None
        left = self.convert(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if type(op) not in _CMP:
                raise NotAffine(node, _describe(node), "`is`/`in` comparisons are not supported")
            right = self.convert(right_node)
            part = binary(_CMP[type(op)], left, right, node)
            out = part if out is None else Binary("and", out, part, comparison_result(out.type, part.type))
            left = right
        assert out is not None
        return out

    def _BoolOp(self, node: ast.BoolOp) -> Expr:
        op = "and" if isinstance(node.op, ast.And) else "or"
        values: list[Expr] = []
        reached: list[Formula] = []  # affine tests that must have come out right to get here
        for operand in node.values:  # each is evaluated only if the earlier ones let it
            e = self.convert(operand)
            values.append(self._guarded(e, conj(*reached)) if reached else e)
            test = self.scope.affine_test(operand)
            if test is not None:
                reached.append(test if op == "and" else Not(test))
        for value in values:
            if not value.type.dtype.is_bool:
                raise NotAffine(
                    node, f"`{op}`", "operands must be comparisons (Python's value-returning "
                    "`and`/`or` on numbers is not supported)"
                )
        out = values[0]
        for value in values[1:]:
            out = Binary(op, out, value, comparison_result(out.type, value.type))
        return out

    def _IfExp(self, node: ast.IfExp) -> Expr:
        cond = self.convert(node.test)
        a, b = self.convert(node.body), self.convert(node.orelse)
        test = self.scope.affine_test(node.test)
        if test is not None:  # each branch's reads happen only where it is chosen
            a, b = self._guarded(a, test), self._guarded(b, Not(test))
        return self._choice(Select(cond, a, b, choice_type([a.type, b.type])), node)

    def _choice(self, e: Expr, node: ast.AST) -> Expr:
        self.choices[id(e)] = (e, node)
        return e

    def _guarded(self, e: Expr, guard: Formula) -> Expr:
        """:func:`guarded`, which rebuilds the tree: the choices in it stay known."""
        out = guarded(e, guard)
        for old, new in zip(walk(e), walk(out), strict=True):
            if id(old) in self.choices:
                self.choices[id(new)] = (new, self.choices[id(old)][1])
        return out

    # --- calls --------------------------------------------------------------------------

    def _float_constant(self, node: ast.Call) -> Literal | None:
        """``float("inf")``, or ``float(2**70)``, whose int need not fit in 64 bits."""
        if len(node.args) != 1:
            return None
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return Literal(_float_text(arg), WEAK_FLOAT)
        if not all(isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator,
                                  ast.unaryop)) for n in ast.walk(arg)):
            return None
        k = _int_literal(self._operand(arg))
        if k is not None and _as_float(k)[0] in "-0123456789":
            return Literal(float(k), WEAK_FLOAT)
        return None

    def _refuse_len_of_a_number(self, node: ast.Call, fn: str, module: str | None) -> None:
        """An array's ``len()`` is a size or array code; one met here has a number for its
        argument (hostile session 46, 05 was told "unknown function").  A module that
        redefines ``len`` is refused before (``Environment``'s interpreted builtins)."""
        if module is None and fn == "len":
            raise NotAffine(node, f"`{ast.unparse(node)}`", "a scalar has no len() (CPython "
                            "raises TypeError)")

    def _Call(self, node: ast.Call) -> Expr:
        empty = getattr(node, "empty_reduction", None)
        if empty is not None:  # the array lowering's raise of np.max over an empty axis
            op, dtype = empty
            return Call(f"empty_{op}", (), ValueType(dtype))
        if node.keywords:
            raise NotAffine(node, _describe(node.func), "keyword arguments are not supported")
        fn, module = self._callee(node.func)
        nan_aware = module == "np" and fn in ("maximum", "minimum")
        fn = NP_ALIASES.get(fn, fn) if module == "np" else fn
        if module is None and fn not in _BUILTINS:
            inlined = self.scope.helper(node)
            if inlined is not None:
                return self._inline(*inlined)
        self._refuse_len_of_a_number(node, fn, module)
        known = _BUILTINS if module is None else ("min", "max") if module == "np" else ()
        # before the arguments: `np.sum(x)` is an unknown call, not a bad `x`
        if fn not in known and (module is None or not is_library(module, fn)):
            what = fn if module is None else f"{module}.{fn}"
            binding = self.scope.binding(fn) if module is None else None
            raise NotAffine(node, f"call to {what}()", unknown_reason(module, fn, binding))
        constant = self._float_constant(node) if module is None and fn == "float" else None
        if constant is not None:
            return constant
        args = [self.convert(a) for a in node.args]
        if fn in ("min", "max"):
            if module == "np":
                _arity(node, args, 2)
                # a ufunc: NumPy's promotion (np.maximum(x32[i], 2.5) is a float32, not a
                # choice of operands), a NumPy scalar even of two Python scalars
                side = getattr(node, CLIP_BOUND, None)  # np.clip's: (bound, x)
                if side is not None and _clip_bound_past_range(args[1], args[0], side):
                    return args[1]
                _check_python_int(args[0], args[1], node)
                t = ufunc_type(args[0].type, args[1].type)
                # np.maximum/np.minimum return a NaN operand (so np.max does), where
                # max()/min() return an operand chosen by comparison
                if nan_aware and t.dtype.is_float:
                    fn = "maximum" if fn == "max" else "minimum"
                return Call(fn, tuple(args), t)
            if len(args) < 2:
                raise NotAffine(node, f"{fn}()", "needs two or more arguments")
            _compared_pairwise(args, node)
            return self._choice(Call(fn, tuple(args), choice_type([a.type for a in args])), node)
        if module is None and fn == "abs":
            _arity(node, args, 1)
            return Call("abs", tuple(args), args[0].type)
        if module is None:  # float() and int(); int() truncates toward zero, as in C
            _arity(node, args, 1)
            return Cast(args[0], WEAK_FLOAT if fn == "float" else WEAK_INT)
        if module == "np" and fn == "pow" and len(args) == 2 and not any(
                a.type.dtype.is_float for a in args):
            return _integer_power(args[0], args[1], node)
        return library_call(module, fn, args, node)

    def _inline(self, value: ast.expr, where: str) -> Expr:
        try:
            return self.convert(value)
        except NotAffine as e:
            raise NotAffine(e.node, e.construct, e.reason + where) from None

    def _callee(self, func: ast.AST) -> tuple[str, str | None]:
        if isinstance(func, ast.Name):
            imported = self.scope.imported(func.id)  # `from math import sqrt`
            return imported if imported is not None else (func.id, None)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module = self.scope.module_alias(func.value.id)
            if module is not None:
                return func.attr, module
        raise NotAffine(func, f"call to {_describe(func)}", "unknown function")


#: the float constants of the modules (all Python floats, as CPython's are)
_MODULES = {"math": math, "np": np}
_CONSTANTS = {"math": frozenset({"pi", "e", "tau", "inf", "nan"}),
              "np": frozenset({"pi", "e", "inf", "nan"})}


def _float_text(node: ast.Constant) -> float:
    """``float("nan")``, ``float("-inf")``: the float CPython reads from the text."""
    try:
        return float(str(node.value))  # a str: the caller checked
    except ValueError:
        raise NotAffine(node, f"float({node.value!r})", "is not a float (CPython raises "
                        "ValueError)") from None


def choice_type(types: list[ValueType]) -> ValueType:
    """The one static type of ``max``, ``min`` and ``a if c else b``, which CPython
    evaluates to one operand with that operand's own type: the type of a choice that is
    stored, converted or returned (arithmetic on a choice whose operand types would
    change it follows the operand chosen: :mod:`python_choices`).  A float32 or float16
    (or an int narrower than int64) meeting a Python scalar gives a Python scalar's type
    (weak float64, weak int64): it holds either operand's value exactly (``max(x32[i], 0.1)`` may be the double 0.1,
    which a float64 array stores as it is).  Otherwise NumPy's promotion of the operands
    (documented in the README: ``max(x32[i], y64[i])`` is a float64)."""
    t = types[0]
    for u in types[1:]:
        t = promote(t, u)
    strong = [u for u in types if not u.weak]
    if t.weak or len(strong) == len(types):
        return t
    if t.dtype.is_float and t.dtype is not DType.FLOAT64:
        return WEAK_FLOAT
    narrow_int = t.dtype.is_int and t.dtype not in (DType.INT64, DType.UINT64)
    if narrow_int and not any(u.dtype.is_float for u in types):
        return WEAK_INT
    return t


def binary(op: str, a: Expr, b: Expr, node: ast.AST) -> Expr:
    """A typed arithmetic node, NumPy's promotion applied."""
    if op in COMPARISONS:  # NumPy compares a Python int by value: u8[i] > -1, k32[i] == 2**40
        if any(x.type.dtype is DType.UINT64 and y.type.weak and not y.type.dtype.is_float
               and not _non_negative(y) for x, y in ((a, b), (b, a))):
            raise NotAffine(node, "comparison of a uint64 with a Python int", "may be negative "
                            "(NumPy compares them exactly); compare with np.uint64(k) or a "
                            "non-negative constant")
        return Binary(op, a, b, comparison_result(a.type, b.type))
    if op == "/":  # a float division: NumPy converts neither operand to the other's int
        return Binary(op, a, b, true_divide(a.type, b.type))
    _check_python_int(a, b, node)
    if op in BITWISE:
        return _bitwise(op, a, b, node)
    t = arithmetic_type(op, a.type, b.type)
    if t is None:
        raise NotAffine(node, f"`{op}` on NumPy bools", "NumPy raises TypeError (use "
                        "`!=` for exclusive or, or convert with int() first)")
    if op == "**" and not t.dtype.is_float:
        if not _non_negative_exponent(b):
            raise NotAffine(node, "`**` on integers", "the exponent must be a non-negative "
                            "integer constant, a bool or an unsigned int (use float values "
                            "for other powers)")
    return Binary(op, a, b, t)


#: the bitwise operators: on bools logical (NumPy's and CPython's), on ints bitwise
BITWISE = frozenset({"&", "|", "^"})


def _bitwise(op: str, a: Expr, b: Expr, node: ast.AST) -> Expr:
    """``a & b``, ``a | b``, ``a ^ b``: NumPy's promotion (``(x > 0) & (x < 1)`` is a NumPy
    bool, ``k32 & 7`` an int32, ``np.True_ & 3`` an int64); floats raise TypeError in
    NumPy and CPython alike."""
    if a.type.dtype.is_float or b.type.dtype.is_float:
        raise NotAffine(node, f"`{op}` on a float", "NumPy and CPython raise TypeError: "
                        "bitwise operators take bools and ints")
    return Binary(op, a, b, promote(a.type, b.type))


def invert(inner: Expr, node: ast.AST) -> Expr:
    """``~x``: ``not x`` of a NumPy bool (np.invert), ``-x - 1`` of an int, also of a
    Python bool (``~True`` is -2)."""
    if inner.type.dtype.is_float:
        raise NotAffine(node, "`~` on a float", "NumPy and CPython raise TypeError: `~` "
                        "takes bools and ints")
    if inner.type.dtype.is_bool:
        if not inner.type.weak:
            return Unary("not", inner, inner.type)
        inner = Cast(inner, WEAK_INT)
    return Unary("~", inner, inner.type)


def _compared_pairwise(args: list[Expr], node: ast.AST) -> None:
    """Refuse what ``<`` refuses between two of ``args``: ``max`` and ``min`` compare
    them by value (a uint64 and a Python int that may be negative)."""
    for k, a in enumerate(args):
        for b in args[k + 1:]:
            binary("<", a, b, node)


def _non_negative_exponent(b: Expr) -> bool:
    """An int exponent that is never negative (a negative one raises in NumPy and
    CPython): a bool, an unsigned int, or a non-negative constant (``np.int8(2)``)."""
    if b.type.dtype.is_bool or b.type.dtype.is_unsigned:
        return True
    while isinstance(b, Cast):
        b = b.operand
    return isinstance(b, Literal) and isinstance(b.value, int) and b.value >= 0


def _integer_power(a: Expr, b: Expr, node: ast.Call) -> Expr:
    """``np.power`` of ints: NumPy's int power, in the operands' promotion and wrapping
    (``np.power(x32[i], 2)`` is an int32), a NumPy scalar even of Python ints; of two
    bools in int8 (power has no bool loop)."""
    if not _non_negative_exponent(b):
        raise NotAffine(node, "`np.power` of integers", "the exponent must be a non-negative "
                        "integer constant, a bool or an unsigned int (NumPy raises ValueError "
                        "for a negative one; use float values for other powers)")
    if a.type.dtype.is_bool and b.type.dtype.is_bool:
        return Binary("**", a, b, ValueType(DType.INT8))
    power = binary("**", a, b, node)  # NumPy's overflow checks of a Python int operand
    return Binary("**", a, b, ValueType(power.type.dtype))


#: set on the np.maximum / np.minimum calls np.clip is lowered to: "lower" or "upper"
CLIP_BOUND = "_polyopt_clip_bound"


def _clip_bound_past_range(x: Expr, bound: Expr, side: str) -> bool:
    """Whether ``bound``, a Python int bound of np.clip on the fixed-width int ``x``, lies
    past ``x``'s range on its own side (``np.clip(u8, -1, 300)``): NumPy takes it, and
    it clips nothing; past the other side (a lower bound of 300) NumPy raises, as for
    any conversion."""
    value = _int_constant(bound)
    if value is None or not bound.type.weak or x.type.weak or not x.type.dtype.is_int:
        return False
    low, high = x.type.dtype.bounds
    return value < low if side == "lower" else value > high


def _check_python_int(a: Expr, b: Expr, node: ast.AST) -> None:
    """NumPy converts a Python int operand to the other operand's fixed-width int type and
    raises OverflowError when it does not fit (``uint8_array[i] + 300``, ``- 1`` is fine:
    a constant that does not fit is refused here (arguments are checked at the call)."""
    for x, y in ((a, b), (b, a)):
        if not y.type.weak:
            check_fits(x, y.type.dtype, node)


def check_fits(e: Expr, dtype: DType, node: ast.AST) -> None:
    """Refuse ``e`` when it is a Python int constant that NumPy cannot convert to the
    fixed-width int ``dtype`` (it raises OverflowError there)."""
    value = _int_constant(e)
    if value is not None and e.type.weak and dtype.is_int:
        low, high = dtype.bounds
        if not low <= value <= high:
            raise NotAffine(node, f"Python integer {value}", f"is out of bounds for "
                            f"{dtype.value} (NumPy raises OverflowError)")


def _int_constant(e: Expr) -> int | None:
    if isinstance(e, Literal) and isinstance(e.value, int):
        return e.value
    if isinstance(e, Unary) and e.op == "-":
        inner = _int_constant(e.operand)
        return None if inner is None else -inner
    return None


def _non_negative(e: Expr) -> bool:
    value = _int_constant(e)
    return value is not None and value >= 0


def _arity(node: ast.Call, args: list[Expr], n: int) -> None:
    if len(args) != n:
        raise NotAffine(node, _describe(node.func), f"takes {n} argument(s), got {len(args)}")


def _describe(node: ast.AST) -> str:
    try:
        return f"`{ast.unparse(node)}`"
    except Exception:  # pragma: no cover
        return type(node).__name__
