"""Printing statement bodies as C (isl's loop bounds are :mod:`polyopt.backend_c.ast_expr`'s).

Statement bodies follow the types the frontend inferred; every mixed-type
operation is cast explicitly, so C's own promotion rules never decide a result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from polyopt.model.aff import FloorDiv, Lin
from polyopt.model.dtypes import BOOL, DType, ValueType, compare_type
from polyopt.model.expr import Binary, Call, Cast, Expr, Literal, Load, Name, Select, Unary


def int64_literal(v: int) -> str:
    """An int64 constant: ``INT64_C`` beyond ``int``'s range."""
    return f"INT64_C({v})" if not -(2**31) < v < 2**31 else str(v)


def lin(e: Lin, rename: Mapping[str, str] | None = None) -> str:
    """C text of an affine integer expression (names replaced by ``rename``'s texts)."""
    parts: list[str] = []
    for atom, c in e.terms:
        if isinstance(atom, str):
            text = rename.get(atom, atom) if rename else atom
        else:
            text = _floor(atom, rename)
        parts.append(text if c == 1 else f"{int64_literal(c)} * {text}")
    if e.const or not parts:
        parts.append(int64_literal(e.const))
    out = " + ".join(parts).replace("+ -", "- ")
    return out if len(parts) == 1 else f"({out})"


def _floor(f: FloorDiv, rename: Mapping[str, str] | None = None) -> str:
    return f"polyopt_floord({lin(f.num, rename)}, {f.den})"


def flat_index(indices: tuple[Lin, ...], shape: tuple[Lin, ...],
               rename: Mapping[str, str] | None = None) -> str:
    """Row-major offset of ``indices`` (names replaced by ``rename``'s texts) in an
    array of ``shape``."""
    if not indices:
        return "0"
    out = lin(indices[0], rename)
    for k, (ix, extent) in enumerate(zip(indices[1:], shape[1:], strict=True)):
        # ((i0 * n1 + i1) * n2 + i2): the partial offset is one operand of the product
        out = f"{out if k == 0 else f'({out})'} * {lin(extent)} + {lin(ix, rename)}"
    return out


def ctype(t: ValueType | DType) -> str:
    return (t.dtype if isinstance(t, ValueType) else t).c_name


def scalar_ctype(t: ValueType) -> str:
    """The C type of a scalar passed to or returned from the kernel: float16 travels as a
    float (cffi has no _Float16; a float holds every float16 exactly)."""
    return "float" if t.dtype is DType.FLOAT16 else t.dtype.c_name


_MATH = frozenset((
    "sqrt exp log sin cos tan tanh fabs pow asin acos atan sinh cosh asinh acosh atanh log2 "
    "log10 log1p expm1 erf erfc lgamma atan2 hypot copysign fmod floor ceil trunc").split())
_CLASSIFY = frozenset({"isnan", "isinf", "isfinite"})
_ROUNDING = frozenset({"floor", "ceil", "trunc"})



def _unsigned_64(t: ValueType) -> bool:
    return t.dtype is DType.UINT64

