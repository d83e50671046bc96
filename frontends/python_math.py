"""The math library in value position: ``math.f(x)``, ``np.f(x)`` and ``f(x)`` imported
from either module, typed as CPython and NumPy type their results.

- ``math.f`` converts its arguments to Python floats and returns one (weak float64);
  ``math.floor``, ``ceil`` and ``trunc`` return a Python int (the C conversion raises
  where CPython does: NaN, infinities); ``math.isnan``... return a bool.
- ``np.f`` is a ufunc: it returns a NumPy scalar of the promoted float type (float32
  stays float32, an int becomes float64), ``np.floor``... of an int is that int, and
  ``np.isnan``... return a bool.
- ``np.where(c, a, b)`` on scalars is NumPy's result of both operands' promotion, the
  two operands both evaluated (it is a function call, not ``a if c else b``).

Outside a function's domain the result is C's (``nan``, ``inf``), as README documents.
"""

from __future__ import annotations

import ast

from polyopt.frontends.refusal import NotAffine

from polyopt.model.dtypes import (
    BOOL,
    NP_BOOL,
    WEAK_FLOAT,
    DType,
    ValueType,
    promote,
    ufunc_type,
)
from polyopt.model.expr import Call, Cast, Expr, Select

#: float functions of one argument, in both modules unless listed in _MATH_ONLY
_UNARY = ("sqrt exp log fabs sin cos tan tanh asin acos atan sinh cosh asinh acosh "
          "atanh log2 log10 log1p expm1 erf erfc lgamma").split()
