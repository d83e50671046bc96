"""The front index of the build cache: from a function's source and signature straight to
its library and the interface that calls it, without re-running the analysis.

An entry is a JSON file ``index/<front key>.json`` holding the library's key, the
:class:`KernelInterface` and the SHA-256 of both.  On load the entry is checked as
strictly as a library: its schema, its hash, and its agreement with the kernel being
called (argument names, array dtypes and ranks, scalar types).  The C code trusts the
interface blindly (a wrong rank or size source reads outside an array), so an entry
that fails any check is discarded, with one warning, and the kernel is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from polyopt.backend_c import build
from polyopt.backend_c.call import CompiledKernel
from polyopt.backend_c.interface import DROPPED, KernelInterface

from polyopt.model.dtypes import DType
from polyopt.model.errors import PolyoptError, warn_user
from polyopt.model.signature import ArrayType, ScalarType, Signature

INDEX_VERSION = 2
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEY = re.compile(r"[0-9a-f]{32}\Z")
_DTYPES = {d.value: d.c_name for d in DType}
_CTYPES = set(_DTYPES.values())
_KINDS = {"argument", "temporary", "returned", DROPPED}


class BadEntry(ValueError):
    """An index entry that cannot be trusted (the message says why)."""


def _path(front: str) -> Path:
    return build.cache_root() / "index" / f"{front}.json"


def _digest(library: str, interface: dict[str, Any]) -> str:
    text = json.dumps({"library": library, "interface": interface}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def load(front: str, arg_names: list[str], sig: Signature) -> CompiledKernel | None:
    """The kernel of a sound entry, or None (a bad entry is removed, with a warning)."""
    path = _path(front)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None  # no entry (or no readable cache): nothing to discard
    try:
        library, iface = _check(text, arg_names, sig)
    except BadEntry as exc:
        _discard(path, str(exc))
        return None
    lib = build.cached_library(library)
    if lib is None:
        return None
    try:
        return CompiledKernel(iface, lib)
    except PolyoptError as exc:  # the library lacks the interface's functions
        _discard(path, str(exc))  # (a library that cannot load at all is rebuilt by jit)
        return None


def store(front: str, library: str, iface: KernelInterface) -> None:
    """Publish an entry atomically; a cache that cannot be written is skipped."""
    path = _path(front)
    interface = iface.to_json()
    entry = {"version": INDEX_VERSION, "library": library, "interface": interface,
             "sha256": _digest(library, json.loads(json.dumps(interface)))}
    publish(path, json.dumps(entry))


def publish(path: Path, text: str) -> None:
    """Write ``path`` atomically (a temporary renamed into place); a cache that cannot be
    written is skipped, with one warning."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        build.warn_unusable(exc)
        try:
            tmp.unlink()
        except OSError:
            pass


def _discard(path: Path, why: str) -> None:
    warn_user(f"polyopt: discarding the cache index entry {path} ({why}); rebuilding")
    try:
        path.unlink()
    except OSError:
        pass


def _check(text: str, arg_names: list[str], sig: Signature) -> tuple[str, KernelInterface]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadEntry(f"not JSON: {exc}") from None
    _require(isinstance(data, dict) and set(data) == {"version", "library", "interface", "sha256"},
             "not an index entry")
    _require(data["version"] == INDEX_VERSION, "another version's entry")
    library, interface = data["library"], data["interface"]
    _require(isinstance(library, str) and _KEY.match(library) is not None, "bad library key")
    _require(isinstance(interface, dict), "no interface")
    _require(data["sha256"] == _digest(library, interface), "SHA-256 mismatch")
    iface = _interface(interface)
    _consistent(iface, arg_names, sig)
    return library, iface


def _require(ok: bool, why: str) -> None:
    if not ok:
        raise BadEntry(why)


def _str_list(x: object, n: int | None = None) -> bool:
    return isinstance(x, list) and all(isinstance(s, str) for s in x) and (n is None or len(x) == n)


def _int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _lin(d: object, params: set[str]) -> bool:
    if not (isinstance(d, dict) and set(d) == {"terms", "const"} and _int(d["const"])
            and isinstance(d["terms"], list)):
        return False
    for t in d["terms"]:
        if not (isinstance(t, list) and len(t) == 2 and _int(t[1])):
            return False
        atom = t[0]
        if isinstance(atom, str):
            if atom not in params:
                return False
        elif not (isinstance(atom, dict) and set(atom) == {"num", "den"} and _int(atom["den"])
                  and atom["den"] > 0 and _lin(atom["num"], params)):
            return False
    return True


_FIELDS = {"function", "check_function", "arg_names", "c_args", "param_sources", "arrays",
           "scalar_args", "returns", "return_ctype", "check_messages", "return_numpy",
           "param_limit", "raises", "int32_args", "size_checks", "check_sources",
           "narrow_args"}
_ARRAY_FIELDS = {"name", "dtype", "rank", "kind", "written", "shape", "clamped"}


def _array_dims(sources: object, by_name: dict[str, Any]) -> bool:
    """``{name: [argument array, dimension]}``."""
    return isinstance(sources, dict) and all(
        isinstance(v, list) and len(v) == 2 and v[0] in by_name
        and by_name[v[0]]["kind"] == "argument" and _int(v[1]) and 0 <= v[1] < by_name[v[0]]["rank"]
        for v in sources.values())


