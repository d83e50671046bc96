"""Argument signatures: what a kernel is specialized for (dtype and rank of each array,
type of each scalar), as Numba specializes per signature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from polyopt.model.dtypes import WEAK_FLOAT, WEAK_INT, DType, ValueType


@dataclass(frozen=True)
class ArrayType:
    dtype: DType
    ndim: int

    def __str__(self) -> str:
        return f"{self.dtype.value}[{', '.join(':' * self.ndim) if self.ndim else ''}]"


@dataclass(frozen=True)
class ScalarType:
    type: ValueType

    @property
    def is_int(self) -> bool:
        return not self.type.dtype.is_float

    def __str__(self) -> str:
        if self.type.weak:
            return "int" if self.is_int else "float"
        return self.type.dtype.value


ArgType = ArrayType | ScalarType


@dataclass(frozen=True)
class Signature:
    """The types of a call's arguments, by argument name, in the function's order."""

    args: tuple[tuple[str, ArgType], ...]

    def __getitem__(self, name: str) -> ArgType:
        for n, t in self.args:
            if n == name:
                return t
        raise KeyError(name)

    def get(self, name: str) -> ArgType | None:
        for n, t in self.args:
            if n == name:
                return t
        return None

    def __str__(self) -> str:
        return "(" + ", ".join(f"{n}: {t}" for n, t in self.args) + ")"


#: Numba's spellings of the element types polyopt compiles (``numba.f8``, ``numba.double``...)
_NAMES = {"f8": DType.FLOAT64, "double": DType.FLOAT64, "f4": DType.FLOAT32,
          "i8": DType.INT64, "intp": DType.INT64, "int_": DType.INT64,
          "i4": DType.INT32, "intc": DType.INT32, "i2": DType.INT16, "i1": DType.INT8,
          "u8": DType.UINT64, "uintp": DType.UINT64, "u4": DType.UINT32, "u2": DType.UINT16,
          "u1": DType.UINT8, "f2": DType.FLOAT16, "b1": DType.BOOL, "bool_": DType.BOOL,
          "boolean": DType.BOOL}


@dataclass(frozen=True)
class Declared:
    """A signature as written, ``"void(f8[:, :], f8[:])"``: the argument types in order
    and the return type (``"void"``: none; None: not given)."""

    args: tuple[ArgType, ...]
    returns: ArgType | Literal["void"] | None = None

    def bind(self, arg_names: list[str]) -> Signature:
        if len(self.args) != len(arg_names):
            raise ValueError(
                f"the signature has {len(self.args)} types but the function takes "
                f"{len(arg_names)} arguments ({', '.join(arg_names)})")
        return Signature(tuple(zip(arg_names, self.args, strict=True)))

    def __str__(self) -> str:
        args = ", ".join(map(str, self.args))
        return f"{self.returns}({args})" if self.returns is not None else args


def parse_declared(text: str) -> Declared:
    """Parse Numba's notation: ``"float64[:,:], float64[:], float64"``, with a return type
    ``"void(f8[:, ::1], f8[:])"`` or ``"f8(f8[:])"``; ``::1`` on the last axis for C order,
    or ``array(float64, 2d, C)``.  A ValueError quotes the part it cannot read."""
    text = text.strip()
    returns: ArgType | Literal["void"] | None = None
    open_at = _call_paren(text)
    if open_at is not None:
        head = text[:open_at].strip()
        returns = "void" if head in ("void", "none") else _parse_type(head)
        text = text[open_at + 1:-1]
    return Declared(tuple(_argument(part.strip()) for part in _split_top(text)), returns)


def _argument(part: str) -> ArgType:
    """An argument's type: a bool scalar is refused here, as every call refuses one (a
    declared ``b1`` compiled a specialization no call could reach)."""
    t = _parse_type(part)
    if isinstance(t, ScalarType) and t.type.dtype is DType.BOOL:
        raise ValueError(f"{part!r}: a bool scalar argument is not supported (pass an int: "
                         "i8; bool arrays are b1[:])")
    return t


def _call_paren(text: str) -> int | None:
    """Where the argument list of ``ret(args)`` opens, or None for a bare list of types
    (``array(float64, 1d, C)`` is a type, not a call)."""
    if not text.endswith(")"):
        return None
    depth = 0
    for k in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[k], 0)
        if depth == 0:
            head = text[:k].strip()
            # a return type is one type: `a, array(...)` ends a list of arguments
            one_type = head and not head.endswith("array") and len(_split_top(head)) == 1
            return k if one_type else None
    return None  # unbalanced: _split_top names it


def parse_signature(text: str, arg_names: list[str]) -> Signature:
    """:func:`parse_declared` for ``arg_names`` (a return type, if any, is not kept)."""
    return parse_declared(text).bind(arg_names)


_ARRAY_CALL = re.compile(r"array\(\s*(\w+)\s*,\s*(\d+)d\s*,\s*([A-Za-z])\s*\)")
_BRACKETS = re.compile(r"(\w+)\s*\[(.*)\]")


def _parse_type(part: str) -> ArgType:
    if part in ("int", "float"):
        return ScalarType(WEAK_INT if part == "int" else WEAK_FLOAT)
    if m := _ARRAY_CALL.fullmatch(part):
        layout = m.group(3)
        if layout == "F":
            raise ValueError(f"{part!r}: Fortran-order arrays are not supported "
                             "(polyopt arrays are C-contiguous: layout C)")
        if layout not in ("C", "A"):
            raise ValueError(f"{part!r}: unknown layout {layout!r} (use C)")
        return ArrayType(_dtype(m.group(1)), int(m.group(2)))
    if m := _BRACKETS.fullmatch(part):
        axes = [a.replace(" ", "") for a in m.group(2).split(",")] if m.group(2).strip() else []
        if any(a not in (":", "::1") for a in axes):
            raise ValueError(f"cannot read the array type {part!r} (write float64[:, :], "
                             "or float64[:, ::1] for C order)")
        if "::1" in axes[:-1]:
            raise ValueError(f"{part!r}: only the last axis can be contiguous (::1); "
                             "Fortran-order arrays are not supported")
        return ArrayType(_dtype(m.group(1)), len(axes))
    if not part:
        raise ValueError("a type is missing (two commas in a row, or nothing between them)")
    if re.fullmatch(r"\w+", part):
        return ScalarType(ValueType(_dtype(part)))
    raise ValueError(f"cannot read the type {part!r} (types: float64[:], float64[:, ::1], "
                     "array(float64, 2d, C), float64, int, float...)")


def _dtype(name: str) -> DType:
    if name in _NAMES:
        return _NAMES[name]
    try:
        return DType(name)
    except ValueError:
        raise ValueError(f"unknown type {name!r} (use float64 or f8, float32 or f4, float16 "
                         "or f2, int64 or i8, int32 or i4, int16 or i2, int8 or i1, uint64 or "
                         "u8, uint32 or u4, uint16 or u2, uint8 or u1, bool_ or b1)") from None


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced {ch!r} in the signature {text!r}")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise ValueError(f"unbalanced brackets in the signature {text!r}")
    if cur.strip():
        parts.append(cur)
    return parts
