"""How many threads a kernel's parallel loops run on: ``polyopt.set_num_threads``,
``polyopt.get_num_threads`` and ``@polyopt.jit(num_threads=...)``.

The generated code is OpenMP: a ``parallel for`` runs on the team size of the OpenMP
runtime (libgomp for gcc, libomp for clang) that the kernels' libraries load, read from
the *calling* thread's setting.  So these functions set the runtime's own number with
``omp_set_num_threads``, and the number is per calling thread, as Numba's is: another
Python thread (a Dask worker's, a ``ThreadPoolExecutor``'s) keeps the process default
(``OMP_NUM_THREADS``, else one per core) until it sets its own.  Nothing is added to the
call of a kernel without ``num_threads``.

A process forked from one whose kernels ran a team (a ``multiprocessing`` pool's "fork"
start method) cannot start a team of its own: gcc's libgomp would wait forever for the
parent's worker threads, which a fork does not copy.  So a forked child runs kernels on
one thread (``num_threads`` and :func:`set_num_threads` then give 1); the "spawn" and
"forkserver" start methods give workers a team each.
"""

from __future__ import annotations

import ctypes
import operator
import os
from collections.abc import Iterator
from contextlib import contextmanager

#: the OpenMP runtimes a C compiler's ``-fopenmp`` links, gcc's first
OMP_RUNTIMES = ("libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so")

_runtimes: list[ctypes.CDLL] = []  # found once, kept: a runtime is never unloaded


def loaded_runtimes() -> list[ctypes.CDLL]:
    """The OpenMP runtimes this process has loaded (none are loaded by looking)."""
    out = []
    for name in OMP_RUNTIMES:
        try:
            out.append(ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_LAZY))
        except OSError:
            continue
    return out


def _openmp() -> list[ctypes.CDLL]:
    """The runtimes kernels use: those loaded, else the first that loads (a kernel built
    later links the same library by its name, so the setting carries over)."""
    if not _runtimes:
        _runtimes.extend(loaded_runtimes())
    if not _runtimes:
        for name in OMP_RUNTIMES:
            try:
                _runtimes.append(ctypes.CDLL(name))
                break
            except OSError:
                continue
    return _runtimes


_one_thread: list[bool] = []  # non-empty in a child forked after OpenMP was loaded


def _forked() -> None:
    _runtimes.clear()  # looked up again: a ctypes handle is not to be trusted across fork
    for rt in loaded_runtimes():
        _one_thread.append(True)
        rt.omp_set_num_threads(1)


os.register_at_fork(after_in_child=_forked)


def max_threads() -> int:
    """The most threads a team may have: 4 per core, and at least 1024.  The system
    caps threads (``ulimit -u``, ``threads-max``, two memory maps each under
    ``vm.max_map_count``): with 100000 asked for, libgomp could not start them all
    and the call died of a segmentation fault."""
    return max(1024, 4 * (os.cpu_count() or 1))


def check_count(n: object, what: str) -> int:
    """``n`` as a thread count: an int from 1 to :func:`max_threads` (a TypeError or
    ValueError naming ``what`` otherwise)."""
    try:  # any integer, a NumPy one too, as Numba's set_num_threads takes (not a bool)
        count = operator.index(n) if not isinstance(n, bool) else None  # type: ignore[arg-type]
    except TypeError:
        count = None
    if count is None:
        raise TypeError(f"{what} must be an int, not {n!r}")
    n = count
    if n < 1:
        raise ValueError(f"{what} must be at least 1, not {n}")
    if n > max_threads():
        raise ValueError(f"{what} must be at most {max_threads()} (4 threads per core, or "
                         f"1024), not {n}: the system cannot start that many threads")
    return n


def set_num_threads(n: int) -> None:
    """Run the parallel loops of kernels called from this thread on ``n`` threads."""
    n = check_count(n, "polyopt.set_num_threads(n): n")
    n = 1 if _one_thread else n
    runtimes = _openmp()
    if not runtimes:
        raise RuntimeError("no OpenMP runtime found (looked for " + ", ".join(OMP_RUNTIMES) + ")")
    for rt in runtimes:
        rt.omp_set_num_threads(n)


def get_num_threads() -> int:
    """The number of threads that parallel loops of kernels called from this thread
    run on (at most: a small call runs on one, see ``POLYOPT_PARALLEL_MIN``)."""
    runtimes = _openmp()
    return int(runtimes[0].omp_get_max_threads()) if runtimes else 1


@contextmanager
def team(n: int) -> Iterator[None]:
    """Kernels called in here run on ``n`` threads; the thread's number is restored."""
    runtimes = _openmp()
    n = 1 if _one_thread else n
    before = [rt.omp_get_max_threads() for rt in runtimes]
    for rt in runtimes:
        rt.omp_set_num_threads(n)
    try:
        yield
    finally:
        for rt, b in zip(runtimes, before, strict=True):
            rt.omp_set_num_threads(b)
