"""isl work that may not finish, run in a forked child that is killed at a deadline.

isl holds the GIL and cannot be interrupted from Python, and its operation budget
(:mod:`polyopt.model.isl_budget`) counts only some of its steps: its scheduler's search,
and some AST builds (pivots of a tableau, found stalled for minutes past 300,000
counted operations), outgrow any budget.  Such work runs in a child forked for it; its
result comes back as bytes through a pipe, or the child is killed at the deadline.
"""

from __future__ import annotations

import os
import select
import signal
import time
import warnings
from collections.abc import Callable


def available() -> bool:
    return hasattr(os, "fork")


def run(work: Callable[[], bytes], seconds: float) -> bytes | None:
    """``work()``'s bytes, computed in a forked child within ``seconds`` of wall time;
    None when the child is past the deadline (then killed), raises, or cannot be
    forked."""
    read_end, write_end = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12 warns about forking a threaded process; the child only runs
            # isl and writes to a pipe, which takes no lock another thread may hold
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: never return into the caller's code
        status = 1
        try:
            os.close(read_end)
            data = work()
            with os.fdopen(write_end, "wb") as out:
                out.write(b"+" + data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    text = None  # also when the wait is interrupted (Ctrl-C): the child is killed
    try:
        text = _read_until(read_end, time.monotonic() + seconds)
    finally:
        os.close(read_end)
        if text is None:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    if text is None or status != 0 or not text.startswith(b"+"):
        return None
    return text[1:]


def _read_until(fd: int, deadline: float) -> bytes | None:
    """All of ``fd`` up to its end of file, or None when ``deadline`` passes first."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
