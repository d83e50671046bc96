"""``polyopt.tune``: search the options of one kernel specialization on the user's own
arguments, keep the fastest whose results agree with the untuned kernel's, and store it
for later calls.

The search is a coordinate descent over :func:`polyopt.tuner.space.axes`: each axis's
values are tried with the best values found so far for the others.  Every candidate is
compiled (the disk cache makes repeats cheap; one that builds the library of an earlier
trial is not run again), run once on copies of the arguments and checked against the
untuned kernel's outputs (a difference discards it, with a warning), then timed: the
median of several calls, interleaved with calls of the untuned kernel, so that a change
of load hits both.  A candidate replaces the best one only when it is faster by
``MARGIN``.  The budget bounds the whole search, compiles included.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from polyopt.backend_c import tuned
from polyopt.backend_c.call import CompiledKernel
from polyopt.backend_c.tuned import Choice
from polyopt.backend_c.work import parallel_min_fixed, parallel_min_instances
from polyopt.frontends.python_types import type_of_value
from polyopt.kernel import Kernel
from polyopt.kernel import declared as decl
from polyopt.kernel.threads import team
from polyopt.model.errors import PolyoptError, warn_user
from polyopt.model.options import Options
from polyopt.model.signature import Signature
from polyopt.tuner import measure, space
from polyopt.tuner.result import Trial, TuneResult, changes

MARGIN = 0.03  # faster by 3% at least: below that, the default's noise
REPS = 5  # timed calls per candidate (and as many of the default, interleaved)
MIN_REPS = 3  # fewer than this when the budget runs out: the candidate is unfinished


def as_kernel(fn: Callable[..., Any]) -> Kernel:
    """``fn`` if it is a ``@polyopt.jit`` kernel, else a kernel of it with the default
    options."""
    return fn if isinstance(fn, Kernel) else Kernel(fn, Options())


def signature_text(sig: Signature) -> str:
    """The argument types in ``--signature``'s notation."""
    return ", ".join(str(t) for _, t in sig.args)


def signature_of(kernel: Kernel, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None,
                 ) -> tuple[Signature, tuple[Any, ...]]:
    """The signature of a call with ``args`` and ``kwargs``, and the arguments in the
    function's order (defaults applied)."""
    params = inspect.signature(kernel.py_func)
    bound = params.bind(*args, **(kwargs or {}))
    bound.apply_defaults()
    values = tuple(bound.arguments[n] for n in params.parameters)
    sig = Signature(tuple((n, type_of_value(a)) for n, a in zip(params.parameters, values,
                                                                  strict=True)))
    if not kernel.declared:
        return sig, values
    # tuning the call's own types (an int for a declared f8) stored a choice for a
    # specialization the kernel never compiles
    chosen = decl.chosen(kernel.declared, sig, values)
    if chosen is None:
        raise TypeError(f"{kernel.__name__}() has no compiled signature for "
                        f"({decl.describe_args(values)}); it was compiled for "
                        f"{' and '.join(repr(str(d)) for d in kernel.declared)} only")
    return chosen


def compile_choice(kernel: Kernel, sig: Signature, choice: Choice) -> tuple[CompiledKernel, str]:
    """The kernel built with ``choice`` (never with stored tuned options) and its library's
    path, which tells identical builds apart."""
    with parallel_min_fixed(choice.parallel_min):
        compiled = Kernel(kernel.py_func, choice.options).compile(sig, use_tuned=False)
    return compiled, str(compiled.library)


def tune(fn: Callable[..., Any], *args: Any, budget: float = 10.0,
         store: bool = True, **kwargs: Any) -> TuneResult:
    """Tune ``fn`` (a ``@polyopt.jit`` kernel or a plain function) for these arguments
    (``kwargs`` by name, as a call takes them), within ``budget`` seconds; store the
    choice for their signature (when ``store`` and the kernel uses the disk cache), so
    later calls build with it."""
    kernel = as_kernel(fn)
    if kernel.steps is not None:
        raise ValueError(f"polyopt.tune tunes the automatic schedule; {kernel.__name__} "
                         "follows a user schedule (polyopt.schedule)")
    # a NumPy number is a number of seconds too; True is not (it passed as 1 second)
    if not (isinstance(budget, (int, float, np.integer, np.floating))
            and not isinstance(budget, bool) and budget > 0):
        raise ValueError(f"budget must be a positive number of seconds, not {budget!r}")
    # an int past float's range (10**400) is no limit, as math.inf is
    budget = math.inf if isinstance(budget, (int, np.integer)) and budget > 2**1023 \
        else float(budget)
    sig, values = signature_of(kernel, args, kwargs)
    default = Choice(kernel.options, parallel_min_instances())
    # on the kernel's own team (num_threads=): timed on the default one, a num_threads=1
    # kernel was tuned for the whole machine
    with team(kernel.num_threads) if kernel.num_threads else contextlib.nullcontext():
        search = _Search(kernel, sig, values, default, time.monotonic() + budget)
        best = search.run()
    result = TuneResult(kernel.__name__, signature_text(sig), float(budget), default, best,
                        tuple(search.trials))
    front = kernel.cache_key(sig)
    if store and front is not None:
        tuned.store(front, best)
    elif store:  # said, as polyopt.tune.load says it: the choice was silently dropped
        warn_user(f"polyopt.tune: {kernel.__name__} does not use the disk cache "
                  "(cache=False), where tuned options are kept; the choice is not stored "
                  "(its options are in the result: result.chosen)")
    return result


