"""A kernel's function sent to another process (``pickle``, ``multiprocessing``, Dask) as
its source text, so that the receiver rebuilds it, compiles nothing it has in its disk
cache, and compiles at most once per signature what it has not.

A kernel its module can import again (``mymodule.smooth``) goes by that name; one that
it cannot (defined in ``__main__``, a notebook cell, or inside a function) goes as a
:class:`FunctionSource`: the text :func:`inspect.getsource` gives (the key of the disk
cache, so a rebuilt function finds the sender's entries), its line numbers, and the
numbers, modules and types its globals and closure cells hold.  Other values (an array,
an object) are not sent: the frontend refuses them in a kernel anyway.

The receiver compiles the text again with its line numbers, the decorators replaced by
one that does nothing (the rebuilt kernel is made from the function) and default values
and annotations set after the ``def`` (they may name what was not sent)::

    @polyopt.jit(parallel=False)                 @__polyopt_keep__
    def f(x, n=N): ...                 ->        def f(x, n=None): ...     # __defaults__ = (4,)
"""

from __future__ import annotations

import ast
import importlib
import inspect
import linecache
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from polyopt.kernel.globals_watch import WATCHED, names_of

#: a value sent for a global or closure name: ("module", name) or ("value", value)
Sent = tuple[str, Any]


@dataclass(frozen=True)
class FunctionSource:
    source: str
    filename: str
    firstlineno: int
    qualname: str
    module: str
    globals: tuple[tuple[str, Sent], ...]
    closure: tuple[tuple[str, Sent | None], ...]  # per free variable, in co_freevars order
    defaults: tuple[Any, ...] | None
    kwdefaults: dict[str, Any] | None


def importable(obj: object) -> bool:
    """Whether ``obj`` is what its module's attribute of its qualified name holds, in a
    module another process can import (not ``__main__``)."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", "")
    if not module or module == "__main__" or "<locals>" in qualname:
        return False
    try:
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return False
    return found is obj


def function_source(fn: Callable[..., Any]) -> FunctionSource:
    """What :func:`rebuild` needs to make ``fn`` again in another process."""
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        raise TypeError(f"cannot pickle the polyopt kernel {fn.__qualname__}: its source "
                        "text is not available, and another process rebuilds it from that"
                        ) from None
    code = fn.__code__
    g = fn.__globals__
    sent = tuple((n, s) for n in names_of(code) if n in g and (s := _send(g[n])) is not None)
    closure = tuple((n, _send(_cell(c)))
                    for n, c in zip(code.co_freevars, fn.__closure__ or (), strict=True))
    return FunctionSource(source, code.co_filename, code.co_firstlineno, fn.__qualname__,
                          fn.__module__, sent, closure, fn.__defaults__, fn.__kwdefaults__)


def _cell(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _send(v: object) -> Sent | None:
    if inspect.ismodule(v):
        return ("module", v.__name__)
    if isinstance(v, (*WATCHED, type)):
        return ("value", v)
    return None


def _received(s: Sent | None) -> object:
    if s is None:
        return None
    kind, v = s
    return importlib.import_module(v) if kind == "module" else v


def rebuild(fs: FunctionSource) -> types.FunctionType:
    """The function ``fs`` describes, compiled from its text in this process."""
    tree = ast.parse(textwrap.dedent(fs.source))
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise TypeError(f"the source sent for {fs.qualname} is not a function definition")
    ast.increment_lineno(tree, fs.firstlineno - 1)
    if fdef.decorator_list:
        first = fdef.decorator_list[0]
        fdef.decorator_list = [ast.Name("__polyopt_keep__", ast.Load(), lineno=first.lineno,
                                        col_offset=0)]
    a = fdef.args
    a.defaults = [ast.Constant(None) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(None) for d in a.kw_defaults]
    for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
        if arg is not None:
            arg.annotation = None
    fdef.returns = None
    free = [n for n, _ in fs.closure]
    body: ast.stmt = fdef
    if free:  # a factory whose parameters the function closes over, as it did
        end = fdef.end_lineno or fdef.lineno
        ret = ast.Return(ast.Name(fdef.name, ast.Load()), lineno=end, end_lineno=end)
        body = ast.FunctionDef("__polyopt_factory__", ast.arguments(
            posonlyargs=[], args=[ast.arg(n) for n in free], kwonlyargs=[], kw_defaults=[],
            defaults=[]), [fdef, ret], [], lineno=fs.firstlineno, end_lineno=end)
    module = ast.fix_missing_locations(ast.Module([body], type_ignores=[]))
    filename = f"<polyopt: {fs.qualname} from {fs.filename}>"
    lines = [*["\n"] * (fs.firstlineno - 1), *fs.source.splitlines(keepends=True)]
    linecache.cache[filename] = (len(fs.source), None, lines, filename)
    ns: dict[str, Any] = {"__name__": fs.module, "__polyopt_keep__": lambda f: f}
    ns.update((n, _received(s)) for n, s in fs.globals)
    exec(compile(module, filename, "exec"), ns)  # noqa: S102 - the sender's own function
    fn = ns["__polyopt_factory__"](*(_received(s) for _, s in fs.closure)) if free \
        else ns[fdef.name]
    fn.__defaults__ = fs.defaults
    fn.__kwdefaults__ = fs.kwdefaults
    fn.__qualname__ = fs.qualname
    assert isinstance(fn, types.FunctionType)
    return fn

