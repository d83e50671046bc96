"""``@polyopt.jit``: compile a Python loop function to C on its first call per signature.

Like Numba's ``@njit``, a :class:`Kernel` dispatches on the argument types
(dtype and rank of arrays, kind of scalars) and keeps one compiled
specialization per signature, in memory and on disk.  A new process with a
warm disk cache goes straight from the function's source text to the library,
without re-running the analysis.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import polyopt.backend_c
import polyopt.frontends
from polyopt.backend_c import build, index
from polyopt.backend_c.call import CompiledKernel
from polyopt.backend_c.emit import emit
from polyopt.backend_c.fastcall import MISS, make_fast_call
from polyopt.backend_c.interface import interface_of
from polyopt.backend_c.work import parallel_min_instances
from polyopt.frontends.python import parse_function
from polyopt.frontends.python_types import type_of_value
from polyopt.model import target
from polyopt.model.errors import CompileError, UnsupportedError, warn_user
from polyopt.model.options import FuseMode, Options
from polyopt.model.signature import Signature
from polyopt.report.analysis import analysis, text_report
from polyopt.scheduler import pipeline


class Kernel:
    """A compiled-on-demand loop function.  Call it like the original."""

    def __init__(self, fn: Callable[..., Any], options: Options,
                 steps: tuple | None = None) -> None:
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.options = options
        self.steps = steps  # a user schedule's steps, or None for the automatic one
        self._signature = inspect.signature(fn)
        self._arg_names = list(self._signature.parameters)
        self._specializations: dict[tuple, CompiledKernel] = {}
        self._plans: dict[Signature | None, pipeline.Plan] = {}
        self._last: Signature | None = None
        self._failed: str | None = None
        self._wrappers: dict[tuple, Callable[[tuple], object]] = {}  # generated, per signature
        self._fast: Callable[[tuple], object] | None = None  # the last signature's wrapper
        # the global and closure values compiled in, checked on every call (Python reads
        # them at call time); None until the first compilation reads them
        self._watch: list[list[Any]] | None = None
        self._states: dict[tuple, tuple] = {}  # compiled state per snapshot of those values

    # --- calling ------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._watch and _changed(self._watch):
            self._rebind()
        if self._fast is not None:
            if kwargs and not args and len(kwargs) == len(self._arg_names):
                try:  # all arguments by keyword: reorder them for the wrapper
                    args = tuple(kwargs[n] for n in self._arg_names)
                    kwargs = {}
                except KeyError:
                    pass
            if not kwargs:
                result = self._fast(args)
                if result is not MISS:
                    return result
        if kwargs or len(args) != len(self._arg_names):
            args = self._bind(f"{self.__name__}()", args, kwargs)
        key = tuple(_type_key(a) for a in args)
        compiled = self._specializations.get(key)
        if compiled is None:
            if self._watch is None:
                self._watch = _watch_list(self.py_func)
            if self._failed is not None:
                return self.py_func(*args)
            try:
                compiled = self._compile_for(args)
            except (UnsupportedError, CompileError) as exc:
                if not self.options.fallback:
                    raise
                self._failed = str(exc)
                warn_user(f"polyopt: running {self.__name__} as plain Python: {exc}")
                return self.py_func(*args)
            self._specializations[key] = compiled
            self._wrappers[key] = make_fast_call(compiled, key)
        self._fast = self._wrappers[key]
        return compiled(args)

    def _bind(self, what: str, args: tuple, kwargs: dict) -> tuple:
        """The arguments in the function's order, defaults applied; an unknown keyword is
        named as Python names it (inspect's bind reports a missing argument first)."""
        for k in kwargs:
            if k not in self._signature.parameters:
                raise TypeError(f"{what} got an unexpected keyword argument {k!r}")
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self._arg_names)

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:  # the class attribute itself (and staticmethod's unwrapping)
            return self
        raise TypeError(_METHOD_REFUSAL.format(self.__qualname__))

    def _compile_for(self, args: tuple) -> CompiledKernel:
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in self._signature.parameters.values()):
            parse_function(self.py_func, None)  # reports `*args`/`**kwargs` at the `def`
        sig = Signature(tuple((n, type_of_value(a)) for n, a in zip(self._arg_names, args, strict=True)))
        self._last = sig
        return self.compile(sig)

    def compile(self, sig: Signature) -> CompiledKernel:
        """Build (or load from the cache) the specialization for ``sig``."""
        tc = build.toolchain(self._extra_flags())
        front = self._front_key(sig, tc) if self.options.cache else None
        if front is not None:
            hit = index.load(front, self._arg_names, sig)
            if hit is not None:
                return hit
        p = self.plan(sig)
        kernel = emit(p.scop, p.tree, _c_name(self.__name__), vector_math=self._vector_math)
        iface = interface_of(p.scop, kernel)
        lib = build.build(kernel.source, tc, self.__name__, use_cache=self.options.cache)
        try:
            compiled = CompiledKernel(iface, lib, lib.with_name("kernel.c"))
        except CompileError:
            if not self.options.cache:
                raise
            build.discard(lib.parent)  # a cached library that passed its hash but cannot load
            lib = build.build(kernel.source, tc, self.__name__)
            compiled = CompiledKernel(iface, lib, lib.with_name("kernel.c"))
        if front is not None:
            index.store(front, build.library_key(kernel.source, tc), iface)
        return compiled

    def _extra_flags(self) -> tuple[str, ...]:
        if self.options.strict_fp:
            # no fused multiply-add either: `a*b - c` must round like Python's
            return ("-ffp-contract=off",)
        return ("-ffast-math",) if self.options.fastmath else ()

    def _front_key(self, sig: Signature, tc: build.Toolchain) -> str | None:
        """The index key: everything that changes the generated C or its build."""
        try:
            source = inspect.getsource(self.py_func)
        except (OSError, TypeError):
            return None
        h = hashlib.sha256()
        steps = "" if self.steps is None else repr(self.steps)
        for part in (_polyopt_digest(), source, str(sig), self.options.key(), steps,
                     repr(_referenced_values(self.py_func)), repr(target.vector_unit()),
                     str(parallel_min_instances()), build.FORMAT_VERSION,
                     tc.identity, " ".join(tc.compiler), " ".join(tc.flags)):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]

    def _rebind(self) -> None:
        """A watched global or closure value changed: switch to the compiled state of the
        new values (kept in memory per snapshot; a new one loads through the disk cache)."""
        old = self._watch or []
        self._states[_snapshot(old)] = (self._specializations, self._plans, self._wrappers,
                                        self._failed)
        self._watch = _watch_list(self.py_func)
        state = self._states.pop(_snapshot(self._watch), None)
        if state is None:
            state = ({}, {}, {}, None)
        self._specializations, self._plans, self._wrappers, self._failed = state
        self._fast = None

    # --- analysis -----------------------------------------------------------------------

    def plan(self, sig: Signature | None = None) -> pipeline.Plan:
        """The analysed model for ``sig`` (the last call's, or types inferred from use)."""
        if self._watch is None:
            self._watch = _watch_list(self.py_func)
        elif _changed(self._watch):
            self._rebind()
        if sig not in self._plans:
            self._plans[sig] = pipeline.plan(parse_function(self.py_func, sig), self.options,
                                             self.steps)
        return self._plans[sig]

    def _sig_for(self, args: tuple, kwargs: dict) -> Signature | None:
        if not args and not kwargs:
            return self._last
        method = sys._getframe(1).f_code.co_name  # report, dependences or c_source
        unknown = [k for k in kwargs if k not in self._signature.parameters]
        if unknown:
            raise TypeError(
                f"{self.__name__}.{method}() takes the arguments of {self.__name__}("
                f"{', '.join(self._arg_names)}) to choose the specialization, or none for "
                f"the last call's; {unknown[0]!r} is not one of them")
        args = self._bind(f"{self.__name__}.{method}()", args, kwargs)
        return Signature(tuple((n, type_of_value(a)) for n, a in zip(self._arg_names, args,
                                                                      strict=True)))

    def report(self, *args: Any, **kwargs: Any) -> str:
        """The dependences and, for every loop, whether it runs in parallel and why not."""
        notes = self.plan(self._sig_for(args, kwargs)).notes  # what isl's budget gave up
        return text_report(self.dependences(*args, **kwargs)) + "".join(
            f"\nnote: {n}" for n in notes)

    def dependences(self, *args: Any, **kwargs: Any):
        """The dependence analysis as data (:class:`polyopt.report.Analysis`)."""
        p = self.plan(self._sig_for(args, kwargs))
        return analysis(p.source, p.source_deps)

    @property
    def _vector_math(self) -> bool:
        """float32 exp/log/sin/cos through glibc's vector variants: part of vectorizing,
        and never under strict_fp."""
        return self.options.vectorize and not self.options.strict_fp

    def c_source(self, *args: Any, **kwargs: Any) -> str:
        """The C code compiled for these arguments' types."""
        p = self.plan(self._sig_for(args, kwargs))
        return emit(p.scop, p.tree, _c_name(self.__name__),
                    vector_math=self._vector_math).source

    def __repr__(self) -> str:
        return f"<polyopt.jit {self.__name__} ({len(self._specializations)} compiled)>"


