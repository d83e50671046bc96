"""Element types and NumPy-compatible type promotion.

polyopt follows NumPy 2 (NEP 50) promotion: Python scalars (literals, loop
variables, ``int``/``float`` arguments) are *weak* and take the kind's type of
the strong operand, so ``float32_array[i] * 2.0`` stays float32, exactly as the
function behaves under CPython.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class DType(enum.Enum):
    """The element types polyopt compiles."""

    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"

    @property
    def is_float(self) -> bool:
        return self in (DType.FLOAT32, DType.FLOAT64)

    @property
    def c_name(self) -> str:
        return _C_NAMES[self]

    @property
    def bits(self) -> int:
        return 32 if self in (DType.INT32, DType.FLOAT32) else 64


_C_NAMES = {
    DType.INT32: "int32_t",
    DType.INT64: "int64_t",
    DType.FLOAT32: "float",
    DType.FLOAT64: "double",
}


@dataclass(frozen=True)
class ValueType:
    """The type of a value in a statement: an element type, and whether it is weak."""

    dtype: DType
    weak: bool = False

    def __str__(self) -> str:
        return f"{self.dtype.value}{' (python scalar)' if self.weak else ''}"


WEAK_INT = ValueType(DType.INT64, weak=True)
WEAK_FLOAT = ValueType(DType.FLOAT64, weak=True)
BOOL = ValueType(DType.INT32, weak=True)


def promote(a: ValueType, b: ValueType) -> ValueType:
    """NumPy 2 promotion of two operand types (weak Python scalars adapt)."""
    if a.weak and b.weak:
        if a.dtype.is_float or b.dtype.is_float:
            return WEAK_FLOAT
        return WEAK_INT
    if a.weak or b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        if weak.dtype.is_float and not strong.dtype.is_float:
            return ValueType(DType.FLOAT64)
        return ValueType(strong.dtype)
    return ValueType(_promote_strong(a.dtype, b.dtype))


def _promote_strong(a: DType, b: DType) -> DType:
    """NumPy's ``promote_types`` on polyopt's dtypes: the smallest type that holds every
    value of both (a float holds an int exactly when its mantissa is wider)."""
    if a.is_float == b.is_float:
        return a if a.bits >= b.bits else b
    f, i = (a, b) if a.is_float else (b, a)
    return f if f.bits > i.bits else DType.FLOAT64


def compare_type(a: ValueType, b: ValueType) -> ValueType:
    """The type NumPy compares two operands in: their promotion, except that an int32
    meets a Python int by value (NumPy compares them exactly, not in int32)."""
    t = promote(a, b)
    if t.dtype is DType.INT32 and (a.weak or b.weak):
        return ValueType(DType.INT64)
    return t


def true_divide(a: ValueType, b: ValueType) -> ValueType:
    """Type of ``a / b``: ints divide to float64, floats keep their promotion."""
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
