"""The exceptions polyopt raises at its boundaries.

User mistakes get precise exceptions with source locations; anything else is an
:class:`InternalError`, which asks for a bug report instead of hiding a traceback.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, replace
from types import FrameType

from polyopt.model.names import user_text


class PolyoptError(Exception):
    """Base class of every error polyopt raises on purpose."""

    def __init__(self, *args: object) -> None:
        # internal names (polyopt.model.names) spelled as the user wrote them
        super().__init__(*(user_text(a) if isinstance(a, str) else a for a in args))


@dataclass(frozen=True)
class SourceLocation:
    """A place in the user's source: 1-based line, 1-based column."""

    filename: str
    line: int
    col: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"

    def caret(self) -> str:
        """The source line with a caret under the column, as Python prints it."""
        if not self.text:
            return ""
        stripped = self.text.rstrip("\n")
        # a tab stays a tab, so that the caret sits under the column at any tab width
        pad = "".join(c if c == "\t" else " " for c in stripped[:self.col - 1])
        return f"    {stripped}\n    {pad}{' ' * (self.col - 1 - len(pad))}^"


@dataclass(frozen=True)
class Problem:
    """One unsupported construct: where it is and why it is refused."""

    location: SourceLocation
    construct: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.construct}: {self.reason}"


class UnsupportedError(SyntaxError, PolyoptError):
    """Code outside the language polyopt accepts.

    It is a :class:`SyntaxError`, so Python prints the file, line and caret.  All
    problems found in one function are reported at once in :attr:`problems`;
    ``filename``/``lineno``/``offset`` point at the first.
    """

    def __init__(self, problems: list[Problem]) -> None:
        if not problems:
            raise ValueError("UnsupportedError needs at least one problem")
        # internal names (polyopt.model.names) spelled as the user wrote them
        problems = [replace(p, construct=user_text(p.construct), reason=user_text(p.reason))
                    for p in problems]
        # once each: a statement converted twice (a double buffer's two parities) is refused
        # twice at one place (hostile session 44a, 04 read as a second problem's wrong line)
        problems = list(dict.fromkeys(problems))
        first = problems[0]
        loc = first.location
        msg = f"{first.construct}: {first.reason}"
        if len(problems) > 1:
            others = "\n".join(f"  {p}" for p in problems[1:])
            msg += f"\n(and {len(problems) - 1} more problem(s):\n{others})"
        super().__init__(msg, (loc.filename, loc.line, loc.col, loc.text or None))
        self.problems = list(problems)


class CompileError(PolyoptError):
    """The C compiler is missing, failed, or the built library could not be loaded."""

    def __init__(self, message: str, c_path: str | None = None, output: str = "") -> None:
        text = message
        if c_path:
            text += f"\n  generated C: {c_path}"
        if output:
            text += "\n  compiler output:\n" + "\n".join(
                "    " + line for line in output.rstrip().splitlines()
            )
        super().__init__(text)
        self.c_path = c_path
        self.output = output


class IllegalTransformationError(PolyoptError):
    """A requested transformation would break a dependence.

    :attr:`violated` holds the dependences (``polyopt.analysis.dependences.Dependence``) it
    breaks (typed ``object`` here: the model sits below the analysis).
    """

    def __init__(self, message: str, violated: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.violated = tuple(violated)


class ArgumentTypeError(PolyoptError, TypeError):
    """A call's arguments (or a ``--signature``) do not fit what the function does with
    them: a scalar for a name the code subscripts, an array of another rank."""


class ScheduleFormatError(PolyoptError, ValueError):
    """A saved schedule (``Schedule.from_json``, ``polyopt opt --schedule``) that is not
    what :meth:`Schedule.to_json` writes: bad JSON, a missing field, an unknown step,
    or a step with the wrong number or types of arguments."""


class TooComplexError(PolyoptError):
    """isl gave up within its operation budget: the problem is too large to analyse."""


class SizeCheckTooComplex(TooComplexError):
    """isl did not find in time which sizes keep a kernel's accesses inside its arrays.
    No schedule of the kernel runs without that check, so no fallback helps."""


class InternalError(PolyoptError):
    """A bug in polyopt.  Please report it with the function that triggered it."""


def warn_user(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """``warnings.warn`` attributed to the user's code: the first frame outside polyopt
    (a fixed ``stacklevel`` points into polyopt whenever the call path changes)."""
    roots = tuple(os.path.join(d, "") for name in ("polyopt", "polyopt.frontends",
                                                    "polyopt.backend_c")
                  for d in getattr(sys.modules.get(name), "__path__", ()))
    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(roots):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def check_error(message: str) -> tuple[type[Exception], str]:
    """The error a call's bounds check raises for ``message`` (an access's, or a
    requirement's: ``model.scop.Requirement.message``), and its text.  Here, not beside
    the Requirement: a warm call imports no isl."""
    if message.startswith("UnboundLocalError: "):
        return UnboundLocalError, message[len("UnboundLocalError: "):]
    return IndexError, message
