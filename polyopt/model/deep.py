"""Deep recursion for deeply nested source.

pycparser's parser and generator, and polyopt's converters, recurse once per operator:
a written-out 250-term sum is 250 levels, past Python's default limit of 1,000 frames
(hostile session 42b, finding 04: "internal error: RecursionError").  The command runs
in a thread with a large stack and a high recursion limit instead.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: frames; each level of a C expression takes a few (parser, converter, generator)
RECURSION_LIMIT = 60_000
#: bytes of the thread's stack: the calls through C code among those frames use it
STACK_BYTES = 512 * 1024 * 1024


def run_deep(fn: Callable[[], T]) -> T:
    """``fn()``, run with room for :data:`RECURSION_LIMIT` frames; its exception is
    raised here."""
    out: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            out.append(fn())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            error.append(exc)

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size(STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name="polyopt-deep", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return out[0]
