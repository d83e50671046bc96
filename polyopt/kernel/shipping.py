"""A kernel's function sent to another process (``pickle``, ``multiprocessing``, Dask) as
its source text, so that the receiver rebuilds it, compiles nothing it has in its disk
cache, and compiles at most once per signature what it has not.

A kernel its module can import again (``mymodule.smooth``) goes by that name; one that
it cannot (defined in ``__main__``, a notebook cell, or inside a function) goes as a
:class:`FunctionSource`: the text :func:`inspect.getsource` gives (the key of the disk
cache, so a rebuilt function finds the sender's entries), its line numbers, and the
numbers, modules and types its globals and closure cells hold, and the functions they
name: by module and qualified name where the receiver can import them (``math.sqrt``,
``polyopt.prange``, ``np.hypot``), else (a script's helper) as a :class:`FunctionSource`
of their own, sent the same way.  A function that can go neither way (a lambda, one
without source text) stops the pickling, naming it; other values (an array, an object)
are not sent: the frontend refuses them in a kernel anyway.

The receiver compiles the text again with its line numbers, the decorators replaced by
one that does nothing (the rebuilt kernel is made from the function) and default values
and annotations set after the ``def`` (they may name what was not sent)::

    @polyopt.jit(parallel=False)                 @__polyopt_keep__
    def f(x, n=N): ...                 ->        def f(x, n=None): ...     # __defaults__ = (4,)
"""

from __future__ import annotations

import ast
import dis
import importlib
import inspect
import linecache
import textwrap
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from polyopt.kernel.globals_watch import WATCHED, names_of

#: a value sent for a global or closure name: ("module", name), ("value", value),
#: ("import", (module, qualname)), ("source", FunctionSource) or, for a kernel used as a
#: helper, ("reduced", its __reduce__ tuple), so that it is rebuilt with its caller
Sent = tuple[str, Any]

#: the functions being sent, outermost first (a helper's helpers are sent inside it)
_SENDING: ContextVar[tuple[Callable[..., Any], ...]] = ContextVar("polyopt_sending", default=())
#: the functions sent so far for the outermost one, by id: one reached twice (two helpers
#: calling a third) is one object in the pickle, and so one function again in the receiver
_SENT: ContextVar[dict[int, FunctionSource] | None] = ContextVar("polyopt_sent", default=None)
#: while a kernel is rebuilt: one namespace per module its functions come from, and the
#: functions rebuilt, by the id of what was received for them
_REBUILDING: ContextVar[_Rebuilding | None] = ContextVar("polyopt_rebuilding", default=None)


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


@dataclass
class _Rebuilding:
    namespaces: dict[str, dict[str, Any]]
    functions: dict[int, types.FunctionType]


def function_source(fn: Callable[..., Any]) -> FunctionSource:
    """What :func:`rebuild` needs to make ``fn`` again in another process."""
    sent = _SENT.get()
    if sent is None:
        token = _SENT.set({})
        try:
            return function_source(fn)
        finally:
            _SENT.reset(token)
    if id(fn) not in sent:
        sent[id(fn)] = _function_source(fn)
    return sent[id(fn)]


def _function_source(fn: Callable[..., Any]) -> FunctionSource:
    with _sending(fn):
        try:
            source = inspect.getsource(fn)
        except (OSError, TypeError):
            raise TypeError(f"cannot pickle {_what_is_sent()}: its source text is not "
                            "available, and another process rebuilds it from that") from None
        if not isinstance(ast.parse(textwrap.dedent(source)).body[0], ast.FunctionDef):
            raise TypeError(f"cannot pickle {_what_is_sent()}: it is not a `def` function "
                            "(another process rebuilds it from its source text)")
        code = fn.__code__
        g = fn.__globals__
        loaded = _loaded_globals(code)
        names = tuple((n, s) for n in names_of(code)
                      if n in g and (s := _send(n, g[n], n in loaded)) is not None)
        closure = tuple((n, _send(n, _cell(c), True))
                        for n, c in zip(code.co_freevars, fn.__closure__ or (), strict=True))
    return FunctionSource(source, code.co_filename, code.co_firstlineno, fn.__qualname__,
                          fn.__module__, names, closure, fn.__defaults__, fn.__kwdefaults__)