_MATH_ONLY = frozenset({"erf", "erfc", "lgamma"})  # NumPy has no such ufunc
_BINARY = ("pow", "atan2", "hypot", "copysign", "fmod")
ROUNDING = frozenset({"floor", "ceil", "trunc"})
CLASSIFY = frozenset({"isnan", "isinf", "isfinite"})
#: every math function the frontend compiles, by its C name
MATH_FUNCTIONS = frozenset(_UNARY) | frozenset(_BINARY) | ROUNDING | CLASSIFY
#: NumPy's names for them (and for the builtins it mirrors)
NP_ALIASES = {"absolute": "abs", "power": "pow", "minimum": "min",
              "maximum": "max", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
              "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}
#: NumPy's scalar types, called as casts
NP_CASTS = {d.value: d for d in DType} | {"bool_": DType.BOOL}
SUPPORTED = ("math and NumPy functions " + " ".join(sorted(MATH_FUNCTIONS)) + ", np."
             + " np.".join(sorted(NP_ALIASES)) + ", np.where, "
             "np.float64/float32/float16/int64.../uint8/bool_, abs, min, max, int, float; "
             "NumPy's array functions (np.sum, np.clip, np.dot...) on arrays: README")


def is_library(module: str, fn: str) -> bool:
    """Whether ``module.fn`` (module "math" or "np", NumPy names translated) is here."""
    if module == "np":
        return (fn in MATH_FUNCTIONS and fn not in _MATH_ONLY) or fn in NP_CASTS or fn in (
            "where", "abs")
    return fn in MATH_FUNCTIONS


def unknown_reason(module: str | None, fn: str, binding: str | None = None) -> str:
    """Why ``module.fn`` is refused, and what to write instead; for a bare name
    (``module`` None), ``binding`` is what the name is bound to (None: nothing)."""
    if module is None and fn in MATH_FUNCTIONS:  # `sqrt` not bound to math.sqrt
        library = f"math.{fn}" + ("" if fn in _MATH_ONLY else f" or np.{fn}")
        if binding is None:
            return (f"`{fn}` is not defined (CPython raises NameError); import the "
                    f"library's: `from math import {fn}`")
        return f"`{fn}` is {binding}, not {library}, and polyopt compiles only the library's"
    if module is None and binding is None:
        return f"unknown function: `{fn}` is not defined (CPython raises NameError)"
    if module == "np" and fn in _MATH_ONLY:
        return f"NumPy has no {fn} ufunc (use math.{fn})"
    if module == "np" and fn in ALLOCATIONS:
        return ("allocates a new array, which only the value of an assignment at the top "
                f"level of the function may do: write `t = np.{fn}(...)` first, then use or "
                "return `t`")
    bound = "" if binding is None else f": `{fn}` is {binding}"
    return f"unknown function{bound} (supported: {SUPPORTED})"


#: NumPy's allocations (python_bindings declares them; anywhere else they are refused)
ALLOCATIONS = frozenset({"empty", "zeros", "ones", "full", "empty_like", "zeros_like",
                          "ones_like", "full_like"})


def library_call(module: str, fn: str, args: list[Expr], node: ast.Call) -> Expr:
    """The typed expression of ``module.fn(*args)``."""
    if fn in NP_CASTS:
        _arity(node, args, 1)
        # NumPy's own cast: a NumPy float wraps into int8 or int16 (backend_c.narrow)
        return Cast(args[0], ValueType(NP_CASTS[fn]), unsafe=args[0].type.dtype.is_float)
    if fn == "abs":  # np.abs(k) is an int, of k's dtype (np.fabs(k) is a float)
        _arity(node, args, 1)
        return Call("abs", (args[0],), ValueType(args[0].type.dtype))
    if fn == "where":
        _arity(node, args, 3)
        t = ufunc_type(args[1].type, args[2].type)  # a 0-d array: strong
        a, b = (_where_operand(x, t) for x in args[1:])
        return Select(args[0], a, b, t)
    _arity(node, args, 2 if fn in _BINARY else 1)
    if fn == "fmod" and module == "np" and not any(a.type.dtype.is_float for a in args):
        raise NotAffine(node, "`np.fmod` on integers", "is not supported (use `%`, or float operands)")
    if module == "math" and fn == "trunc" and not args[0].type.weak and \
            args[0].type.dtype is not DType.FLOAT64:
        # (hostile session 48a, 12: math.trunc(x32[0]) was computed)
        raise NotAffine(node, f"`math.trunc` of a NumPy {args[0].type.dtype.value}",
                        "CPython raises TypeError (NumPy scalars other than float64 define no "
                        "__trunc__); use np.trunc, or int() for a Python int")
    if module == "math" and fn in ROUNDING:
        if not args[0].type.dtype.is_float:  # math.floor(k) is k, a Python int
            return Cast(args[0], ValueType(DType.INT64, weak=True))
        return Cast(Call(fn, (args[0],), WEAK_FLOAT), ValueType(DType.INT64, weak=True))
    return Call(fn, tuple(args), call_type(module, fn, [a.type for a in args]))


def _where_operand(x: Expr, t: ValueType) -> Expr:
    """An operand of ``np.where`` converted to its result type ``t``.  NumPy converts a
    Python int there as a C long, wrapping (``np.where(c, u8, -1)`` is 255 where it
    chooses -1), where an operator raises OverflowError: so through a NumPy int64, which
    wraps too."""
    if x.type == t:
        return x
    if x.type.weak and x.type.dtype.is_int and t.dtype.is_int:
        x = Cast(x, ValueType(DType.INT64))
    return x if x.type == t else Cast(x, t)


def call_type(module: str, fn: str, types: list[ValueType]) -> ValueType:
    """The type of ``module.fn(...)`` on operands of ``types`` (a math function)."""
    if fn in CLASSIFY:
        return BOOL if module == "math" else NP_BOOL
    if module == "math":
        return WEAK_FLOAT
    t = types[0]
    for u in types[1:]:
        t = promote(t, u)
    if fn in ROUNDING and not t.dtype.is_float:
        return ValueType(t.dtype)  # np.floor(k) is k, as a NumPy int
    # a ufunc returns a NumPy scalar, never a Python one: np.cos(-0.75) is a strong
    # float64, so a float32 array times it computes in float64 (NEP 50); an int computes
    # in the smallest float that holds it (np.sin of an int8 is a float16)
    if t.weak:
        return ValueType(t.dtype if t.dtype.is_float else DType.FLOAT64)
    if not any(u.weak and u.dtype.is_float for u in types):
        # NumPy's loop is the smallest float each operand casts to safely, not the float
        # of their int promotion: np.arctan2 of an int8 and a uint8 is a float16, not the
        # float32 of an int16 (a Python int takes the other operand's int type, and
        # beside bools is an int64)
        bools = all(u.dtype.is_bool for u in types if not u.weak)
        f: ValueType | None = None
        for u in types:
            if u.weak and not (bools and not u.dtype.is_bool):
                continue
            own = ValueType(DType.INT64) if u.weak else u
            if not own.dtype.is_float:
                own = promote(ValueType(own.dtype), ValueType(DType.FLOAT16))
            f = own if f is None else promote(f, own)
        assert f is not None
        return ValueType(f.dtype)
    return promote(ValueType(t.dtype), ValueType(DType.FLOAT16))


def _arity(node: ast.Call, args: list[Expr], n: int) -> None:
    if len(args) != n:
        raise NotAffine(node, f"`{ast.unparse(node.func)}`", f"takes {n} argument(s), got {len(args)}")
