"""How busy the machine is with work that is not ours.

These machines are shared: another process on one of the two cores makes a
2-thread OpenMP kernel wait at every barrier for a time slice, which can slow
it by orders of magnitude.  So the harness measures the *background* load (CPU
time used by processes other than the harness and its workers, from
``/proc/stat`` and ``/proc/<pid>/stat``) while it times each kernel, reports it
next to the figures, and can wait for a quiet machine before timing.

On systems without ``/proc`` every figure is ``None``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def has_avx512() -> bool:
    """Whether this CPU has AVX-512 (Linux: the ``avx512f`` flag in /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


def _busy_jiffies() -> int | None:
    """CPU time used on all CPUs since boot, in clock ticks (idle and iowait excluded)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    guest = sum(fields[8:10]) if len(fields) > 9 else 0  # already counted in user/nice
    return sum(fields) - idle - guest


def process_jiffies(pid: int) -> int:
    """user + system time of a process (all its threads), in clock ticks; 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[11]) + int(rest[12])  # utime, stime (fields 14, 15)
    except (OSError, ValueError, IndexError):
        return 0


class BackgroundMeter:
    """Average CPUs used by other processes between :meth:`start` and :meth:`stop`."""

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self.pids = pids
        self._t0 = 0.0
        self._busy0: int | None = None
        self._ours0 = 0

    def _ours(self) -> int:
        return sum(process_jiffies(p) for p in {os.getpid(), *self.pids()})

    def start(self) -> None:
        self._t0 = time.monotonic()
        self._busy0 = _busy_jiffies()
        self._ours0 = self._ours()

    def stop(self) -> float | None:
        busy1 = _busy_jiffies()
        if self._busy0 is None or busy1 is None:
            return None
        wall = time.monotonic() - self._t0
        if wall <= 0:
            return None
        other = (busy1 - self._busy0) - (self._ours() - self._ours0)
        return max(other, 0) / _HZ / wall


def wait_processes_idle(pids: Iterable[int], window: float = 0.02,
                        max_wait: float = 2.0) -> float:
    """Wait until ``pids`` use no CPU for ``window`` seconds (at most ``max_wait``).

    Runtimes keep their threads spinning for a while after a parallel call
    (OpenBLAS for ~0.1 s, libgomp for up to a few ms), so a worker that has just
    run can still occupy a core while the next variant is timed.  Returns the
    seconds waited.
    """
    pids = list(pids)
    t0 = time.monotonic()
    prev = sum(process_jiffies(p) for p in pids)
    while time.monotonic() - t0 < max_wait:
        time.sleep(window)
        cur = sum(process_jiffies(p) for p in pids)
        if cur == prev:
            break
        prev = cur
    return time.monotonic() - t0


def background_cpus(seconds: float = 1.0, pids: Callable[[], Iterable[int]] = tuple) -> float | None:
    """Background CPUs over the next ``seconds`` (we are idle meanwhile)."""
    meter = BackgroundMeter(pids)
    meter.start()
    time.sleep(seconds)
    return meter.stop()


def wait_until_quiet(max_wait: float, threshold: float = 0.25,
                     pids: Callable[[], Iterable[int]] = tuple,
                     on_wait: Callable[[float | None], None] | None = None) -> float | None:
    """Sample the background load each second until it is below ``threshold`` CPUs or
    ``max_wait`` seconds have passed; return the last sample."""
    deadline = time.monotonic() + max_wait
    while True:
        bg = background_cpus(1.0, pids)
        if bg is None or bg < threshold or time.monotonic() >= deadline:
            return bg
        if on_wait:
            on_wait(bg)