class Hoisted:
    """The loads of one loop iteration, each read once into a local.

    Used for register-tiled micro-kernels, whose unrolled copies read the same
    elements (``B[k][j+s]`` in every row, ``A[i+r][k]`` in every column) and write
    only accumulators in locals, so that no store can come between two of the reads.
    Reading each element once into a named local is what lets gcc pack the row of
    B into vector registers and broadcast each element of A.
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.locals: dict[str, tuple[str, str]] = {}  # load text -> (local, array)

    def local(self, array: str, text: str) -> str:
        if text not in self.locals:
            self.locals[text] = (f"{self.base}{len(self.locals)}", array)
        return self.locals[text][0]


class BodyPrinter:
    """Prints statement bodies; ``arrays`` maps array names to their shapes."""

    def __init__(self, shapes: dict[str, tuple[Lin, ...]]) -> None:
        self.shapes = shapes
        self.substitute: dict[tuple[str, tuple[Lin, ...]], str] = {}  # element -> local (LICM)
        # row pointer (array, all subscripts but the last) -> the local holding it, for
        # the statement printed now (a C region's ``double **A`` in a simd loop)
        self.rows: dict[tuple[str, tuple[Lin, ...]], str] = {}
        # While printing a micro-kernel's loop body: every load, its subscripts in terms
        # of the loop counters (``env``), becomes a local read once per iteration.
        self.hoisted: Hoisted | None = None
        self.env: dict[str, str] = {}
        self.lin_env: dict[str, Lin] = {}  # the same, as Lin where the AST gives one
        # float32 results of exp/log/sin/cos through glibc's vector variants (prelude)
        self.vector_math = False
        self.vector_math_used = False  # whether some printed text calls them
        # ``x ** 2`` as CPython computes it, through libm's pow (strict_fp): glibc's pow
        # misses the exactly rounded ``x * x`` by an ulp for about 1 double in 1,000
        self.libm_square = False
        self.lgamma_used = False  # whether some printed text calls polyopt_lgamma (prelude)
        self.nan_minmax_used = False  # whether it calls polyopt_maximum/minimum (prelude)
        self.pyint_fit_used = False  # whether it calls polyopt_fit (prelude.PYINT_FIT)
        self.exact_compare_used = False  # whether it calls prelude.EXACT_COMPARE
        # Python int arguments the call checks for each narrow int (python_ints.py)
        self.call_checked: Mapping[DType, frozenset[str]] = {}
        self.empty_reduction_used = False  # whether it raises prelude.EMPTY_REDUCTION
        self.python_pow_used = False  # whether it calls prelude.PYTHON_POW
        self.python_hypot_used = False  # whether it calls prelude.PYTHON_HYPOT
        # Python's integer contract (README "Integers"): wrapping +, -, *; a division by
        # a value that may be zero, and a float converted to an int, set the error flag
        # ERROR_FLAG.  Off for C regions, whose operators are the file's own.
        self.checked = False
        self.raises = False  # whether some printed text sets the flag
        # float16 operations computed in float32 and rounded one by one, as NumPy's
        # loops do.  Off for C regions: gcc evaluates a _Float16 expression in float
        # and rounds where the file assigns or casts, so the file's own operators keep
        # its results
        self.numpy_float16 = False

    def load(self, array: str, indices: tuple[Lin, ...]) -> str:
        local = self.substitute.get((array, indices))
        if local is not None:
            return local
        if self.hoisted is not None:
            if self.lin_env and all(v in self.lin_env for ix in indices for v in ix.names()):
                # subscripts in the loop counters, simplified: the panel element
                # B_pk[(8 * c3 + 3) // 8, k, (8 * c3 + 3) % 8] is B_pk[c3, k, 3]
                exact = tuple(ix.substitute(self.lin_env) for ix in indices)
                return self.hoisted.local(array, f"{array}[{flat_index(exact, self.shapes[array])}]")
            return self.hoisted.local(array, f"{array}[{flat_index(indices, self.shapes[array], self.env)}]")
        return f"{array}[{flat_index(indices, self.shapes[array])}]"

    def expr(self, e: Expr) -> str:
        """C text of ``e``, children first, left to right (loads are hoisted in that
        order), with an explicit stack: a sum of a thousand terms is as deep a tree."""
        texts: dict[int, str] = {}
        stack: list[tuple[Expr, bool]] = [(e, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                texts[id(node)] = self._node(node, texts)
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(_children(node)) if id(c) not in texts)
        return texts[id(e)]

    def typed(self, e: Expr, t: ValueType) -> str:
        """``e`` converted to the C type of ``t`` when it differs."""
        return self._typed(e, self.expr(e), t)

    def _typed(self, e: Expr, text: str, t: ValueType) -> str:
        if e.type.dtype == t.dtype:
            return text
        if isinstance(e, Literal) and not (self.checked and t.dtype.is_int and (
                not _float_fits(e.value, t.dtype) if isinstance(e.value, float)
                else self._python_int_may_not_fit(e, t))):
            return literal(e.value, t)
        return self._convert(e, text, t)

    def _convert(self, e: Expr, text: str, t: ValueType, unsafe: bool = False) -> str:
        """``text``, the C text of ``e``, converted to ``t`` (``unsafe``: by NumPy's cast of
        arrays, :attr:`Cast.unsafe`)."""
        if self.checked and t.dtype.is_int and isinstance(e, Select) and \
                e.then.type != e.otherwise.type:
            # NumPy converts the value the choice made: it wraps a NumPy int, where a
            # Python int or a float that does not fit raises (finding 018)
            return (f"({self.expr(e.cond)} ? {self.typed(e.then, t)} : "
                    f"{self.typed(e.otherwise, t)})")
        if self.checked and t.dtype.is_int and isinstance(e, Call) and e.fn in ("min", "max") \
                and len({a.type for a in e.args}) > 1:
            # the same for Python's min and max, which return one operand as it is:
            # max(a, b, c) is c if c > max(a, b) else max(a, b), as CPython compares
            *rest_args, last = e.args
            rest = rest_args[0] if len(rest_args) == 1 else Call(e.fn, tuple(rest_args), e.type)
            cond = Binary(">" if e.fn == "max" else "<", last, rest, BOOL)
            return f"({self.expr(cond)} ? {self.typed(last, t)} : {self.typed(rest, t)})"
        source = e.type
        if self.checked and source.dtype.is_float and t.dtype.is_int:
            self.raises = True
            # NumPy wraps a NumPy float stored in an unsigned int, and one cast to int8 or
            # int16 by astype, np.int8() or a slice store (an element store raises)
            if not source.weak and (t.dtype.is_unsigned or unsafe and t.dtype in (
                    DType.INT8, DType.INT16)):
                return f"polyopt_np_to_{_suffix(t.dtype)}({text}, {ERROR_FLAG})"
            return f"polyopt_to_{_suffix(t.dtype)}({text}, {ERROR_FLAG})"
        if self.checked and t.dtype.is_float and source.dtype.is_int and isinstance(e, Cast) \
                and e.operand.type.dtype.is_float and text.startswith("polyopt_to_"):
            # an int made from a float (checked: trunc(x) where no error), back to a
            # float: gcc folds (double)(int64_t)x into trunc(x) even past a `+ 0.0`, which
            # keeps the sign of a zero that the int 0 does not have (math.ceil(-0.5) * 1.0)
            return f"(({ctype(t)})({text}, trunc({self.expr(e.operand)}) + 0.0))"
        if self.checked and source.dtype is DType.UINT64 and t.weak and t.dtype is DType.INT64:
            # a Python int of a uint64: exact in CPython, past int64 here (48a, 01)
            self.raises = self.pyint_fit_used = True
            return f"polyopt_u64_int({text}, {ERROR_FLAG})"
        if self._python_int_may_not_fit(e, t):
            low, high = t.dtype.bounds
            self.raises = self.pyint_fit_used = True
            text = (f"polyopt_fit({text}, {int64_literal(low)}, "
                    f"{int64_literal(min(high, 2**63 - 1))}, {ERROR_FLAG})")
        return f"(({ctype(t)}){text})"

    def _python_int_may_not_fit(self, e: Expr, t: ValueType) -> bool:
        """Whether ``e``, a Python int that NumPy converts to the narrower int ``t`` (and
        raises OverflowError where it does not fit), needs the run-time check: not where
        it provably fits, may be a NumPy int (which NumPy wraps), or is an argument the
        call already checked."""
        if not (self.checked and e.type.weak and e.type.dtype.is_int and t.dtype.is_int
                and not t.weak and t.dtype is not DType.INT64):
            return False
        return not (_fits(e, t.dtype) or _may_be_numpy_int(e, t.dtype) or (
            isinstance(e, Name) and e.name in self.call_checked.get(t.dtype, ())))

    def _node(self, e: Expr, texts: dict[int, str]) -> str:
        """C text of one node, its children's texts already in ``texts``."""
        def sub(x: Expr) -> str:
            return texts[id(x)]

        def typed(x: Expr, t: ValueType) -> str:
            return self._typed(x, texts[id(x)], t)

        if isinstance(e, Literal):
            return literal(e.value, e.type)
        if isinstance(e, Name):
            return e.name
        if isinstance(e, Load):
            return self.load(e.array, e.indices)
        if isinstance(e, Cast):
            if e.operand.type.dtype == e.type.dtype:
                return sub(e.operand)
            if self.vector_math and e.type.dtype is DType.FLOAT32 and _vectorizable_call(e.operand):
                # rounded to float32, a <= 4-ulp float64 result is almost always the
                # correctly rounded one's float (docs/design/backend-c.md)
                call = e.operand
                assert isinstance(call, Call)
                args = ", ".join(typed(a, call.type) for a in call.args)
                self.vector_math_used = True
                return f"((float)polyopt_v{call.fn}({args}))"
            return self._convert(e.operand, sub(e.operand), e.type, e.unsafe)
        if isinstance(e, Unary):
            return self._unary(e, sub(e.operand))
        if isinstance(e, Select):
            return f"({sub(e.cond)} ? {typed(e.then, e.type)} : {typed(e.otherwise, e.type)})"
        if isinstance(e, Binary):
            return self._binary(e, typed, sub)
        if isinstance(e, Call):
            return self._call(e, typed)
        raise TypeError(e)

    def _unary(self, e: Unary, operand: str) -> str:
        if e.op == "not":
            return f"(!{operand})"
        if e.op == "~":  # two's complement, in the operand's own width
            return f"(({ctype(e.type)})~{operand})"
        if self.checked and e.type.dtype.is_int:
            value = _constant(e)
            if isinstance(value, int) and -(2**31) < value < 2**31:  # `-1`: a literal
                return literal(value, e.type)
            return f"polyopt_neg_{_suffix(e.type.dtype)}({operand})"
        # a negative literal (`-float(-2)` folds to `-2.0`): `--2.0` is C's decrement
        return f"(-({operand}))" if operand.startswith("-") else f"(-{operand})"

    def _binary(self, e: Binary, typed: Callable[[Expr, ValueType], str],
                sub: Callable[[Expr], str]) -> str:
        if e.op in ("and", "or"):
            return f"({sub(e.lhs)} {'&&' if e.op == 'and' else '||'} {sub(e.rhs)})"
        if e.op in ("<", "<=", ">", ">=", "==", "!="):
            signs = (_unsigned_64(e.lhs.type), _unsigned_64(e.rhs.type))
            if self.checked and signs in ((True, False), (False, True)) and not any(
                    x.type.dtype.is_float or x.type.dtype.is_bool or x.type.weak
                    for x in (e.lhs, e.rhs)):
                # a uint64 and a signed NumPy int: NumPy compares them exactly, where
                # their promotion (float64) would round both
                u, s = (e.lhs, e.rhs) if signs[0] else (e.rhs, e.lhs)
                self.exact_compare_used = True
                cmp = (f"polyopt_cmp_u64_i64({typed(u, ValueType(DType.UINT64))}, "
                       f"{typed(s, ValueType(DType.INT64))})")
                return f"({cmp} {e.op} 0)" if signs[0] else f"(0 {e.op} {cmp})"
            t = compare_type(e.lhs.type, e.rhs.type)
            return f"({typed(e.lhs, t)} {e.op} {typed(e.rhs, t)})"
        t = e.type
        a, b = typed(e.lhs, t), typed(e.rhs, t)
        suffix = _suffix(t.dtype)
        wrap = self.checked and t.dtype.is_int
        if wrap and e.op in _WRAPPING:
            return f"polyopt_{_WRAPPING[e.op]}_{suffix}({a}, {b})"
        if t.dtype.is_bool and e.op in _LOGICAL:  # NumPy: bool + bool is or, * is and
            return f"({a} {_LOGICAL[e.op]} {b})"
        if e.op in ("&", "|", "^"):  # of two bools a bool, of ints in their width
            return f"({a} {e.op} {b})" if t.dtype.is_bool else f"(({ctype(t)})({a} {e.op} {b}))"
        if self.numpy_float16 and t.dtype is DType.FLOAT16 and e.op in ("+", "-", "*", "/"):
            # NumPy computes each float16 operation in float32 and rounds it to float16
            return f"((_Float16)((float){a} {e.op} (float){b}))"
        if e.op in ("+", "-", "*", "/"):
            return f"({a} {e.op} {b})"
        if e.op in ("c/", "c%"):  # C's integer division and remainder (truncating)
            return f"({a} {e.op[1]} {b})"
        if e.op in ("//", "%"):
            fn = "floordiv" if e.op == "//" else "mod"
            if wrap and not _constant(e.rhs):  # a division by a run-time value, or by 0
                self.raises = True
                return f"polyopt_{fn}_{suffix}_chk({a}, {b}, {ERROR_FLAG})"
            return f"polyopt_{fn}_{suffix}({a}, {b})"
        if e.op == "**":
            return self._power(e, a, b, wrap)
        raise NotImplementedError(e.op)

    def _power(self, e: Binary, a: str, b: str, wrap: bool) -> str:
        """``a ** b``, its operands' C texts ``a`` and ``b`` in the result's type."""
        t, suffix = e.type, _suffix(e.type.dtype)
        if isinstance(e.rhs, Literal) and e.rhs.value == 2 and not (
                self.libm_square and t.dtype.is_float):
            pure = _pure(e.lhs) and not wrap and t.dtype is not DType.FLOAT16
            return f"({a} * {a})" if pure else f"polyopt_square_{suffix}({a})"
        if not t.dtype.is_float:
            return f"polyopt_ipow_{suffix}({a}, {b})"
        if self.checked and t.weak and e.lhs.type.weak and e.rhs.type.weak:
            # two Python scalars: CPython's float power (prelude.PYTHON_POW)
            self.raises = self.python_pow_used = True
            return f"polyopt_pypow({a}, {b}, {ERROR_FLAG})"
        return _float_call("pow", t.dtype, f"{a}, {b}")

    def _call(self, e: Call, typed: Callable[[Expr, ValueType], str]) -> str:
        t = e.type
        suffix = _suffix(t.dtype)
        if e.fn in ("min", "max", "maximum", "minimum"):
            self.nan_minmax_used |= e.fn in ("maximum", "minimum")
            out = typed(e.args[0], t)
            for a in e.args[1:]:
                out = f"polyopt_{e.fn}_{suffix}({out}, {typed(a, t)})"
            return out
        if e.fn == "abs" or (e.fn == "fabs" and not t.dtype.is_float):
            if t.dtype.is_bool:
                return typed(e.args[0], t)
            if not t.dtype.is_float:
                return f"polyopt_abs_{suffix}({typed(e.args[0], t)})"
            return _float_call("fabs", t.dtype, typed(e.args[0], t))
        if e.fn in ("empty_maximum", "empty_minimum"):  # a reduction over an empty axis
            self.raises = self.empty_reduction_used = True
            flag = f"POLYOPT_EMPTY_{e.fn[len('empty_'):].upper()}"
            return f"(polyopt_raise({ERROR_FLAG}, {flag}), ({ctype(t)})0)"
        if e.fn in _CLASSIFY:  # C's macros give any nonzero int for true
            x = e.args[0]
            at = x.type if x.type.dtype in (DType.FLOAT32, DType.FLOAT64) else ValueType(
                DType.FLOAT32 if x.type.dtype is DType.FLOAT16 else DType.FLOAT64)
            return f"({e.fn}({typed(x, at)}) != 0)"
        if e.fn in _ROUNDING and not t.dtype.is_float:  # np.floor(k) is k
            return typed(e.args[0], t)
        assert e.fn in _MATH, e.fn
        name = e.fn
        if e.fn == "hypot" and self.checked and t.weak:  # math.hypot: CPython's own
            self.python_hypot_used = True
            return f"polyopt_pyhypot({', '.join(typed(a, t) for a in e.args)})"
        if e.fn == "lgamma":  # lgamma sets the global signgam: a race in a parallel loop
            self.lgamma_used = True
            name = "polyopt_" + name
        return _float_call(name, t.dtype, ", ".join(typed(a, t) for a in e.args))


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Cast, Unary)):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.lhs, e.rhs)
    if isinstance(e, Select):
        return (e.cond, e.then, e.otherwise)
    if isinstance(e, Call):
        return e.args
    return ()


