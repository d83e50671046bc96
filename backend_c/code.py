"""Lines of C being written, and fresh names for the variables the emitter adds."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager


class Code:
    """Lines of C, indented two spaces a level."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        """The lines emitted while the block runs, kept apart from the others."""
        saved, self.lines = self.lines, []
        captured = self.lines
        try:
            yield captured
        finally:
            self.lines = saved


def fresh(base: str, taken: Collection[str]) -> str:
    """A prefix no name in ``taken`` starts with: ``base``, ``base_``, ..."""
    while any(t.startswith(base) for t in taken):
        base += "_"
    return base
