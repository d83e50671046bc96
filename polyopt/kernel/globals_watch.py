"""The global and closure values a kernel compiles in, and the watch that notices when
one changes.

Python reads a function's globals at call time, so ``@polyopt.jit`` must too::

    N = 4
    @polyopt.jit
    def f(x):
        for i in range(N): ...       # N is a constant in the C code

    f(x); N = 8; f(x)                # the second call runs a specialization for N = 8

Only numbers are compiled in as constants (modules and types are read as what they
name; the frontend refuses other values), so numbers are watched; and the helpers it
inlines (functions and ``@polyopt.jit`` kernels, by their code), theirs in turn::

    def odd(i): return i % 2
    f(x); def odd(i): return 1 - i % 2; f(x)     # the second call inlines the new odd
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from types import CodeType
from typing import Any

import numpy as np

#: ``[namespace, name, value]`` for a global, ``[cell, None, value]`` for a closure cell:
#: mutable, so that an equal new object replaces the old one in place
Watch = list[list[Any]]
#: what a watch's values stand for, comparable across watches
Snapshot = tuple[tuple[str | None, str], ...]

_ABSENT = object()
#: the value kinds the frontend compiles in as constants
WATCHED = (bool, int, float, complex, np.generic)


def referenced_values(fn: Callable[..., Any]) -> list[tuple[str, str]]:
    """What the globals and closure cells ``fn`` names stand for, as the frontend reads
    them: the value of a number, the name of a module or a type, else the type's name
    (the frontend refuses those).  Two closures of one factory differ here."""
    env = dict(getattr(fn, "__globals__", {}))
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False):
        try:
            env[name] = cell.cell_contents
        except ValueError:  # an empty cell
            env.pop(name, None)
    return [(n, describe_value(env[n])) for n in names_of(code) if n in env]


def watch_list(fn: Callable[..., Any], _seen: set[int] | None = None) -> Watch:
    """An entry for every global and closure cell ``fn`` names that holds a number or a
    helper (the values and code compiled into its C code), and those of its helpers."""
    code = getattr(fn, "__code__", None)
    seen = set() if _seen is None else _seen
    if code is None or id(code) in seen:
        return []
    seen.add(id(code))
    out: Watch = []
    cells = dict(zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False))
    g = getattr(fn, "__globals__", {})
    for name in names_of(code):
        where, key = (cells[name], None) if name in cells else (g, name)
        value = _cell_value(where) if key is None else g.get(name, _ABSENT)
        helper = _helper(value)
        if isinstance(value, WATCHED) or helper is not None:
            out.append([where, key, value])
        if helper is not None:
            out += watch_list(helper, seen)
    return out


def _helper(value: object) -> Callable[..., Any] | None:
    """The Python function a helper is (a ``@polyopt.jit`` kernel's own); None for
    another value, and for polyopt's own functions (``prange``), which no call inlines."""
    fn = getattr(value, "py_func", value)
    if not inspect.isfunction(fn) or fn.__module__.split(".")[0] == "polyopt":
        return None
    return fn


def _cell_value(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _ABSENT


def changed(watch: Watch) -> bool:
    """Whether a watched value is no longer the one compiled in.  The identity test is the
    whole cost of a warm call; a new object with the same type and value is adopted."""
    for entry in watch:
        where, name, value = entry
        now = _cell_value(where) if name is None else where.get(name, _ABSENT)
        if now is value:
            continue
        if type(now) is not type(value) or describe_value(now) != describe_value(value):
            return True
        entry[2] = now
    return False


def snapshot(watch: Watch) -> Snapshot:
    return tuple((e[1], describe_value(e[2])) for e in watch)


def names_of(code: CodeType) -> list[str]:
    names: set[str] = set()
    stack = [code]
    while stack:  # nested code objects (comprehensions) name globals too
        c = stack.pop()
        names.update(c.co_names, c.co_freevars)
        stack.extend(k for k in c.co_consts if isinstance(k, CodeType))
    return sorted(names)


def describe_value(v: object) -> str:
    """A value as the C code depends on it: numbers by value, modules and types by name."""
    if isinstance(v, (bool, int, float, complex, str, bytes)) or v is None:
        return f"{type(v).__name__}:{v!r}"
    if inspect.ismodule(v):
        return f"module:{v.__name__}"
    if isinstance(v, type):
        return f"type:{v.__module__}.{v.__qualname__}"
    if isinstance(v, np.generic):
        return f"{type(v).__name__}:{v!r}"
    helper = _helper(v)
    if helper is not None:  # by its code: a helper defined again is another one
        text = _code_text(helper.__code__) + repr(helper.__defaults__)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return f"function:{helper.__module__}.{helper.__qualname__}:{digest}"
    kind = type(v)
    return f"object:{kind.__module__}.{kind.__qualname__}:{getattr(v, '__qualname__', '')}"


def _code_text(c: CodeType) -> str:
    """What a code object computes, the same in every process (a nested code object's
    repr holds its address)."""
    consts = [_code_text(k) if isinstance(k, CodeType) else repr(k) for k in c.co_consts]
    return repr((c.co_code, consts, c.co_names, c.co_varnames))
