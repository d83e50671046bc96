"""Where the generator's choices come from: hypothesis (so failures shrink) or a seeded RNG.

The generator asks only for bounded integers; every choice lists its simplest option
first, so hypothesis shrinks towards small programs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Source(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...


class Draw:
    """Typed choices over a :class:`Source` of integers."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def int(self, lo: int, hi: int) -> int:
        return self.source.integer(lo, hi)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.source.integer(0, len(items) - 1)]

    def weighted(self, pairs: Sequence[tuple[T, int]]) -> T:
        pairs = [(x, w) for x, w in pairs if w > 0]
        total = sum(w for _, w in pairs)
        k = self.source.integer(0, total - 1)
        for x, w in pairs:
            if k < w:
                return x
            k -= w
        raise AssertionError("unreachable")

    def chance(self, percent: int) -> bool:
        """True with ``percent``% probability (shrinks to False)."""
        return self.source.integer(0, 99) >= 100 - percent


class RandomSource:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class HypothesisSource:
    def __init__(self, data) -> None:  # a hypothesis ``st.data()`` object
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))
