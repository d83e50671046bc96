"""The :class:`Kernel` that ``@polyopt.jit`` makes: it compiles a Python loop function to C
on its first call per signature.

Like Numba's ``@njit``, a kernel dispatches on the argument types (dtype and rank of
arrays, kind of scalars) and keeps one compiled specialization per signature, in memory
and on disk.  A new process with a warm disk cache goes straight from the function's
source text to the library, without re-running the analysis.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from polyopt.backend_c import build, index, tuned
from polyopt.backend_c.call import CompiledKernel
from polyopt.backend_c.call_entry import warm_call
from polyopt.backend_c.fastcall import MISS
from polyopt.backend_c.symbol import kernel_symbol
from polyopt.backend_c.work import parallel_min_fixed, parallel_min_instances
from polyopt.frontends.python_names import interface_spelling
from polyopt.frontends.python_types import type_of_value
from polyopt.kernel import declared as decl
from polyopt.kernel import shipping
from polyopt.kernel.cache_key import front_key
from polyopt.kernel.globals_watch import Snapshot, Watch, changed, snapshot, watch_list
from polyopt.kernel.threads import team
from polyopt.model.errors import (
    CompileError,
    SizeCheckTooComplex,
    TooComplexError,
    UnsupportedError,
    warn_user,
)
from polyopt.model.options import Options
from polyopt.model.signature import Declared, Signature, parse_declared

# The compiler (frontend, scheduler, code generation) and the reports are imported where
# they are used: a call that finds its library in the disk cache never needs them, and
# importing them made most of a warm start.
if TYPE_CHECKING:
    from polyopt.backend_c.emit import CKernel
    from polyopt.report.analysis import Analysis
    from polyopt.report.notebook import KernelReport
    from polyopt.scheduler.pipeline import Plan
    from polyopt.scheduler.steps import Step

TypeKey = decl.TypeKey
FastCall = Callable[[tuple[Any, ...]], object]
#: what a kernel compiled for one snapshot of its watched values: specializations,
#: plans, wrappers, and why compiling failed
_State: TypeAlias = ("tuple[dict[TypeKey, CompiledKernel], dict[Signature | None, Plan], "
                     "dict[TypeKey, FastCall], str | None]")

METHOD_REFUSAL = ("polyopt.jit does not support methods ({}): decorate a module-level "
                  "function and pass it the arrays it uses")


class Kernel:
    """A compiled-on-demand loop function.  Call it like the original."""

    __name__: str  # the function's, through functools.update_wrapper
    __qualname__: str

    def __init__(self, fn: Callable[..., Any], options: Options,
                 steps: tuple[Step, ...] | None = None) -> None:
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.options = options
        self.steps = steps  # a user schedule's steps, or None for the automatic one
        self._signature = inspect.signature(fn)
        self._arg_names = list(self._signature.parameters)
        # a call of a function with keyword-only or positional-only parameters is always
        # bound: all of its arguments by position, or all by keyword, would be a TypeError
        # in CPython
        self._always_bound = any(p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
                            for p in self._signature.parameters.values())
        self._specializations: dict[TypeKey, CompiledKernel] = {}
        self._plans: dict[Signature | None, Plan] = {}
        self._last: Signature | None = None
        self._failed: str | None = None
        self._wrappers: dict[TypeKey, FastCall] = {}  # generated, per signature
        self._fast: FastCall | None = None  # the last signature's wrapper
        # the tuned choice (None: this kernel's options) each signature was built with here
        self._built_with: dict[Signature, tuned.Choice | None] = {}
        # the global and closure values compiled in, checked on every call (Python reads
        # them at call time); None until the first compilation reads them
        self._watch: Watch | None = None
        self._states: dict[Snapshot, _State] = {}  # compiled state per snapshot of those values
        # signatures given to polyopt.jit: the only ones compiled (as in Numba), or None
        self.declared: tuple[Declared, ...] | None = None
        self.num_threads: int | None = None  # set by ThreadedKernel

    # --- calling ------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._watch and changed(self._watch):
            self._rebind()
        if self._fast is not None and not self._always_bound:
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
        if kwargs or len(args) != len(self._arg_names) or self._always_bound:
            args = self._bind(f"{self.__name__}()", args, kwargs)
        key = tuple(_type_key(a) for a in args)
        compiled = self._specializations.get(key)
        if compiled is None:
            if self._watch is None:
                self._watch = watch_list(self.py_func)
            if self._failed is not None:
                return self.py_func(*args)
            if self.declared is not None:
                return self._call_declared(args)
            try:
                compiled = self._compile_for(args)
            except (UnsupportedError, CompileError) as exc:
                if not self.options.fallback:
                    raise
                self._failed = str(exc)
                warn_user(f"polyopt: running {self.__name__} as plain Python: {exc}")
                return self.py_func(*args)
            self._specializations[key] = compiled
            self._wrappers[key] = warm_call(compiled, key, self.options.cache, self._install)
        self._fast = self._wrappers[key]
        return compiled(args)

    def _install(self, stand_in: FastCall, fast: FastCall) -> None:
        """Replace a signature's stand-in wrapper by the call it made (call_entry.warm_call)."""
        for key, w in self._wrappers.items():
            if w is stand_in:
                self._wrappers[key] = fast
        if self._fast is stand_in:
            self._fast = fast

    def _bind(self, what: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The arguments in the function's order, defaults applied; an unknown keyword is
        named as Python names it (inspect's bind reports a missing argument first)."""
        for k in kwargs:
            if k not in self._signature.parameters:
                raise TypeError(f"{what} got an unexpected keyword argument {k!r}")
        positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                         for p in self._signature.parameters.values())
        if len(args) > positional and self._always_bound:  # CPython's words
            raise TypeError(f"{what} takes {positional} positional argument"
                            f"{'' if positional == 1 else 's'} but {len(args)} were given")
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self._arg_names)

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:  # the class attribute itself (and staticmethod's unwrapping)
            return self
        raise TypeError(METHOD_REFUSAL.format(self.__qualname__))

    def _compile_for(self, args: tuple[Any, ...]) -> CompiledKernel:
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in self._signature.parameters.values()):
            from polyopt.frontends.python import parse_function

            parse_function(self.py_func, None)  # reports `*args`/`**kwargs` at the `def`
        sig = Signature(tuple((n, _argument_type(n, a))
                              for n, a in zip(self._arg_names, args, strict=True)))
        self._last = sig
        return self._build(sig)

    def compile(self, sig: Signature | str, use_tuned: bool = True) -> CompiledKernel:
        """Compile now (or load from the disk cache) the specialization for ``sig``, a
        :class:`Signature` or Numba's notation (``"float64[:, :], float64[:]"``,
        ``"void(f8[:, ::1], f8[:])"``); later calls of those types run it.  A return
        type given is checked against what the function returns.  The options
        ``polyopt.tune`` stored for ``sig`` are used when there are some (and ``use_tuned``)."""
        if isinstance(sig, Signature):
            return self._build(sig, use_tuned)
        if not isinstance(sig, str):
            raise TypeError(f"{self.__name__}.compile() takes a signature string such as "
                            f"'void(f8[:], f8[:])' or a Signature, not {sig!r}")
        try:
            d = parse_declared(sig)
            bound = d.bind(self._arg_names)
        except ValueError as exc:
            raise ValueError(f"{self.__name__}.compile({sig!r}): {exc}") from None
        return self._register(d, bound)

    def _register(self, d: Declared, sig: Signature) -> CompiledKernel:
        key = tuple(decl.type_key(t) for _, t in sig.args)
        compiled = self._specializations.get(key)
        if compiled is None:
            if self._watch is None:
                self._watch = watch_list(self.py_func)
            compiled = self._build(sig)
        wrong = decl.return_mismatch(d, compiled.iface)
        if wrong is not None:
            raise TypeError(f"{self.__name__} does not match its signature {str(d)!r}: {wrong}")
        self._specializations[key] = compiled
        self._wrappers[key] = warm_call(compiled, key, self.options.cache, self._install)
        return compiled

    def _call_declared(self, args: tuple[Any, ...]) -> Any:
        """A call whose types are no declared signature's: convert its scalars to the
        first declared signature they fit, as Numba does, or refuse it."""
        assert self.declared is not None
        for d in self.declared:
            converted = decl.convert(args, d)
            if converted is not None:
                self._register(d, d.bind(self._arg_names))
                return self(*converted)
        why = decl.out_of_range(args, self.declared, tuple(self._arg_names))
        if why is not None:
            raise OverflowError(why)
        raise TypeError(
            f"{self.__name__}() has no compiled signature for ({decl.describe_args(args)}); "
            f"it was compiled for {' and '.join(repr(str(d)) for d in self.declared)} only "
            "(give polyopt.jit no signature to compile each new type on its first call)")

    def _build(self, sig: Signature, use_tuned: bool = True) -> CompiledKernel:
        """Build (or load from the cache) the specialization for ``sig``."""
        tc = build.toolchain(self._extra_flags())
        front = self.cache_key(sig)
        choice = self._tuned_choice(sig) if use_tuned else None
        self._built_with[sig] = choice
        if choice is not None:
            with parallel_min_fixed(choice.parallel_min):
                return Kernel(self.py_func, choice.options, self.steps).compile(sig, False)
        if front is not None:
            build.check_loadable(tc)  # an index hit loads its library without build()
            hit = index.load(front, *interface_spelling(self._arg_names, sig))
            if hit is not None:
                return hit
        from polyopt.backend_c import trampoline
        from polyopt.backend_c.interface_build import interface_of

        p, kernel = self._emit(self.plan(sig))
        iface = interface_of(p.scop, kernel, p.source)
        entry = trampoline.trampolines(iface)  # for the compiled call entry
        lib = build.build(kernel.source, tc, self.__name__, self.options.cache, entry)
        try:
            compiled = CompiledKernel(iface, lib, lib.with_name("kernel.c"))
        except CompileError:
            if not self.options.cache:
                raise
            build.discard(lib.parent)  # a cached library that passed its hash but cannot load
            lib = build.build(kernel.source, tc, self.__name__, entry=entry)
            compiled = CompiledKernel(iface, lib, lib.with_name("kernel.c"))
        if front is not None:
            index.store(front, build.library_key(kernel.source, tc, entry), iface)
        return compiled

    def _tuned_choice(self, sig: Signature | None) -> tuned.Choice | None:
        """What ``polyopt.tune`` stored for ``sig``, where it differs from this kernel's
        own options and threshold."""
        front = self.cache_key(sig) if sig is not None else None
        choice = tuned.load(front, self.options) if front is not None else None
        if choice is None or choice == tuned.Choice(self.options, parallel_min_instances()):
            return None
        return choice

    @contextmanager
    def _as_built(self, sig: Signature | None) -> Iterator[Plan]:
        """The plan for ``sig`` as calls build it: with the tuned options and threshold
        where ``polyopt.tune`` stored some, so that reports and C show what runs (a
        signature built here before a choice was stored keeps running that build)."""
        if sig is not None and sig in self._built_with:
            choice = self._built_with[sig]
        else:
            choice = self._tuned_choice(sig)
        if choice is None:
            yield self.plan(sig)
            return
        with parallel_min_fixed(choice.parallel_min):
            yield Kernel(self.py_func, choice.options, self.steps).plan(sig)

    def cache_key(self, sig: Signature) -> str | None:
        """The disk-cache key of the specialization for ``sig``, under which its build and
        its tuned options are stored (None with ``cache=False`` or no source)."""
        if not self.options.cache:
            return None
        return front_key(self.py_func, sig, self.options, self.steps,
                         build.toolchain(self._extra_flags()))

    def _extra_flags(self) -> tuple[str, ...]:
        if self.options.strict_fp:
            return build.STRICT_FP_FLAGS
        return ("-ffast-math",) if self.options.fastmath else ()

    def _rebind(self) -> None:
        """A watched global or closure value changed: switch to the compiled state of the
        new values (kept in memory per snapshot; a new one loads through the disk cache)."""
        old = self._watch or []
        self._states[snapshot(old)] = (self._specializations, self._plans, self._wrappers,
                                        self._failed)
        self._watch = watch_list(self.py_func)
        self._built_with.clear()  # other values, other builds: the stored choice decides
        state = self._states.pop(snapshot(self._watch), None)
        if state is None:
            state = ({}, {}, {}, None)
        self._specializations, self._plans, self._wrappers, self._failed = state
        self._fast = None

    # --- analysis -----------------------------------------------------------------------

    def plan(self, sig: Signature | None = None) -> Plan:
        """The analysed model for ``sig`` (the last call's, or types inferred from use)."""
        if self._watch is None:
            self._watch = watch_list(self.py_func)
        elif changed(self._watch):
            self._rebind()
        if sig not in self._plans:
            from polyopt.frontends.python import parse_function
            from polyopt.scheduler import pipeline

            self._plans[sig] = pipeline.plan(parse_function(self.py_func, sig), self.options,
                                             self.steps)
        return self._plans[sig]

    @property
    def analysed_signature(self) -> Signature | None:
        """The types a report or a user schedule without arguments analyses: the last
        call's, else the first declared signature's; None: inferred from the code."""
        if self._last is None and self.declared:
            return self.declared[0].bind(self._arg_names)
        return self._last

    def _sig_for(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Signature | None:
        if not args and not kwargs:
            return self.analysed_signature
        method = sys._getframe(1).f_code.co_name  # report, dependences or c_source
        unknown = [k for k in kwargs if k not in self._signature.parameters]
        if unknown:
            raise TypeError(
                f"{self.__name__}.{method}() takes the arguments of {self.__name__}("
                f"{', '.join(self._arg_names)}) to choose the specialization, or none for "
                f"the last call's; {unknown[0]!r} is not one of them")
        args = self._bind(f"{self.__name__}.{method}()", args, kwargs)
        sig = Signature(tuple((n, type_of_value(a)) for n, a in zip(self._arg_names, args,
                                                                     strict=True)))
        # a declared kernel runs the declared signature the arguments convert to
        chosen = decl.chosen(self.declared, sig, args) if self.declared else None
        return chosen[0] if chosen is not None else sig

    def report(self, *args: Any, **kwargs: Any) -> KernelReport:
        """The dependences and, for every loop, whether it runs in parallel and why not;
        then what was done.  A str; a notebook shows it as HTML."""
        with self._as_built(self._sig_for(args, kwargs)) as p:
            from polyopt.report.notebook import kernel_report

            return kernel_report(p, self.py_func, self.__name__)

    def dependences(self, *args: Any, **kwargs: Any) -> Analysis:
        """The dependence analysis as data (:class:`polyopt.report.Analysis`)."""
        p = self.plan(self._sig_for(args, kwargs))
        from polyopt.report.analysis import analysis

        return analysis(p.source, p.source_deps)

    @property
    def _vector_math(self) -> bool:
        """float32 exp/log/sin/cos through glibc's vector variants: part of vectorizing,
        and never under strict_fp."""
        return self.options.vectorize and not self.options.strict_fp

    def c_source(self, *args: Any, **kwargs: Any) -> str:
        """The C code compiled for these arguments' types."""
        with self._as_built(self._sig_for(args, kwargs)) as p:
            return self._emit(p)[1].source

    def _emit(self, p: Plan) -> tuple[Plan, CKernel]:
        """The C of plan ``p``, with the plan it follows: ``p``'s source order where
        generating ``p``'s loop code goes past isl's budget (``pipeline.source_order``)."""
        from polyopt.backend_c.emit import emit
        from polyopt.scheduler import pipeline

        def of(p: Plan) -> CKernel:
            return emit(p.scop, p.tree, kernel_symbol(self.__name__),
                        vector_math=self._vector_math, libm_square=self.options.strict_fp,
                        work_scop=p.source)

        try:
            return p, of(p)
        except SizeCheckTooComplex:
            raise  # the source order needs the same check
        except TooComplexError as exc:
            fallback = pipeline.source_order(p, exc)
            return fallback, of(fallback)

    # --- other processes ----------------------------------------------------------------

    def __reduce__(self) -> str | tuple[Any, ...]:
        """Pickled by its module's name for it where another process can import that, else
        by its source text (:mod:`~polyopt.kernel.shipping`); with its options, schedule,
        thread count and declared signatures.  The receiver compiles from its disk cache."""
        if shipping.importable(self):
            return self.__qualname__
        declared = None if self.declared is None else tuple(str(d) for d in self.declared)
        return (_rebuild, (shipping.function_source(self.py_func), self.options, self.steps,
                           self.num_threads, declared))

    def __repr__(self) -> str:
        return f"<polyopt.jit {self.__name__} ({len(self._specializations)} compiled)>"


def _argument_type(name: str, value: Any) -> Any:
    """``value``'s type for the signature; a TypeError names the parameter."""
    try:
        return type_of_value(value)
    except TypeError as exc:
        raise TypeError(f"argument {name!r}: {exc}") from None


def _type_key(a: Any) -> TypeKey:
    if isinstance(a, np.ndarray):
        return (np.ndarray, a.dtype, a.ndim)
    return (type(a),)


class ThreadedKernel(Kernel):
    """A kernel whose parallel loops run on ``num_threads`` threads (a subclass, so that
    other kernels' calls pay nothing for it)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        assert self.num_threads is not None
        with team(self.num_threads):
            return super().__call__(*args, **kwargs)


def make_kernel(fn: Callable[..., Any], options: Options, steps: tuple[Step, ...] | None = None,
                num_threads: int | None = None,
                declared: tuple[Declared, ...] | None = None) -> Kernel:
    """A kernel for ``fn``; with ``declared`` signatures compiled now."""
    k = Kernel(fn, options, steps) if num_threads is None else ThreadedKernel(fn, options, steps)
    k.num_threads = num_threads
    if declared is not None:
        k.declared = declared
        for d in declared:
            k._register(d, d.bind(k._arg_names))
    return k


def _rebuild(fs: shipping.FunctionSource, options: Options, steps: tuple[Step, ...] | None,
             num_threads: int | None, declared: tuple[str, ...] | None) -> Kernel:
    """A kernel pickled by its source, made again (its specializations compile lazily, from
    the disk cache, so that unpickling never waits on a compiler)."""
    k = make_kernel(shipping.rebuild(fs), options, steps, num_threads)
    if declared is not None:
        k.declared = tuple(parse_declared(d) for d in declared)
    return k
