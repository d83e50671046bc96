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

MISS = object()


def _lin_py(d: dict, env: dict[str, str]) -> str:
    parts = [str(d["const"])]
    for atom, c in d["terms"]:
        term = f"(({_lin_py(atom['num'], env)}) // {atom['den']})" if isinstance(atom, dict) \
            else env[atom]
        parts.append(f"{c} * {term}")
    return " + ".join(parts)


def make_fast_call(ck: Any, type_key: tuple) -> Callable[[tuple], object]:
    """The generated wrapper of ``ck`` (a CompiledKernel) for argument types ``type_key``."""
    iface = ck.iface
    pos = {n: k for k, n in enumerate(iface.arg_names)}
    ns: dict[str, Any] = {"MISS": MISS, "ndarray": np.ndarray, "slow": ck.__call__,
                          "check": ck.check, "fn": ck.fn, "from_buffer": ck.ffi.from_buffer,
                          "cast": ck.ffi.cast, "np_empty": np.empty}
    src = ["def fast(args):", f"    if len(args) != {len(iface.arg_names)}:", "        return MISS"]
    for k, key in enumerate(type_key):
        src.append(f"    a{k} = args[{k}]")
        if key[0] is np.ndarray:
            ns[f"D{k}"] = key[1]
            src.append(f"    if type(a{k}) is not ndarray or a{k}.dtype is not D{k} "
                       f"or a{k}.ndim != {key[2]}:")
        else:
            ns[f"T{k}"] = key[0]
            src.append(f"    if type(a{k}) is not T{k}:")
        src.append("        return MISS")
    env: dict[str, str] = {}
    arrays = [a for a in iface.arrays if a.kind == "argument"]
    for a in arrays:
        k = pos[a.name]
        cond = f"not a{k}.flags.c_contiguous" + (f" or not a{k}.flags.writeable" if a.written else "")
        src += [f"    if {cond}:", "        return slow(args)"]
    for name, (array, dim) in iface.param_sources.items():
        env[name] = f"s_{name}"
        src += [f"    s_{name} = a{pos[array]}.shape[{dim}]",
                f"    if s_{name} > {iface.param_limit}:", "        return slow(args)"]
    for name, kind, _ in iface.c_args:
        if kind == "param" and name in pos:
            env[name] = f"s_{name}"
            limit = getattr(iface, "param_limit", 2**63 - 1)
            src += [f"    s_{name} = a{pos[name]}",
                    f"    if not {-limit} <= s_{name} <= {limit}:",
                    "        return slow(args)"]
    for a in iface.arrays:
        ns[f"B_{a.name}"] = ck.buffer_type[a.name]
    for a in arrays:
        src.append(f"    b_{a.name} = from_buffer(B_{a.name}, a{pos[a.name]})")
    if len(arrays) > 1 and any(a.written for a in arrays):
        for a in arrays:
            src.append(f"    p_{a.name} = int(cast('uintptr_t', b_{a.name}))")
            src.append(f"    e_{a.name} = p_{a.name} + a{pos[a.name]}.nbytes")
        for x in range(len(arrays)):
            for y in range(x + 1, len(arrays)):
                p, q = arrays[x], arrays[y]
                if p.written or q.written:
                    src += [f"    if p_{p.name} < e_{q.name} and p_{q.name} < e_{p.name}:",
                            "        return slow(args)"]
    params = [f"s_{n}" for n, kind, _ in iface.c_args if kind == "param"]
    src += [f"    if check({', '.join(params)}):", "        return slow(args)"]
    for t in (a for a in iface.arrays if a.kind != "argument"):
        shape = ", ".join(f"({_lin_py(d, env)})" for d in t.shape)
        src.append(f"    shape_{t.name} = ({shape},)")
        src += [f"    if min(shape_{t.name}, default=0) < 0:", "        return slow(args)"]
        src.append(f"    t_{t.name} = np_empty(shape_{t.name}, dtype='{t.dtype}')")
        src.append(f"    b_{t.name} = from_buffer(B_{t.name}, t_{t.name})")
    call_args = []
    for name, kind, _ in iface.c_args:
        if kind == "param":
            call_args.append(f"s_{name}")
        elif kind == "array":
            call_args.append(f"b_{name}")
        else:
            call_args.append(f"a{pos[name]}")
    src.append(f"    r = fn({', '.join(call_args)})")
    ret = iface.returns
    if ret is None:
        src.append("    return None")
    elif ret[1]:
        src.append(f"    return t_{ret[0]}")
    elif ret[0] in pos:
        src.append(f"    return a{pos[ret[0]]}")
    elif iface.return_numpy is not None:  # a strong scalar: the NumPy type CPython gives
        ns["R"] = np.dtype(iface.return_numpy).type
        src.append("    return R(r)")
    else:
        src.append("    return r")
    exec(compile("\n".join(src), f"<polyopt call wrapper {iface.function}>", "exec"), ns)
    return ns["fast"]