#: The C name of the kernel's error flag (an ``int32_t *``), set where Python raises.
ERROR_FLAG = "polyopt_err"
_WRAPPING = {"+": "add", "-": "sub", "*": "mul"}
_LOGICAL = {"+": "|", "*": "&"}

_VECTOR_MATH = {"exp", "log", "sin", "cos"}


def _vectorizable_call(e: Expr) -> bool:
    return isinstance(e, Call) and e.fn in _VECTOR_MATH and e.type.dtype is DType.FLOAT64


def _fits(e: Expr, dtype: DType) -> bool:
    """Whether every value of ``e`` is known to fit ``dtype``: constants, choices and
    truth values of them, and remainders by a small constant (a run-time check would
    only slow the loop down, and keep gcc from vectorizing it)."""
    if e.type.dtype.is_bool:
        return True
    if isinstance(e, Select):
        return _fits(e.then, dtype) and _fits(e.otherwise, dtype)
    low, high = dtype.bounds
    if isinstance(e, Binary) and e.op == "%":  # Python's: in [0, c) for a constant c > 0
        c = _constant(e.rhs)
        return isinstance(c, int) and 0 < c and low <= 0 and c - 1 <= high
    value = _constant(e)
    return isinstance(value, int) and low <= value <= high


def _float_fits(value: float, dtype: DType) -> bool:
    """Whether a float converts to the int ``dtype`` without Python raising."""
    low, high = dtype.bounds
    return math.isfinite(value) and low <= math.trunc(value) <= high


