"""The warm call of a compiled signature: the compiled call entry where it can be had,
else the generated Python wrapper (:mod:`~polyopt.backend_c.fastcall`).

The entry (``call_entry.c``) performs the wrapper's checks in C, on NumPy's array struct,
from a plan made here once per signature: the arguments' exact types, dtypes and ranks;
C-contiguity and writability; overlap of a written array with another; the sizes (array
dimensions and int arguments) within the interface's limit; the bounds check, run again
only when the sizes change; the int32 range of the ints NumPy would convert.  It then
calls the kernel through its trampoline (:mod:`~polyopt.backend_c.trampoline`), with no
libffi and no allocation.  Any failed check hands the call to
:meth:`CompiledKernel.__call__`, which raises the same error as without the entry::

    entry((a, b, c))   # -> None, after c[:] = a + b in C
    entry((a, b))      # -> MISS: another signature's call
    entry((a[::2], b, c))   # -> CompiledKernel.__call__: "'a' is not C-contiguous ..."
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cffi
import numpy as np
from polyopt.backend_c import trampoline
from polyopt.backend_c.call import CompiledKernel, python_error
from polyopt.backend_c.call_entry_build import extension
from polyopt.backend_c.fastcall import MISS, make_fast_call
from polyopt.backend_c.interface import DROPPED, KernelInterface

FastCall = Callable[[tuple[Any, ...]], object]
#: how the entry passes a scalar of each C type (call_entry.c's ``Value``)
_SCALAR = {"double": "d", "float": "f", "int64_t": "l", "int32_t": "i"}


def warm_call(ck: CompiledKernel, type_key: tuple[Any, ...], use_cache: bool,
              install: Callable[[FastCall, FastCall], None]) -> FastCall:
    """The fastest checked call of ``ck`` for arguments of ``type_key``.  Where the
    extension is not at hand yet, a stand-in that gets it on the first warm call (building
    it once per cache directory: a kernel called once never waits for it) and calls
    ``install(stand_in, fast)`` so that the next calls go straight to ``fast``."""
    if extension(use_cache, build=False) is not None:
        return make_entry(ck, type_key, use_cache) or make_fast_call(ck, type_key)

    def first_warm_call(args: tuple[Any, ...]) -> object:
        fast = make_entry(ck, type_key, use_cache) or make_fast_call(ck, type_key)
        install(first_warm_call, fast)
        return fast(args)
    return first_warm_call


def make_entry(ck: CompiledKernel, type_key: tuple[Any, ...],
               use_cache: bool = True) -> FastCall | None:
    """The compiled entry of ``ck``, or None where there is none (no extension, a library
    built before trampolines, a kernel past the entry's fixed limits)."""
    plan = _plan(ck.iface, type_key)
    if plan is None:  # decided from the interface: no extension build, no dlopen
        return None
    ext = extension(use_cache)
    addresses = _addresses(ck) if ext is not None else None
    if ext is None or addresses is None:
        return None
    try:
        entry: FastCall = ext.Entry(*plan, *addresses, ck.__call__,
                                    _temporaries(ck.iface), python_error, MISS)
    except (ValueError, TypeError):  # past MAXN
        return None
    return entry


def _addresses(ck: CompiledKernel) -> tuple[int, int] | None:
    ffi = cffi.FFI()
    ffi.cdef(trampoline.cdef(ck.iface))
    try:  # never unloaded, as the kernel's own handle
        lib = ffi.dlopen(str(ck.library), ffi.RTLD_NOW | getattr(ffi, "RTLD_NODELETE", 0))
        fns = (getattr(lib, trampoline.entry_name(ck.iface)),
               getattr(lib, trampoline.check_name(ck.iface)))
    except (OSError, AttributeError):
        return None
    return int(ffi.cast("uintptr_t", fns[0])), int(ffi.cast("uintptr_t", fns[1]))


def _plan(iface: KernelInterface, type_key: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The entry's constructor arguments up to the result's type (call_entry.c's
    ``entry_new``); None for a kernel it cannot call."""
    pos = {n: k for k, n in enumerate(iface.arg_names)}
    # NumPy's shape equalities, narrow int ranges and dropped temporaries' shapes: the
    # Python wrapper checks them
    if len(type_key) != len(pos) or iface.size_checks or iface.narrow_args or any(
            a.kind == DROPPED for a in iface.arrays):
        return None
    types = tuple(key[0] for key in type_key)
    descrs = tuple((key[1], key[2]) if key[0] is np.ndarray else None for key in type_key)
    arrays = [a for a in iface.arrays if a.kind == "argument"]
    temps = [a.name for a in iface.arrays if a.kind != "argument"]
    rows = tuple((pos[a.name], int(a.written), np.dtype(a.dtype).itemsize) for a in arrays)
    pairs = tuple((x, y) for x, p in enumerate(arrays) for y in range(x + 1, len(arrays))
                  if p.written or arrays[y].written)
    index = {a.name: x for x, a in enumerate(arrays)}
    params: list[tuple[int, int]] = []
    cargs: list[tuple[int, int]] = []
    for name, kind, ct in iface.c_args:
        if kind == "param":
            array, dim = iface.param_sources.get(name, (name, -1))
            if array not in pos:
                return None
            cargs.append((ord("p"), len(params)))
            params.append((pos[array], dim))
        elif kind == "array":
            cargs.append((ord("a"), index[name]) if name in index else (ord("t"), temps.index(name)))
        elif ct in _SCALAR:
            cargs.append((ord(_SCALAR[ct]), pos[name]))
        else:
            return None
    ret: tuple[tuple[int, int], ...] = ()
    if iface.returns is not None:
        name, is_array = iface.returns
        if name in pos:
            ret = ((ord("A"), pos[name]),)
        elif is_array:
            ret = ((ord("T"), temps.index(name)),)
        elif iface.return_ctype in _SCALAR:
            ret = ((ord(_SCALAR[iface.return_ctype]), 0),)
        else:
            return None
    rettype = np.dtype(iface.return_numpy).type if iface.return_numpy is not None else None
    int32s = tuple((pos[n],) for n in iface.int32_args if n in pos)
    return (types, descrs, rows, pairs, tuple(params), iface.param_limit, int32s,
            tuple(cargs), ret, rettype)


def _temporaries(iface: KernelInterface) -> Callable[[tuple[int, ...]], object] | None:
    """The kernel's temporaries for the sizes (in the C function's order), allocated as the
    slow path allocates them; None (the slow path then raises) for a negative shape."""
    temps = [a for a in iface.arrays if a.kind != "argument"]
    if not temps:
        return None
    names = [n for n, kind, _ in iface.c_args if kind == "param"]

    def allocate(sizes: tuple[int, ...]) -> object:
        env = dict(zip(names, sizes, strict=True))
        shapes = [t.extents(env) for t in temps]
        if any(x < 0 for shape in shapes for x in shape):
            return None
        return tuple(np.empty(shape, dtype=t.dtype) for shape, t in zip(shapes, temps, strict=True))
    return allocate