@contextmanager
def _sending(fn: Callable[..., Any]) -> Iterator[None]:
    """``fn`` sent inside the functions being sent; a chain back to one of them (a
    recursive helper: the frontend refuses it anyway) stops the pickling."""
    outer = _SENDING.get()
    if fn in outer:
        chain = " -> ".join(f.__qualname__ for f in (*outer[outer.index(fn):], fn))
        raise TypeError(f"cannot pickle {_what_is_sent()}: its helpers call each other in a "
                        f"cycle ({chain}); polyopt inlines helpers, so it cannot compile that")
    token = _SENDING.set((*outer, fn))
    try:
        yield
    finally:
        _SENDING.reset(token)


def _what_is_sent() -> str:
    """The kernel being pickled, and the helper sent for it now."""
    chain = _SENDING.get()
    kernel = f"the polyopt kernel {chain[0].__qualname__}"
    if len(chain) == 1:
        return kernel
    return f"{kernel}'s helper {chain[-1].__qualname__}"


def _loaded_globals(code: types.CodeType) -> set[str]:
    """The names ``code`` (and the code nested in it) reads as globals or closure cells,
    not as attributes (``x.shape`` names ``shape`` too)."""
    out: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        out.update(str(i.argval) for i in dis.get_instructions(c)
                   if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"))
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def _cell(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _send(name: str, v: Any, loaded: bool) -> Sent | None:
    """How the value of the global (or closure cell) ``name`` travels; None for one the
    receiver does without.  ``loaded``: the code reads ``name`` itself, not an attribute
    of that name."""
    if inspect.ismodule(v):
        return ("module", v.__name__)
    if isinstance(v, (*WATCHED, type)):
        return ("value", v)
    if not loaded or not callable(v):
        return None
    if importable(v):  # math.sqrt, polyopt.prange, np.hypot, a helper in a module
        return ("import", (v.__module__, v.__qualname__))
    if inspect.isfunction(getattr(v, "py_func", None)):  # a kernel used as a helper:
        reduced = v.__reduce__()                          # rebuilt with its caller
        return ("reduced", reduced) if isinstance(reduced, tuple) else ("value", v)
    if inspect.isfunction(v) and v.__name__ != "<lambda>":
        return ("source", function_source(v))  # a script's helper
    what = "a lambda" if inspect.isfunction(v) else repr(v)
    raise TypeError(f"cannot pickle {_what_is_sent()}: `{name}` is {what}, which another "
                    "process can neither import by name nor rebuild from its source text "
                    "(define it with `def`, in the script or in a module)")


def _received(s: Sent | None) -> object:
    if s is None:
        return None
    kind, v = s
    if kind == "module":
        return importlib.import_module(v)
    if kind == "import":
        module, qualname = v
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        return found
    if kind == "source":
        return rebuild(v)
    if kind == "reduced":
        make, args = v
        return make(*args)
    return v


def rebuild(fs: FunctionSource) -> types.FunctionType:
    """The function ``fs`` describes, compiled from its text in this process.  The
    functions it names that were sent as text are rebuilt with it, those of one module
    into one namespace: they share its globals as in the sender, where a helper's names
    mean what they mean in its caller (the frontend inlines it there)."""
    state = _REBUILDING.get()
    if state is None:
        token = _REBUILDING.set(_Rebuilding({}, {}))
        try:
            return rebuild(fs)
        finally:
            _REBUILDING.reset(token)
    if id(fs) not in state.functions:
        ns = state.namespaces.setdefault(fs.module, {"__name__": fs.module})
        state.functions[id(fs)] = _rebuilt(fs, ns)
    return state.functions[id(fs)]


def _rebuilt(fs: FunctionSource, ns: dict[str, Any]) -> types.FunctionType:
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
    for n, s in fs.globals:
        value = _received(s)  # first: a helper sent as text is rebuilt (into ``ns`` too)
        ns.setdefault(n, value)  # one module's functions were sent one value per name
    made = "__polyopt_factory__" if free else fdef.name
    bound = {made: ns[made]} if made in ns else {}
    ns["__polyopt_keep__"] = lambda f: f  # read when the function (or factory) runs
    exec(compile(module, filename, "exec"), ns)  # noqa: S102 - the sender's own function
    made_fn = ns.pop(made)
    ns.update(bound)  # the module's name keeps what was sent for it
    fn = made_fn(*(_received(s) for _, s in fs.closure)) if free else made_fn
    fn.__defaults__ = fs.defaults
    fn.__kwdefaults__ = fs.kwdefaults
    fn.__qualname__ = fs.qualname
    assert isinstance(fn, types.FunctionType)
    return fn