def jit(fn: Callable[..., Any] | None = None, *, parallel: bool = True, vectorize: bool = True,
        tile: bool | tuple[int, ...] = True, fuse: FuseMode = "smart", interchange: bool = True,
        licm: bool = True, unroll_jam: bool = True, pack: bool = True, fastmath: bool = False,
        strict_fp: bool = False, auto: bool = True, cache: bool = True,
        fallback: bool = False) -> Any:
    """Compile a loop function to parallel, vectorized C.

    Works bare (``@polyopt.jit``) and with options (``@polyopt.jit(parallel=False)``):

    - ``parallel``: OpenMP ``parallel for`` on the outermost parallel loops.
    - ``vectorize``: ``omp simd`` on vectorizable innermost loops.
    - ``tile``: tile bands that carry reuse (``True``: sizes from a cache model, or a
      tuple of sizes).
    - ``fuse``: ``"smart"`` (loops that share data, keeping parallelism), ``"max"``
      (whenever legal) or ``"none"``.
    - ``interchange``: reorder loops for outer parallelism and unit stride.
    - ``licm``: keep invariant accumulators in registers.
    - ``unroll_jam``: register-tile matmul-like reductions (unroll-and-jam).
    - ``pack``: with ``unroll_jam``, copy a matmul's column operand into contiguous
      panels first (a temporary the size of that operand).
    - ``fastmath``: compile with ``-ffast-math``.
    - ``strict_fp``: never reassociate floating-point operations (no parallel or
      vectorized reductions of floats).  By default reductions are reassociated, as
      OpenMP and Numba users expect; results then match Python within rounding.
    - ``auto``: ``False`` keeps the source's loop order.
    - ``cache``: reuse builds from the on-disk cache.  ``fallback``: run the Python
      function, with a warning, when it cannot be compiled.
    """
    options = Options(parallel=parallel, vectorize=vectorize, tile=tile, fuse=fuse,
                      interchange=interchange, licm=licm, unroll_jam=unroll_jam, pack=pack,
                      fastmath=fastmath, strict_fp=strict_fp, auto=auto, cache=cache,
                      fallback=fallback)
    if fn is None:
        return lambda f: Kernel(f, options)
    if not callable(fn):
        raise TypeError("polyopt.jit decorates a function")
    _refuse_method(fn)
    return Kernel(fn, options)


