"""Loading a built kernel with cffi and calling it safely.

Before the C runs, every call checks what the C cannot: dtypes and ranks (by
the dispatcher's signature), C-contiguity, writability of written arrays,
overlap between an array that is written and any other array argument, and,
through the compiled check function, that the sizes keep every access in
bounds.  Temporaries are allocated here with NumPy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cffi
import numpy as np
from polyopt.backend_c.interface import DROPPED, KernelInterface, cffi_type, eval_lin

from polyopt.model.dtypes import DType
from polyopt.model.errors import CompileError, check_error
from polyopt.model.names import user_text

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


#: below this many, the kernel's own constants, not the sizes, are what is large
_FEW = 1 << 16
_NO_ROOM = (" (its subscripts or loop bounds have coefficients or constants near 2^63 "
            "themselves: make them smaller)")


def masked_refusal(name: str) -> str:
    """Why a masked array argument is refused: the compiled loops read every element, the
    masked-out ones too, where NumPy's operations skip them (a silent difference)."""
    return (f"argument {name!r} is a masked array (np.ma), whose mask polyopt cannot honour: "
            f"pass {name}.filled(value) or {name}.data")


class CompiledKernel:
    """A callable for one signature: ``kernel(arg0, arg1, ...)`` in the function's order."""

    def __init__(self, iface: KernelInterface, library: Path, c_path: Path | None = None) -> None:
        self.iface = iface
        self.library = library
        self.ffi = cffi.FFI()
        self.ffi.cdef(iface.cdef())
        # Never unloaded: a kernel's OpenMP runtime keeps idle worker threads, and
        # unloading it with them (when the Kernel is garbage-collected) crashes the
        # process later at a random point.
        flags = self.ffi.RTLD_NOW | getattr(self.ffi, "RTLD_NODELETE", 0)
        try:
            self.lib = self.ffi.dlopen(str(library), flags)
            self.fn = getattr(self.lib, iface.function)
            self.check = getattr(self.lib, iface.check_function)
        except (OSError, AttributeError) as exc:
            raise CompileError(f"could not load the built kernel {library}: {exc}",
                               str(c_path) if c_path else None) from None
        self._plan()

    def _plan(self) -> None:
        iface = self.iface
        pos = {n: k for k, n in enumerate(iface.arg_names)}
        self.arg_arrays = [a for a in iface.arrays if a.kind == "argument"]
        self.arg_pos = [pos[a.name] for a in self.arg_arrays]
        self.temps = [a for a in iface.arrays if a.kind != "argument"]
        self.written = [a.written for a in self.arg_arrays]
        self.buffer_type = {a.name: self.ffi.typeof(f"{_ctype(a.dtype)}[]") for a in iface.arrays}
        self.int_params = [(n, pos[n]) for n, kind, _ in iface.c_args if kind == "param" and n in pos]
        self.scalar_pos = [(n, pos[n]) for n, _ in iface.scalar_args]
        self.int32_pos = [pos[n] for n in getattr(iface, "int32_args", ()) if n in pos]
        self.narrow_pos = [(pos[n], t, *DType(t).bounds) for n, t in iface.narrow_args if n in pos]
        self.order = [n for n, _, _ in iface.c_args]
        self.param_names = [n for n, kind, _ in iface.c_args if kind == "param"]

    def __call__(self, args: tuple[Any, ...]) -> object:
        env, sizes = self._checked(args)
        self._temporaries(sizes, env)
        for name, k in self.scalar_pos:
            env[name] = args[k]
        c_args: list[object] = []
        for name in self.order:
            if name in sizes:
                c_args.append(sizes[name])
            elif name in self.buffer_type:
                c_args.append(self.ffi.from_buffer(self.buffer_type[name], env[name]))
            else:
                c_args.append(env[name])
        if not self.iface.raises:
            return self._result(self.fn(*c_args), env)
        err = self.ffi.new("int32_t[1]")
        result = self.fn(*c_args, err)
        if err[0]:
            raise python_error(err[0])
        return self._result(result, env)

    def validate(self, args: tuple[Any, ...]) -> None:
        """Raise what a call with ``args`` raises before its C runs (types, layout,
        overlap, sizes, bounds); ``polyopt.tune``, which runs on copies, checks the user's
        own arguments so."""
        self._checked(args)

    def _checked(self, args: tuple[Any, ...]) -> tuple[dict[str, object], dict[str, int]]:
        """The arrays and sizes of a call with ``args``, once every check passed."""
        for k in self.int32_pos:
            v = args[k]
            if not -2**31 <= v < 2**31:  # NumPy's own message (NEP 50 conversion)
                raise OverflowError(f"Python integer {v} out of bounds for int32")
        for k, dtype, low, high in self.narrow_pos:
            if not low <= args[k] <= high:
                raise OverflowError(f"Python integer {args[k]} out of bounds for {dtype}")
        env = self._arrays(args)
        sizes = self._sizes(args, env)
        if self.iface.size_checks:
            check_shapes(self.iface, env, sizes)
        bad = self.check(*[sizes[p] for p in self.param_names])
        if bad:
            error, what = check_error(self.iface.check_messages[bad - 1])
            if error is not IndexError:  # a returned local nothing assigns
                raise error(user_text(what))
            raise IndexError(self._bounds_message(bad, sizes))
        return env, sizes

    def _arrays(self, args: tuple[Any, ...]) -> dict[str, object]:
        """The array arguments by name, once they are known to be safe to pass to C."""
        env: dict[str, object] = {}
        arrays = [args[k] for k in self.arg_pos]
        for info, a in zip(self.arg_arrays, arrays, strict=True):
            if isinstance(a, np.ma.MaskedArray):  # the C would read the masked-out data too
                raise TypeError(masked_refusal(info.name))
            if not a.flags.c_contiguous:
                # a copy of an array the function writes would take the writes, not it
                hint = (f"the function writes it, so call it on a contiguous copy "
                        f"(c = np.ascontiguousarray({info.name})) and copy the result back "
                        f"({info.name}[...] = c)") if info.written else \
                    f"pass np.ascontiguousarray({info.name})"
                raise ValueError(f"argument {info.name!r} is not C-contiguous (a strided view "
                                 f"or Fortran order); {hint}")
            if info.written and not a.flags.writeable:
                raise ValueError(f"argument {info.name!r} is read-only but the function writes it")
            env[info.name] = a
        if len(arrays) > 1 and any(self.written):
            self._check_overlap(arrays)
        return env

    def _temporaries(self, sizes: dict[str, int], env: dict[str, object]) -> None:
        """Allocate the temporaries into ``env``; a negative extent raises, as NumPy's
        allocation does, also for a temporary the plan dropped (allocated by nobody)."""
        for t in self.temps:
            shape = t.extents(sizes)
            if any(x < 0 for x in shape):
                raise ValueError(f"temporary array {t.name!r} would have negative shape {shape}")
            if t.kind != DROPPED:
                env[t.name] = np.empty(shape, dtype=t.dtype)

    def _sizes(self, args: tuple[Any, ...], env: dict[str, object]) -> dict[str, int]:
        """Every size parameter's value: array dimensions and integer arguments."""
        sizes: dict[str, int] = {}
        for name, (array, dim) in self.iface.param_sources.items():
            sizes[name] = env[array].shape[dim]  # type: ignore[attr-defined]
        for name, k in self.int_params:
            v = int(args[k])
            if not _INT64_MIN <= v <= _INT64_MAX:
                # (a NumPy uint64 past 2**63 - 1 fits its own 64 bits, not these)
                raise OverflowError(user_text(
                    f"argument {name!r} = {v} is outside the int64 range: this kernel "
                    f"takes an int argument as a size, and computes loop bounds and "
                    f"subscripts in 64-bit signed integers"))
            sizes[name] = v
        limit = self.iface.param_limit
        for name, v in sizes.items():
            if not -limit <= v <= limit:
                raise OverflowError(user_text(
                    f"{'size' if name in self.iface.param_sources else 'argument'} {name!r} = {v} "
                    f"is too large: this kernel computes loop bounds and subscripts in 64-bit "
                    f"integers, which is exact only for |{name}| <= {limit}"
                    + (_NO_ROOM if limit < _FEW else "")))
        return sizes

    def _result(self, result: object, env: dict[str, object]) -> object:
        ret = self.iface.returns
        if ret is None:
            return None
        name, is_array = ret
        if is_array:
            return env[name]
        if name in env and not isinstance(env[name], np.ndarray):
            return env[name]
        if self.iface.return_numpy is not None:  # e.g. a float32 accumulator: np.float32
            return np.dtype(self.iface.return_numpy).type(result)
        return result

    def _check_overlap(self, arrays: list[np.ndarray]) -> None:
        spans = []
        for info, a in zip(self.arg_arrays, arrays, strict=True):
            if a.nbytes == 0:
                continue
            start = a.__array_interface__["data"][0]
            spans.append((start, start + a.nbytes, info))
        for x in range(len(spans)):
            for y in range(x + 1, len(spans)):
                (s1, e1, i1), (s2, e2, i2) = spans[x], spans[y]
                if s1 < e2 and s2 < e1 and (i1.written or i2.written):
                    raise ValueError(user_text(
                        f"arguments {i1.name!r} and {i2.name!r} overlap in memory and "
                        f"{i1.name if i1.written else i2.name!r} is written; pass a copy "
                        f"(e.g. {i2.name}.copy())"
                    ))

    def _bounds_message(self, k: int, sizes: dict[str, int]) -> str:
        what = self.iface.check_messages[k - 1]
        shown = ", ".join(f"{n}={v}" for n, v in sizes.items())
        # internal names (polyopt.model.names) spelled as the user wrote them
        return user_text(f"out of bounds: {what} leaves the array for these sizes ({shown})")


