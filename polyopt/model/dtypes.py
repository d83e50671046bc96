"""Element types and NumPy-compatible type promotion.

polyopt follows NumPy 2 (NEP 50) promotion: Python scalars (literals, loop
variables, ``int``/``float`` arguments) are *weak* and take the kind's type of
the strong operand, so ``float32_array[i] * 2.0`` stays float32 and
``uint8_array[i] + 1`` stays uint8 (wrapping), exactly as the function behaves
under CPython.  Between NumPy types the result is ``np.promote_types``':
``uint8 + int8`` is int16, ``uint64 + int64`` float64, ``int16 + float16`` float32.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class DType(enum.Enum):
    """The element types polyopt compiles."""

    BOOL = "bool"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    UINT64 = "uint64"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"

    @property
    def is_float(self) -> bool:
        return self in (DType.FLOAT16, DType.FLOAT32, DType.FLOAT64)

    @property
    def is_bool(self) -> bool:
        return self is DType.BOOL

    @property
    def is_unsigned(self) -> bool:
        return self.value.startswith("uint")

    @property
    def is_int(self) -> bool:
        """A signed or unsigned integer (not bool, not float)."""
        return not (self.is_float or self.is_bool)

    @property
    def c_name(self) -> str:
        return _C_NAMES[self]

    @property
    def bits(self) -> int:
        return 8 if self is DType.BOOL else int(self.value.removeprefix("u").lstrip("intfloa"))

    @property
    def bounds(self) -> tuple[int, int]:
        """The smallest and largest value of an integer (or bool) type."""
        if self.is_bool or self.is_unsigned:
            return 0, 1 if self.is_bool else 2**self.bits - 1
        return -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1


_C_NAMES = {
    DType.BOOL: "bool",  # <stdbool.h>'s _Bool: one byte holding 0 or 1, as NumPy's bool
    DType.INT8: "int8_t",
    DType.INT16: "int16_t",
    DType.INT32: "int32_t",
    DType.INT64: "int64_t",
    DType.UINT8: "uint8_t",
    DType.UINT16: "uint16_t",
    DType.UINT32: "uint32_t",
    DType.UINT64: "uint64_t",
    DType.FLOAT16: "_Float16",  # gcc >= 12 on x86-64 and AArch64
    DType.FLOAT32: "float",
    DType.FLOAT64: "double",
}

#: NumPy's names of the dtypes (``np.bool_`` is the scalar type of ``bool``)
_NUMPY_NAMES = {d.value: d for d in DType} | {"bool_": DType.BOOL}


def numpy_named(name: str) -> DType | None:
    """The dtype NumPy calls ``name`` (``"uint8"``, ``"bool_"``), or None."""
    return _NUMPY_NAMES.get(name)


@dataclass(frozen=True)
class ValueType:
    """The type of a value in a statement: an element type, and whether it is weak."""

    dtype: DType
    weak: bool = False

    def __str__(self) -> str:
        return f"{self.dtype.value}{' (python scalar)' if self.weak else ''}"


WEAK_INT = ValueType(DType.INT64, weak=True)
WEAK_FLOAT = ValueType(DType.FLOAT64, weak=True)
#: A Python bool (a comparison of Python scalars, ``True``); NumPy treats it as np.bool_
#: beside NumPy values, and Python's arithmetic makes it an int beside Python numbers.
BOOL = ValueType(DType.BOOL, weak=True)
#: A NumPy bool (np.bool_): a comparison with a NumPy operand, an element of a bool array.
NP_BOOL = ValueType(DType.BOOL)


def promote(a: ValueType, b: ValueType) -> ValueType:
    """NumPy 2 promotion of two operand types (weak Python scalars adapt)."""
    if a.weak and b.weak:
        if a.dtype.is_float or b.dtype.is_float:
            return WEAK_FLOAT
        return WEAK_INT
    if a.weak or b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        if weak.dtype.is_bool:  # Python's bool is the lowest kind: np.int8(1) + True is int8
            return ValueType(strong.dtype)
        if weak.dtype.is_float:
            return ValueType(strong.dtype if strong.dtype.is_float else DType.FLOAT64)
        # a Python int takes the strong int's type; beside a bool it is the default int
        return ValueType(DType.INT64 if strong.dtype.is_bool else strong.dtype)
    return ValueType(_promote_strong(a.dtype, b.dtype))


def ufunc_type(a: ValueType, b: ValueType) -> ValueType:
    """The NumPy scalar that ``np.where``, ``np.maximum`` and ``np.minimum`` return for
    operands of ``a`` and ``b``: their promotion, strong; of two Python bools a NumPy bool
    (``np.where(c, True, False)``), where Python's arithmetic makes an int."""
    if a == b == BOOL:
        return NP_BOOL
    return ValueType(promote(a, b).dtype)


