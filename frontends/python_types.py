"""The polyopt type of a Python or NumPy value: what a kernel is specialized for."""

from __future__ import annotations

import numpy as np

from polyopt.model.dtypes import WEAK_FLOAT, WEAK_INT, DType, ValueType
from polyopt.model.signature import ArgType, ArrayType, ScalarType


def dtype_of(dt: np.dtype) -> DType | None:
    """The DType of a NumPy dtype, or None when polyopt cannot compile it."""
    dt = np.dtype(dt)
    if not dt.isnative:
        return None
    try:
        return DType(dt.name)
    except ValueError:
        return None


def type_of_value(value: object) -> ArgType:
    """The polyopt type of one call argument; TypeError for what cannot be compiled."""
    if isinstance(value, np.ma.MaskedArray):  # the mask would be ignored: refused
        raise TypeError("masked arrays (np.ma) are not supported: their mask cannot be "
                        "honoured (pass a.filled(value) or a.data)")
    if isinstance(value, np.ndarray):
        dt = dtype_of(value.dtype)
        if dt is None:
            raise TypeError(
                f"arrays of dtype {value.dtype} are not supported "
                f"(supported: {', '.join(d.value for d in DType)})"
            )
        return ArrayType(dt, value.ndim)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("bool arguments are not supported; pass an int")
    if isinstance(value, np.generic):
        # before `float`: np.float64 subclasses float, but NumPy scalars are strongly typed
        # (NEP 50), so `a32 + np.float64(k)` computes in float64, unlike `a32 + k`
        dt = dtype_of(value.dtype)
        if dt is None:
            raise TypeError(f"scalars of type {value.dtype} are not supported")
        return ScalarType(ValueType(dt))
    if isinstance(value, int):
        return ScalarType(WEAK_INT)
    if isinstance(value, float):
        return ScalarType(WEAK_FLOAT)
    raise TypeError(
        f"arguments of type {type(value).__name__} are not supported "
        "(pass NumPy arrays, ints and floats)"
    )