_METHOD_REFUSAL = ("polyopt.jit does not support methods ({}): decorate a module-level "
                   "function and pass it the arrays it uses")


def _refuse_method(fn: Callable[..., Any]) -> None:
    """A function defined in a class body taking ``self`` or ``cls``: a method, which the
    kernel could not bind (its first argument is no array or number)."""
    parts = getattr(fn, "__qualname__", "").split(".")
    params = list(inspect.signature(fn).parameters) if inspect.isfunction(fn) else []
    if len(parts) > 1 and parts[-2] != "<locals>" and params[:1] in (["self"], ["cls"]):
        raise TypeError(_METHOD_REFUSAL.format(fn.__qualname__))


def _type_key(a: Any) -> tuple:
    if isinstance(a, np.ndarray):
        return (np.ndarray, a.dtype, a.ndim)
    return (type(a),)


def _c_name(name: str) -> str:
    # C identifiers are ASCII here: `def β(...)` must not reach the C compiler as is
    return "polyopt_" + "".join(c if c.isascii() and c.isalnum() else "_" for c in name)


def _referenced_values(fn: Callable[..., Any]) -> list[tuple[str, str]]:
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
    return [(n, _describe_value(env[n])) for n in _names_of(code) if n in env]


_ABSENT = object()
#: the value kinds the frontend compiles in as constants (others are refused or, for
#: modules and types, read as what they name)
_WATCHED = (bool, int, float, complex, np.generic)


def _watch_list(fn: Callable[..., Any]) -> list[list[Any]]:
    """``[namespace, name, value]`` for every global and ``[cell, None, value]`` for every
    closure cell ``fn`` names that holds a number: the values compiled into its C code."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    out: list[list[Any]] = []
    cells = dict(zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False))
    g = getattr(fn, "__globals__", {})
    for name in _names_of(code):
        if name in cells:
            value = _cell_value(cells[name])
            if isinstance(value, _WATCHED):
                out.append([cells[name], None, value])
        elif isinstance(g.get(name), _WATCHED):
            out.append([g, name, g[name]])
    return out


def _cell_value(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _ABSENT


def _changed(watch: list[list[Any]]) -> bool:
    """Whether a watched value is no longer the one compiled in.  The identity test is the
    whole cost of a warm call; a new object with the same type and value is adopted."""
    for entry in watch:
        where, name, value = entry
        now = _cell_value(where) if name is None else where.get(name, _ABSENT)
        if now is value:
            continue
        if type(now) is not type(value) or _describe_value(now) != _describe_value(value):
            return True
        entry[2] = now
    return False


def _snapshot(watch: list[list[Any]]) -> tuple:
    return tuple((e[1], _describe_value(e[2])) for e in watch)


def _names_of(code: Any) -> list[str]:
    names: set[str] = set()
    stack = [code]
    while stack:  # nested code objects (comprehensions) name globals too
        c = stack.pop()
        names.update(c.co_names, c.co_freevars)
        stack.extend(k for k in c.co_consts if inspect.iscode(k))
    return sorted(names)


def _describe_value(v: object) -> str:
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


@functools.lru_cache(maxsize=1)
def _polyopt_digest() -> str:
    """A hash of polyopt's own code: a new version never reuses old cache entries."""
    h = hashlib.sha256()
    for d in (Path(__file__).resolve().parent, *(Path(p.__path__[0]) for p in (
            polyopt.frontends, polyopt.backend_c))):
        for f in sorted(d.rglob("*.py")):
            h.update(f.read_bytes())
    return h.hexdigest()
