"""The global and closure values a kernel compiles in, and the watch that notices when
one changes.

Python reads a function's globals at call time, so ``@polyopt.jit`` must too::

    N = 4
    @polyopt.jit
    def f(x):
        for i in range(N): ...       # N is a constant in the C code

    f(x); N = 8; f(x)                # the second call runs a specialization for N = 8

Only numbers are compiled in as constants (modules and types are read as what they
name; the frontend refuses other values), so only numbers are watched.
"""

from __future__ import annotations

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


def watch_list(fn: Callable[..., Any]) -> Watch:
    """An entry for every global and closure cell ``fn`` names that holds a number: the
    values compiled into its C code."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    out: Watch = []
    cells = dict(zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False))
    g = getattr(fn, "__globals__", {})
    for name in names_of(code):
        if name in cells:
            value = _cell_value(cells[name])
            if isinstance(value, WATCHED):
                out.append([cells[name], None, value])
        elif isinstance(g.get(name), WATCHED):
            out.append([g, name, g[name]])
    return out


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
    kind = type(v)
    return f"object:{kind.__module__}.{kind.__qualname__}:{getattr(v, '__qualname__', '')}"
