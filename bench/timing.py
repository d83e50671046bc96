"""Median-of-N timing with the variants interleaved (A B C A B C ...).

Timings on these shared machines drift by tens of percent between runs, so a
figure is only meaningful next to the others measured in the same rounds:
every variant is warmed up once, then each round runs every variant once, in
the same order, and a variant's figure is the median of its rounds.  Drift
then hits all variants alike.

A *runner* is a zero-argument callable that performs one run and returns its
duration in seconds (the duration is measured where the run happens, e.g. in a
worker process, so that inter-process messaging is not counted).  A runner that
raises is dropped from the remaining rounds and its error is recorded.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Runner = Callable[[], float]

#: The fewest rounds a figure is the median of.
MIN_REPEAT = 3


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended: planning runs some
    isl work in forked children (polyopt.model.forked), which ``process_time`` misses."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence (mean of the middle two for even lengths)."""
    if not values:
        raise ValueError("median of an empty sequence")
    s = sorted(values)
    mid = len(s) // 2
    if len(s) % 2:
        return s[mid]
    return (s[mid - 1] + s[mid]) / 2


def interleave(names: Sequence[str], rounds: int) -> list[str]:
    """The run order for ``rounds`` rounds: ``A B C A B C ...``."""
    if rounds < 0:
        raise ValueError("rounds must be >= 0")
    return [name for _ in range(rounds) for name in names]


def rounds_for(warmup_seconds: float, repeat: int) -> int:
    """How many timed rounds to take, given the slowest variant's warm-up run.

    At least ``repeat`` (and never fewer than :data:`MIN_REPEAT`); 5 when a run is
    short (< 0.2 s) and 15 when it is very short (< 10 ms), where one round costs
    little and the scheduler's noise is proportionally larger.
    """
    n = max(repeat, MIN_REPEAT)
    if warmup_seconds < 0.01:
        return max(n, 15)
    if warmup_seconds < 0.2:
        return max(n, 5)
    return n


@dataclass
class Timings:
    """The outcome of :func:`run_interleaved`."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    warmup: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # the names in the order they ran

    def median(self, name: str) -> float | None:
        """The median of ``name``'s timed rounds, or None when it has none."""
        xs = self.samples.get(name)
        return median(xs) if xs else None


def run_interleaved(runners: Mapping[str, Runner], repeat: int | Callable[[float], int],
                    *, warmup: bool = True,
                    on_run: Callable[[str, int, int], None] | None = None) -> Timings:
    """Warm every runner up once, then run them interleaved for the chosen rounds.

    ``repeat`` is a round count, or a function from the slowest warm-up duration
    to a round count (see :func:`rounds_for`).  ``on_run(name, done, total)`` is
    called before each run, for progress display.
    """
    names = list(runners)
    out = Timings(samples={n: [] for n in names})
    alive = list(names)

    def one(name: str) -> float | None:
        out.order.append(name)
        try:
            return float(runners[name]())
        except Exception as exc:  # noqa: BLE001 - a failed runner is reported, not fatal
            out.errors[name] = f"{type(exc).__name__}: {exc}"
            alive.remove(name)
            return None

    if warmup:
        for k, name in enumerate(names):
            if on_run:
                on_run(name, k, len(names))
            t = one(name)
            if t is not None:
                out.warmup[name] = t
    slowest = max(out.warmup.values(), default=0.0)
    rounds = repeat(slowest) if callable(repeat) else max(repeat, 1)
    total = rounds * len(names)
    done = 0
    for _ in range(rounds):
        for name in names:
            done += 1
            if name not in alive:
                continue
            if on_run:
                on_run(name, done, total)
            t = one(name)
            if t is not None:
                out.samples[name].append(t)
    return out


def time_call(fn: Callable[[], object], setup: Callable[[], object] | None = None) -> float:
    """Run ``setup()`` untimed, then ``fn()`` once; return ``fn``'s duration in seconds."""
    if setup is not None:
        setup()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0