_FLOATS = (DType.FLOAT16, DType.FLOAT32, DType.FLOAT64)
_SIGNED = {8: DType.INT8, 16: DType.INT16, 32: DType.INT32, 64: DType.INT64}


def _promote_strong(a: DType, b: DType) -> DType:
    """NumPy's ``promote_types`` on polyopt's dtypes: the smallest type that holds every
    value of both (a float holds an int exactly when its mantissa is wider)."""
    if a.is_bool or b.is_bool:
        return b if a.is_bool else a
    if a.is_float or b.is_float:
        least = max(x.bits for x in (a, b) if x.is_float)
        widest_int = max((x.bits for x in (a, b) if x.is_int), default=0)
        return next(f for f in _FLOATS if f.bits >= least and (f.bits > widest_int or f.bits == 64))
    if a.is_unsigned == b.is_unsigned:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if b.is_unsigned else (b, a)
    if s.bits > u.bits:
        return s
    return _SIGNED[2 * u.bits] if u.bits < 64 else DType.FLOAT64


def arithmetic_type(op: str, a: ValueType, b: ValueType) -> ValueType | None:
    """Type of ``a op b`` for ``+ - * // % **`` (``/``: :func:`true_divide`); None where
    NumPy raises TypeError (a bool minus a bool).  NumPy's bool + bool is bool (logical
    or) and bool * bool bool (and); its //, % and ** of bools compute in int8."""
    t = promote(a, b)
    if not t.dtype.is_bool:
        return t
    if t.weak:  # Python's True + True is 2
        return WEAK_INT
    if op in ("+", "*"):
        return t
    if op == "-":
        return None
    return ValueType(DType.INT8)


def compare_type(a: ValueType, b: ValueType) -> ValueType:
    """The type NumPy compares two operands in: their promotion, except that a fixed-width
    int meets a Python int by value (NumPy compares them exactly, not in int8): int64
    holds both (the frontend refuses a uint64 beside a Python int that may be negative)."""
    t = promote(a, b)
    weak_int = any(x.weak and not x.dtype.is_float for x in (a, b))
    if weak_int and not t.dtype.is_float and t.dtype is not DType.UINT64:
        return ValueType(DType.INT64, weak=t.weak)
    return t


def comparison_result(a: ValueType, b: ValueType) -> ValueType:
    """A comparison's type: a Python bool between Python scalars, else a NumPy bool."""
    return BOOL if a.weak and b.weak else NP_BOOL


def true_divide(a: ValueType, b: ValueType) -> ValueType:
    """Type of ``a / b``: ints and bools divide to float64, floats keep their promotion."""
    t = promote(a, b)
    if t.dtype.is_float:
        return t
    return ValueType(DType.FLOAT64, weak=t.weak)


def join(a: ValueType, b: ValueType) -> ValueType:
    """Type of a variable assigned values of both types (Python rebinding).

    A weak Python scalar joined with a NumPy value takes the NumPy value's type, as
    NEP 50 promotion does: after ``s = 0.0; s += x32[i]``, ``s`` is a float32 under
    CPython, so it is a float32 here too."""
    if a == b:
        return a
    if a.weak != b.weak:
        return promote(a, b)
    t = promote(ValueType(a.dtype), ValueType(b.dtype))
    return ValueType(t.dtype, weak=a.weak and b.weak)
