"""A straight-line Python wrapper generated per compiled signature (as Numba does).

It performs the same checks as :meth:`CompiledKernel.__call__` without loops
or dictionaries; whenever a check fails it hands the call to that method,
which raises the detailed error.  A call whose argument types do not match
returns :data:`MISS`, so the dispatcher can look for another specialization.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from polyopt.backend_c.call import python_error

MISS = object()


def _lin_py(d: dict[str, Any], env: dict[str, str]) -> str:
    parts = [str(d["const"])]
    for atom, c in d["terms"]:
        term = f"(({_lin_py(atom['num'], env)}) // {atom['den']})" if isinstance(atom, dict) \
            else env[atom]
        parts.append(f"{c} * {term}")
    return " + ".join(parts)


def make_fast_call(ck: Any, type_key: tuple[Any, ...]) -> Callable[[tuple[Any, ...]], object]:
    """The generated wrapper of ``ck`` (a CompiledKernel) for argument types ``type_key``."""
    w = _Writer(ck)
    w.types(type_key)
    w.int32_args()
    w.arrays()
    w.sizes()
    w.buffers()
    w.temporaries()
    w.call()
    exec(compile("\n".join(w.src), f"<polyopt call wrapper {ck.iface.function}>", "exec"), w.ns)
    fast: Callable[[tuple[Any, ...]], object] = w.ns["fast"]
    return fast


class _Writer:
    """Writes the wrapper's source, one kind of check at a time."""

    def __init__(self, ck: Any) -> None:
        self.iface = iface = ck.iface
        self.pos = {n: k for k, n in enumerate(iface.arg_names)}
        self.ns: dict[str, Any] = {
            "MISS": MISS, "ndarray": np.ndarray, "slow": ck.__call__, "check": ck.check,
            "fn": ck.fn, "from_buffer": ck.ffi.from_buffer, "cast": ck.ffi.cast,
            "np_empty": np.empty, "new_flag": ck.ffi.new, "python_error": python_error}
        for a in iface.arrays:
            self.ns[f"B_{a.name}"] = ck.buffer_type[a.name]
        self.src = ["def fast(args):", f"    if len(args) != {len(iface.arg_names)}:",
                    "        return MISS"]
        self.env: dict[str, str] = {}
        self.arrays_ = [a for a in iface.arrays if a.kind == "argument"]

    def guard(self, cond: str, outcome: str = "slow(args)") -> None:
        self.src += [f"    if {cond}:", f"        return {outcome}"]

    def types(self, type_key: tuple[Any, ...]) -> None:
        for k, key in enumerate(type_key):
            self.src.append(f"    a{k} = args[{k}]")
            if key[0] is np.ndarray:
                self.ns[f"D{k}"] = key[1]
                self.guard(f"type(a{k}) is not ndarray or a{k}.dtype is not D{k} "
                           f"or a{k}.ndim != {key[2]}", "MISS")
            else:
                self.ns[f"T{k}"] = key[0]
                self.guard(f"type(a{k}) is not T{k}", "MISS")

    def int32_args(self) -> None:
        for n in getattr(self.iface, "int32_args", ()):
            self.guard(f"not -2147483648 <= a{self.pos[n]} <= 2147483647")

    def arrays(self) -> None:
        for a in self.arrays_:
            k = self.pos[a.name]
            self.guard(f"not a{k}.flags.c_contiguous"
                       + (f" or not a{k}.flags.writeable" if a.written else ""))

    def sizes(self) -> None:
        for name, (array, dim) in self.iface.param_sources.items():
            self.env[name] = f"s_{name}"
            self.src.append(f"    s_{name} = a{self.pos[array]}.shape[{dim}]")
        limit = getattr(self.iface, "param_limit", 2**63 - 1)
        for name, kind, _ in self.iface.c_args:
            if kind == "param" and name in self.pos:
                self.env[name] = f"s_{name}"
                self.src.append(f"    s_{name} = a{self.pos[name]}")
                self.guard(f"not {-limit} <= s_{name} <= {limit}")

    def buffers(self) -> None:
        arrays = self.arrays_
        for a in arrays:
            self.src.append(f"    b_{a.name} = from_buffer(B_{a.name}, a{self.pos[a.name]})")
        if len(arrays) > 1 and any(a.written for a in arrays):
            for a in arrays:
                self.src.append(f"    p_{a.name} = int(cast('uintptr_t', b_{a.name}))")
                self.src.append(f"    e_{a.name} = p_{a.name} + a{self.pos[a.name]}.nbytes")
            for x, p in enumerate(arrays):
                for q in arrays[x + 1:]:
                    if p.written or q.written:
                        self.guard(f"p_{p.name} < e_{q.name} and p_{q.name} < e_{p.name}")
        params = [f"s_{n}" for n, kind, _ in self.iface.c_args if kind == "param"]
        self.guard(f"check({', '.join(params)})")

    def temporaries(self) -> None:
        for t in (a for a in self.iface.arrays if a.kind != "argument"):
            shape = ", ".join(f"({_lin_py(d, self.env)})" for d in t.shape)
            self.src.append(f"    shape_{t.name} = ({shape},)")
            self.guard(f"min(shape_{t.name}, default=0) < 0")
            self.src.append(f"    t_{t.name} = np_empty(shape_{t.name}, dtype='{t.dtype}')")
            self.src.append(f"    b_{t.name} = from_buffer(B_{t.name}, t_{t.name})")

    def call(self) -> None:
        iface, pos = self.iface, self.pos
        args = [f"s_{n}" if kind == "param" else f"b_{n}" if kind == "array" else f"a{pos[n]}"
                for n, kind, _ in iface.c_args]
        if iface.raises:
            self.src.append("    err = new_flag('int32_t[1]')")
            args.append("err")
        self.src.append(f"    r = fn({', '.join(args)})")
        if iface.raises:
            self.src += ["    if err[0]:", "        raise python_error(err[0])"]
        ret = iface.returns
        if ret is None:
            self.src.append("    return None")
        elif ret[1]:
            self.src.append(f"    return t_{ret[0]}")
        elif ret[0] in pos:
            self.src.append(f"    return a{pos[ret[0]]}")
        elif getattr(iface, "return_numpy", None) is not None:
            self.ns["RET"] = np.dtype(iface.return_numpy).type  # NumPy-typed, as in Python
            self.src.append("    return RET(r)")
        else:
            self.src.append("    return r")