def _may_be_numpy_int(e: Expr, dtype: DType) -> bool:
    """Whether a value typed as a Python int may hold, at run time, a NumPy int outside
    ``dtype``'s range: a choice (``min(i32[i], 5)``, and arithmetic on it) returns the
    operand it chose, and NumPy wraps a NumPy int into ``dtype`` where a Python int that
    does not fit raises.  Such a value is not checked (it cannot be told apart in C)."""
    lo, hi = dtype.bounds
    stack = [e]
    while stack:
        x = stack.pop()
        if not x.type.weak:
            if x.type.dtype.is_int and not (lo <= x.type.dtype.bounds[0]
                                            and x.type.dtype.bounds[1] <= hi):
                return True
        elif not isinstance(x, Cast):  # int(x) is a Python int, whatever x holds
            stack.extend(_children(x))
    return False


def _constant(e: Expr) -> int | float | None:
    """The value of a literal, possibly negated or cast; None for anything else."""
    if isinstance(e, Literal):
        return e.value
    if isinstance(e, (Unary, Cast)) and getattr(e, "op", "-") == "-":
        inner = _constant(e.operand)
        if inner is None:
            return None
        return -inner if isinstance(e, Unary) else inner
    return None


def _pure(e: Expr) -> bool:
    return isinstance(e, (Name, Load, Literal))