@dataclass
class _Search:
    kernel: Kernel
    sig: Signature
    args: tuple[Any, ...]
    default: Choice
    deadline: float
    trials: list[Trial] = field(default_factory=list)
    _libraries: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        base, library = compile_choice(self.kernel, self.sig, self.default)
        # the runs below are on copies (contiguous, writable, apart): the user's own
        # arguments get the call's checks first, as a call would
        base.validate(self.args)
        self.base: measure.Call = base
        self._libraries.add(library)
        self.reference, _ = measure.run(self.base, self.args)  # also warms it up
        names = [n for n, a in zip(self.sig.args, self.args, strict=True)
                 if isinstance(a, np.ndarray)]
        self.names = [n for n, _ in names] + ["the returned value"]
        times = [measure.run(self.base, self.args)[1] for _ in range(MIN_REPS)]
        self.trials.append(Trial(self.default, "ok", measure.median(times),
                                 measure.median(times), "the default options"))

    def run(self) -> Choice:
        """The fastest choice that agrees with the default, within the budget."""
        return self._confirmed(self._search())

    def _search(self) -> Choice:
        best, best_ratio = self.default, 1.0
        tried = {self.default}
        for axis, values in space.axes(self.default, self.sig):
            for value in values:
                cand = space.with_value(best, axis, value)
                if cand in tried:
                    continue
                if time.monotonic() >= self.deadline:
                    return best
                tried.add(cand)
                trial = self._trial(cand)
                self.trials.append(trial)
                ratio = trial.ratio
                if trial.status == "ok" and ratio is not None and ratio > best_ratio * (1 + MARGIN):
                    best, best_ratio = cand, ratio
        return best

    def _confirmed(self, best: Choice) -> Choice:
        """``best``, timed once more against the default, if it is still faster by the
        margin; else the default.  A choice rests on one trial of five calls: on a busy
        machine one such trial put ``parallel_min=0`` at 1.12x, and every later candidate
        built on it ran at 0.01x the default."""
        if best == self.default:
            return best
        call, _ = compile_choice(self.kernel, self.sig, best)  # a cache hit: built already
        mine, theirs = self._timed(call)
        again = Trial(best, "ok", measure.median(mine), measure.median(theirs), "timed again")
        ratio = again.ratio
        if ratio is not None and ratio > 1 + MARGIN:
            self.trials.append(again)
            return best
        self.trials.append(replace(again, detail="timed again: not faster, the default kept"))
        return self.default

    def _timed(self, call: measure.Call) -> tuple[list[float], list[float]]:
        """Times of ``call`` and of the default, interleaved: ``REPS`` each, or
        ``MIN_REPS`` once the budget is spent."""
        mine: list[float] = []
        theirs: list[float] = []
        for _ in range(REPS):
            if len(mine) >= MIN_REPS and time.monotonic() >= self.deadline:
                break
            theirs.append(measure.run(self.base, self.args)[1])
            mine.append(measure.run(call, self.args)[1])
        return mine, theirs

    def _trial(self, cand: Choice) -> Trial:
        try:
            call, library = compile_choice(self.kernel, self.sig, cand)
        except PolyoptError as exc:
            return Trial(cand, "failed", detail=str(exc).splitlines()[0])
        if library in self._libraries:
            return Trial(cand, "same code")
        self._libraries.add(library)
        try:
            got, _ = measure.run(call, self.args)
        except Exception as exc:  # the user's inputs ran under the default: a candidate bug
            return Trial(cand, "failed", detail=f"{type(exc).__name__}: {exc}")
        wrong = measure.difference(self.reference, got, self.names)
        if wrong is not None:
            warn_user(f"polyopt.tune: {self.kernel.__name__} with "
                      f"{changes(self.default, cand)}: {wrong}; candidate discarded")
            return Trial(cand, "wrong", detail=wrong)
        mine, theirs = self._timed(call)
        if len(mine) < MIN_REPS:
            return Trial(cand, "unfinished")
        return Trial(cand, "ok", measure.median(mine), measure.median(theirs))
