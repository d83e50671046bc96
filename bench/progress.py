"""A one-line progress bar on stderr.

On a terminal the line is redrawn in place; otherwise (a log file, CI) one line
is written per finished step, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``[#####.....]  12/30  gemm: polyopt-2t run 3/15  (1m02s)``."""

    def __init__(self, total: int, title: str, stream: TextIO | None = None,
                 width: int = 24) -> None:
        self.total = max(total, 1)
        self.title = title
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.start = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_len = 0

    def _line(self, text: str) -> str:
        filled = round(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        secs = int(time.monotonic() - self.start)
        return (f"{self.title} [{bar}] {self.done:>3}/{self.total}  {text}  "
                f"({secs // 60}m{secs % 60:02d}s)")

    def show(self, text: str) -> None:
        """Show what is happening now (redrawn in place on a terminal only)."""
        if self.tty:
            line = self._line(text)
            pad = max(self._last_len - len(line), 0)
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
            self._last_len = len(line)

    def step(self, text: str = "") -> None:
        """One unit of work finished."""
        self.done = min(self.done + 1, self.total)
        if self.tty:
            self.show(text)
        else:
            self.stream.write(self._line(text) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
