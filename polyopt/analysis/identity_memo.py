"""A bounded memo keyed by the identity of frozen objects.

The analyses ask about the same frozen objects (a scop, a candidate tree, a
dependence relation) many times.  Hashing them by value would walk them whole,
and isl objects compare by an isl computation, so the memo keys on ``id()``
instead.  Each entry keeps its objects alive: no id can be reused by another
object while the entry that names it lives, so a hit is always about the very
objects asked about.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """The last ``size`` values computed, each for a tuple of objects (by identity)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[Hashable, ...], tuple[tuple[object, ...], V]] = (
            OrderedDict())
        self._lock = threading.Lock()

    def get(self, objects: tuple[object, ...], compute: Callable[[], V],
            values: Hashable = ()) -> V:
        """The value for ``objects`` (by identity) and ``values`` (by value, when the
        objects alone do not decide it): remembered, or ``compute()`` remembered."""
        key = (*map(id, objects), values)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                return hit[1]
        value = compute()
        with self._lock:
            self._entries[key] = (objects, value)
            if len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value
