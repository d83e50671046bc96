"""Signatures given ahead of the first call, as Numba takes them::

    @polyopt.jit("void(f8[:, :], f8[:])")           # compiled now, not on the first call
    @polyopt.jit(["f8(f8[:])", "f4(f4[:])"])        # one specialization each

A kernel with declared signatures compiles no others (as Numba's): a call converts its
scalars to a declared signature's types (a Python float for ``f8``, an int for ``f8`` or
``i4``), and arguments that fit none raise a TypeError listing the declared ones.
Arrays are never converted: their dtype and rank must match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from polyopt.backend_c.interface import KernelInterface
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.signature import (
    ArgType,
    ArrayType,
    Declared,
    ScalarType,
    Signature,
    parse_declared,
)

if TYPE_CHECKING:  # the model's module is not imported on a cache hit's call path
    from polyopt.model.scop import Scop

#: the dispatch key of one call: its arguments' types (dtype and rank for arrays)
TypeKey = tuple[Any, ...]

_CTYPES = {d.c_name: d for d in DType}


def declared_list(spec: object) -> list[Declared]:
    """``polyopt.jit``'s first argument as signatures: one string or a list of them."""
    texts = [spec] if isinstance(spec, str) else spec
    if not isinstance(texts, (list, tuple)) or not texts or \
            not all(isinstance(t, str) for t in texts):
        raise TypeError("polyopt.jit takes a function, a signature string such as "
                        f"'void(f8[:], f8[:])', or a list of them; not {spec!r}")
    out = []
    for t in texts:
        try:
            out.append(parse_declared(t))
        except ValueError as exc:
            raise ValueError(f"polyopt.jit signature {t!r}: {exc}") from None
    return out


def type_key(t: ArgType) -> TypeKey:
    """The dispatch key of a call whose argument has type ``t``."""
    if isinstance(t, ArrayType):
        return (np.ndarray, np.dtype(t.dtype.value), t.ndim)
    if t.type.weak:
        return (float if t.type.dtype.is_float else int,)
    return (np.dtype(t.type.dtype.value).type,)


def convert(args: tuple[Any, ...], declared: Declared) -> tuple[Any, ...] | None:
    """``args`` converted to ``declared``'s types, or None when one does not fit."""
    out: list[object] = []
    for a, t in zip(args, declared.args, strict=True):
        if isinstance(t, ArrayType):
            if not (isinstance(a, np.ndarray) and a.dtype == np.dtype(t.dtype.value)
                    and a.ndim == t.ndim):
                return None
            out.append(a)
            continue
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.integer,
                                                                  np.floating)):
            return None
        if not t.type.dtype.is_float and isinstance(a, (float, np.floating)):
            return None  # a float is never truncated to an int silently
        if not t.type.dtype.is_float and not _holds(t, int(a)):
            # (np.int64 of a uint64 past 2**63 - 1 would wrap it, of a Python int raise a
            # bare error): no signature, and out_of_range says why
            return None
        if t.type.weak:
            out.append(float(a) if t.type.dtype.is_float else int(a))
        else:
            out.append(np.dtype(t.type.dtype.value).type(a))
    return tuple(out)


def _holds(t: ScalarType, v: int) -> bool:
    low, high = (-(2**63), 2**63 - 1) if t.type.weak else t.type.dtype.bounds
    return low <= v <= high


def out_of_range(args: tuple[Any, ...], declared: tuple[Declared, ...],
                 names: tuple[str, ...]) -> str | None:
    """Why a call's int matches no declared signature, where its value is what no
    declared int at its place holds (``i8`` and ``2**63``); None otherwise."""
    for k, a in enumerate(args):
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            continue
        ints = [t for d in declared for t in (d.args[k],)
                if isinstance(t, ScalarType) and not t.type.dtype.is_float]
        if ints and not any(_holds(t, int(a)) for t in ints):
            kinds = " or ".join(sorted({t.type.dtype.value for t in ints}))
            return f"argument {names[k]!r} = {int(a)} does not fit its declared {kinds}"
    return None


def chosen(declared: tuple[Declared, ...], sig: Signature,
           values: tuple[Any, ...]) -> tuple[Signature, tuple[Any, ...]] | None:
    """The declared signature a call with ``values`` (of types ``sig``) runs, and the
    values converted to it, as the kernel's call chooses: the signature of their own
    types, else the first they convert to; None when none fits."""
    names = [n for n, _ in sig.args]
    if any(d.bind(names) == sig for d in declared):
        return sig, values
    for d in declared:
        converted = convert(values, d)
        if converted is not None:
            return d.bind(names), converted
    return None


def describe_args(args: tuple[Any, ...]) -> str:
    """A call's argument types in the signature notation."""
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append(f"{a.dtype}[{', '.join(':' * a.ndim)}]")
        else:
            parts.append(type(a).__name__)
    return ", ".join(parts)


def return_mismatch(declared: Declared, iface: KernelInterface) -> str | None:
    """Why the compiled function does not return what ``declared`` says, or None."""
    return _mismatch(declared, _returned(iface))


def scop_return_mismatch(declared: Declared, scop: Scop) -> str | None:
    """:func:`return_mismatch` from the function's model, before any C is built (the
    command line checks a --signature's return type so: hostile session 48b, 03)."""
    got: ArgType | None = None
    if scop.returns is not None:
        name = scop.returns.name
        if scop.returns.is_array:
            got = ArrayType(scop.arrays[name].dtype, len(scop.arrays[name].shape))
        else:
            got = ScalarType(scop.scalars[name].type)
    return _mismatch(declared, got)


def _mismatch(declared: Declared, got: ArgType | None) -> str | None:
    want = declared.returns
    if want is None:
        return None
    if want == "void":
        return None if got is None else f"it returns {got}, not nothing (void)"
    if got is None:
        return f"it returns nothing, not {want}"
    if isinstance(want, ScalarType) and isinstance(got, ScalarType):
        same = want.type.dtype == got.type.dtype  # a Python float is an f8
    else:
        same = want == got
    return None if same else f"it returns {got}, not {want}"


def _returned(iface: KernelInterface) -> ArgType | None:
    if iface.returns is None:
        return None
    name, is_array = iface.returns
    if is_array:
        info = next(a for a in iface.arrays if a.name == name)
        return ArrayType(DType(info.dtype), info.rank)
    assert iface.return_ctype is not None
    if iface.return_numpy is not None:  # a NumPy scalar (float16 travels as a C float)
        return ScalarType(ValueType(DType(iface.return_numpy)))
    return ScalarType(ValueType(_CTYPES[iface.return_ctype]))
