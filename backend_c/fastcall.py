"""A straight-line Python wrapper generated per compiled signature (as Numba does).

It performs the same checks as :meth:`CompiledKernel.__call__` without loops
or dictionaries; whenever a check fails it hands the call to that method,
which raises the detailed error.  A call whose argument types do not match
returns :data:`MISS`, so the dispatcher can look for another specialization.

The warm path does as little as the checks allow: cffi's ``from_buffer`` refuses a
non-C-contiguous array (and, asked to, a read-only one), so it is the contiguity and
writability check; overlap compares the buffers' cdata pointers, with no integer
conversion; and the bounds check, a pure function of the sizes, runs in C only when
the sizes differ from the last ones it accepted::

    def fast(args):
        ...type checks...
        try:
            b_a = from_buffer(B_a, a0)
            b_c = from_buffer(B_c, a2, True)       # written: must be writable
        except (ValueError, TypeError):
            return slow(args)                      # raises the detailed error
        e_a = b_a + a0.size; e_c = b_c + a2.size
        if b_a < e_c and b_c < e_a:
            return slow(args)
        sizes = (s_n,)
        if sizes != accepted[0]:
            if check(*sizes): return slow(args)
            accepted[0] = sizes                     # one reference swap: thread-safe
        r = fn(s_n, b_a, b_c)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from polyopt.backend_c.call import python_error
from polyopt.backend_c.interface import DROPPED

from polyopt.model.dtypes import DType

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
    w.overlap()
    w.sizes()
    w.shapes()
    w.bounds()
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
            "fn": ck.fn, "from_buffer": ck.ffi.from_buffer,
            "np_empty": np.empty, "new_flag": ck.ffi.new, "python_error": python_error,
            "accepted": [None]}  # the last sizes the bounds check accepted
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
        for n, dtype in self.iface.narrow_args:
            low, high = DType(dtype).bounds
            self.guard(f"not {low} <= a{self.pos[n]} <= {high}")

    def arrays(self) -> None:
        """The buffers: cffi refuses non-C-contiguous arrays, and read-only ones where the
        kernel writes (the slow path then names the problem)."""
        if not self.arrays_:
            return
        self.src.append("    try:")
        for a in self.arrays_:
            self.src.append(f"        b_{a.name} = from_buffer(B_{a.name}, a{self.pos[a.name]}"
                            + (", True)" if a.written else ")"))
        self.src += ["    except (ValueError, TypeError):", "        return slow(args)"]

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

    def shapes(self) -> None:
        """The equalities NumPy's shape rules require; the slow path raises their error."""
        env = dict(self.env)
        for name, (array, dim) in getattr(self.iface, "check_sources", {}).items():
            env[name] = f"c_{name}"
            self.src.append(f"    c_{name} = a{self.pos[array]}.shape[{dim}]")
        for left, right, _ in getattr(self.iface, "size_checks", ()):
            self.guard(f"{_lin_py(left, env)} != {_lin_py(right, env)}")

    def overlap(self) -> None:
        """A written array sharing memory with another array argument: cdata pointers
        compare by address (the end pointer counts elements of the buffer's own type)."""
        arrays = self.arrays_
        pairs = [(p, q) for x, p in enumerate(arrays) for q in arrays[x + 1:]
                 if p.written or q.written]
        ends = [a for a in arrays if any(a in pair for pair in pairs)]
        for a in ends:
            self.src.append(f"    e_{a.name} = b_{a.name} + a{self.pos[a.name]}.size")
        for p, q in pairs:
            self.guard(f"b_{p.name} < e_{q.name} and b_{q.name} < e_{p.name}")

    def bounds(self) -> None:
        """The compiled bounds check, skipped while the sizes are the last it accepted."""
        params = [f"s_{n}" for n, kind, _ in self.iface.c_args if kind == "param"]
        self.src.append(f"    sizes = ({''.join(p + ', ' for p in params)})")
        self.src.append("    if sizes != accepted[0]:")
        self.src += ["        if check(*sizes):", "            return slow(args)",
                     "        accepted[0] = sizes"]

    def temporaries(self) -> None:
        for t in (a for a in self.iface.arrays if a.kind != "argument"):
            shape = ", ".join(f"max(0, {_lin_py(d, self.env)})" if t.clamped
                              else f"({_lin_py(d, self.env)})" for d in t.shape)
            self.src.append(f"    shape_{t.name} = ({shape},)")
            self.guard(f"min(shape_{t.name}, default=0) < 0")
            if t.kind == DROPPED:
                continue
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
