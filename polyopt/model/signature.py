"""Argument signatures: what a kernel is specialized for (dtype and rank of each array,
type of each scalar), as Numba specializes per signature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


_NAMES = {"f8": DType.FLOAT64, "f4": DType.FLOAT32, "i8": DType.INT64, "i4": DType.INT32}


def parse_signature(text: str, arg_names: list[str]) -> Signature:
    """Parse ``"float64[:,:], float64[:], float64"`` (Numba's notation, with ``::1`` on the
    last axis for C order, or ``array(float64, 2d, C)``) for ``arg_names``.  A ValueError
    names the text it cannot read."""
    types = [_parse_type(part.strip()) for part in _split_top(text)]
    if len(types) != len(arg_names):
        raise ValueError(
            f"the signature has {len(types)} types but the function takes {len(arg_names)} "
            f"arguments ({', '.join(arg_names)})"
        )
    return Signature(tuple(zip(arg_names, types, strict=True)))


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
        raise ValueError(f"unknown type {name!r} (use float64, float32, int64, int32)") from None


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
