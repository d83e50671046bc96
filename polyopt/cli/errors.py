"""How the ``polyopt`` command fails: exit statuses, and messages a terminal can print.

Errors are one clear message, never a traceback: ``polyopt: error: ...`` on
standard error, with the exit status that says what went wrong.
"""

from __future__ import annotations

import sys

from polyopt.model.errors import UnsupportedError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_MISMATCH = 0, 1, 2, 3


class CliError(Exception):
    """A message for the user and the exit status that goes with it."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code


def print_error(message: str) -> None:
    print(f"polyopt: error: {printable(message)}", file=sys.stderr)


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of a file (kept as surrogates) shown as
    ``\\xff``: printing them as they are fails on a strict UTF-8 stream."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def format_unsupported(exc: UnsupportedError) -> str:
    """Every problem as ``file:line:col: error: ...`` with the source line and a caret."""
    out: list[str] = []
    for p in exc.problems:
        out.append(f"{p.location}: error: {p.construct}: {p.reason}")
        caret = p.location.caret()
        if caret:
            out.append(caret)
    return "\n".join(out)
