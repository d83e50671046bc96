"""``polyopt.tune``: tile sizes, unroll-and-jam factors, fusion and the parallel
threshold searched on the user's own arguments (:mod:`polyopt.tuner.search`), the
result a reviewable JSON (:mod:`polyopt.tuner.result`) that ``polyopt.tune.load``
replays (:mod:`polyopt.tuner.install`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from polyopt.tuner.install import load
from polyopt.tuner.result import Trial, TuneResult
from polyopt.tuner.search import tune as _tune


class Tune:
    """``polyopt.tune(fn, *args, budget=10.0, **kwargs)`` tunes ``fn`` for these
    arguments (passed as a call passes them) and returns a :class:`TuneResult`;
    ``polyopt.tune.load(path, fn)`` applies a saved one."""

    def __call__(self, fn: Callable[..., Any], *args: Any, budget: float = 10.0,
                 store: bool = True, **kwargs: Any) -> TuneResult:
        return _tune(fn, *args, budget=budget, store=store, **kwargs)

    load = staticmethod(load)


tune = Tune()

__all__ = ["Trial", "TuneResult", "load", "tune"]