def _suffix(d: DType) -> str:
    """The suffix of the prelude's helpers for ``d`` (``polyopt_add_u8``)."""
    return "b" if d.is_bool else f"{d.value[0]}{d.bits}"


def _float_call(name: str, d: DType, args: str) -> str:
    """The C library's ``name`` in the precision of ``d``: ``sinf`` for float32; float16
    computes in float32 and rounds the result, as NumPy's float16 loops do."""
    if d is DType.FLOAT64:
        return f"{name}({args})"
    call = f"{name}f({args})"
    return f"((_Float16){call})" if d is DType.FLOAT16 else call


def float_text(v: float, nan: str = "NAN", inf: str = "INFINITY") -> str:
    """A double literal; ``nan`` and ``inf`` spell the two values no digits write."""
    if math.isnan(v):
        return nan
    if math.isinf(v):
        return inf if v > 0 else f"(-{inf})"
    text = repr(v)
    return text if "e" in text or "." in text else text + ".0"


def literal(value: int | float, t: ValueType) -> str:
    if t.dtype.is_float:
        text = float_text(float(value))
        return text if t.dtype is DType.FLOAT64 else f"(({t.dtype.c_name}){text})"
    if t.dtype.is_bool:
        return "1" if value else "0"
    v = int(value)
    if t.dtype is DType.INT64:
        return int64_literal(v)
    if t.dtype is DType.UINT64:
        return f"UINT64_C({v % 2**64})"
    return f"(({t.dtype.c_name}){int64_literal(v)})"