def check_shapes(iface: KernelInterface, env: dict[str, Any], sizes: dict[str, int]) -> None:
    """The equalities of sizes NumPy's shape rules require (``C[0:3] = B[0:k]``: ``k ==
    3``); a ValueError before the C runs, as NumPy raises one."""
    values = dict(sizes)
    for name, (array, dim) in iface.check_sources.items():
        values[name] = env[array].shape[dim]
    for left, right, text in iface.size_checks:
        a, b = eval_lin(left, values), eval_lin(right, values)
        if a != b:
            note = " (a size that is 1 only at run time does not broadcast)" if 1 in (a, b) else ""
            raise ValueError(user_text(f"operands could not be broadcast together: {text}, "
                                       f"but they are {a} and {b}{note}"))


#: The error flag's bits (backend_c/prelude.py) and what Python raises for each.
_ERRORS = (
    (1, ZeroDivisionError, "integer division or modulo by zero"),
    (2, ValueError, "cannot convert float NaN to integer"),
    (4, OverflowError, "a float too large for the integer it is converted to "
                       "(int64, or the narrower int of an array)"),
    (8, OverflowError, "a Python integer out of bounds for the narrower NumPy integer it "
                       "meets (NumPy converts it, and raises when it does not fit)"),
    (16, ValueError, "zero-size array to reduction operation maximum which has no identity"),
    (32, ValueError, "zero-size array to reduction operation minimum which has no identity"),
    (64, ValueError, "a negative number raised to a fractional power: CPython gives a "
                     "complex number, which polyopt does not compute"),
    (128, ZeroDivisionError, "0.0 cannot be raised to a negative power"),
    (256, OverflowError, "a uint64 of 2**63 or more made a Python int (int(), math.floor, "
                         "math.ceil, math.trunc), which polyopt holds in an int64"),
)


def python_error(flag: int) -> Exception:
    """The exception Python raises for the first error the C code flagged (when several
    instances failed, the kind listed first wins, whatever order they ran in)."""
    for bit, kind, message in _ERRORS:
        if flag & bit:
            return kind(message)
    return RuntimeError(f"polyopt: unknown error flag {flag}")


def _ctype(dtype: str) -> str:
    return cffi_type(DType(dtype).c_name)