def _interface(d: dict[str, Any]) -> KernelInterface:
    """The interface of a JSON object of exactly the expected shape."""
    d = {"narrow_args": [], **d}  # entries written before narrow dtypes have none
    _require(set(d) == _FIELDS, "interface fields")
    fn = d["function"]
    _require(isinstance(fn, str) and _IDENT.match(fn) is not None, "function name")
    _require(d["check_function"] == f"{fn}_check", "check function name")
    _require(_str_list(d["arg_names"]), "argument names")
    c_args = d["c_args"]
    _require(isinstance(c_args, list) and all(
        _str_list(a, 3) and _IDENT.match(a[0]) is not None
        and a[1] in ("param", "scalar", "array") and a[2] in _CTYPES for a in c_args), "C arguments")
    params = {a[0] for a in c_args if a[1] == "param"}
    _require(all(a[2] == "int64_t" for a in c_args if a[1] == "param"), "size parameter type")
    arrays = d["arrays"]
    _require(isinstance(arrays, list) and all(
        isinstance(a, dict) and set(a) == _ARRAY_FIELDS and isinstance(a["name"], str)
        and a["dtype"] in _DTYPES and _int(a["rank"]) and 0 <= a["rank"] <= 32
        and a["kind"] in _KINDS and isinstance(a["written"], bool)
        and isinstance(a["clamped"], bool) and isinstance(a["shape"], list) and len(a["shape"]) == a["rank"]
        and all(_lin(e, params) for e in a["shape"]) for a in arrays), "arrays")
    by_name = {a["name"]: a for a in arrays}
    sources = d["param_sources"]
    _require(_array_dims(sources, by_name) and set(sources) <= params, "size sources")
    _require(isinstance(d["scalar_args"], list) and all(
        _str_list(s, 2) and s[1] in _CTYPES for s in d["scalar_args"]), "scalar arguments")
    # every C argument is an array, a scalar argument or a size, of the type it has there
    scalars = {s[0]: s[1] for s in d["scalar_args"]}
    for name, kind, ct in c_args:
        _require(kind != "array" or (name in by_name and _DTYPES[by_name[name]["dtype"]] == ct),
                 f"array argument {name}")
        _require(kind != "scalar" or scalars.get(name) == ct, f"scalar argument {name}")
    _require({a[0] for a in c_args if a[1] == "array"}
             == {n for n, a in by_name.items() if a["kind"] != DROPPED}
             and {a[0] for a in c_args if a[1] == "scalar"} == set(scalars)
             and len({a[0] for a in c_args}) == len(c_args), "C arguments and arrays")
    ret = d["returns"]
    _require(ret is None or (isinstance(ret, list) and len(ret) == 2 and isinstance(ret[0], str)
                             and isinstance(ret[1], bool)), "returns")
    rct = d["return_ctype"]
    _require(rct is None or rct in _CTYPES, "return type")
    if ret is not None:
        _require((ret[0] in by_name) == ret[1] and (rct is None) == ret[1], "returned value")
    else:
        _require(rct is None, "return type without a return")
    _require(_str_list(d["check_messages"]), "check messages")
    _require(d["return_numpy"] is None or d["return_numpy"] in _DTYPES, "returned dtype")
    _require(_int(d["param_limit"]) and 0 <= d["param_limit"] < 2**63, "size limit")
    _require(isinstance(d["raises"], bool), "error flag")
    _require(_str_list(d["int32_args"]) and set(d["int32_args"]) <= set(d["arg_names"]),
             "int32-checked arguments")
    checked = d["check_sources"]
    _require(_array_dims(checked, by_name) and not set(checked) & params, "checked sizes")
    _require(isinstance(d["size_checks"], list) and all(
        isinstance(c, list) and len(c) == 3 and _lin(c[0], params | set(checked))
        and _lin(c[1], params | set(checked)) and isinstance(c[2], str)
        for c in d["size_checks"]), "size checks")
    _require(isinstance(d["narrow_args"], list) and all(
        _str_list(a, 2) and a[0] in d["arg_names"] and a[1] in _DTYPES for a in d["narrow_args"]),
        "range-checked arguments")
    try:
        return KernelInterface.from_json(d)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadEntry(f"interface: {exc}") from None


def _consistent(iface: KernelInterface, arg_names: list[str], sig: Signature) -> None:
    """The interface is the one of the kernel being called, for this signature."""
    _require(list(iface.arg_names) == list(arg_names), "argument names differ from the function's")
    for a in iface.arrays:
        t = sig.get(a.name)
        if a.kind == "argument":
            _require(isinstance(t, ArrayType) and t.dtype.value == a.dtype and t.ndim == a.rank,
                     f"array {a.name} differs from the call's")
        else:
            _require(t is None, f"temporary {a.name} shadows an argument")
    for name, ct in iface.scalar_args:
        t = sig.get(name)
        _require(isinstance(t, ScalarType) and t.type.dtype.c_name == ct,
                 f"scalar {name} differs from the call's")
    for name, kind, _ in iface.c_args:
        if kind == "param" and name not in iface.param_sources:
            t = sig.get(name)
            _require(isinstance(t, ScalarType) and t.is_int, f"int argument {name}")
    for name, t in sig.args:
        if isinstance(t, ArrayType):
            _require(any(a.name == name and a.kind == "argument" for a in iface.arrays)
                     or name not in {n for n, _, _ in iface.c_args}, f"argument {name}")
