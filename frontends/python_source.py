"""Reading a Python function's source and mapping AST positions back to the user's file."""

from __future__ import annotations

import ast
import inspect
import io
import linecache
import textwrap
import tokenize
from dataclasses import dataclass, replace

from polyopt.model.errors import Problem, SourceLocation, UnsupportedError


@dataclass(frozen=True)
class FunctionSource:
    """A parsed function and where its text lives in the user's file."""

    tree: ast.FunctionDef
    filename: str
    first_line: int  # file line of the AST's line 1
    indent: int  # columns removed by dedenting
    lines: tuple[str, ...]  # the file's lines

    def location(self, node: ast.AST) -> SourceLocation:
        line = getattr(node, "lineno", 1) + self.first_line - 1
        col = getattr(node, "col_offset", 0) + self.indent + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return SourceLocation(self.filename, line, col, text)

    def statement_location(self, node: ast.AST) -> SourceLocation:
        """:meth:`location` with the line's comment dropped: reports show a statement's
        line as its source, "without comments" (docs/deps-schema.md)."""
        loc = self.location(node)
        return replace(loc, text=without_comment(loc.text))

    def problem(self, node: ast.AST, construct: str, reason: str) -> Problem:
        return Problem(self.location(node), construct, reason)


def function_source(fn: object) -> FunctionSource:
    """Parse the source of ``fn``; an UnsupportedError when there is none to read."""
    code = getattr(fn, "__code__", None)
    filename = inspect.getsourcefile(fn) or (code.co_filename if code else "<unknown>")  # type: ignore[arg-type]
    try:
        raw, first = inspect.getsourcelines(fn)  # type: ignore[arg-type]
    except (OSError, TypeError) as exc:
        loc = SourceLocation(filename, getattr(code, "co_firstlineno", 1), 1)
        why = _undecodable(filename) or str(exc)
        raise UnsupportedError(
            [Problem(loc, "function", f"its source code is not available ({why})")]
        ) from None
    text = "".join(raw)
    dedented = textwrap.dedent(text)
    indent = _indent_removed(text, dedented)
    try:
        module: ast.Module | None = ast.parse(dedented)
    except SyntaxError:  # e.g. a lambda whose lines are not a statement on their own
        module = None
    fdefs = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] \
        if module is not None else []
    file_lines = tuple(linecache.getlines(filename))
    lines = file_lines or tuple(raw)
    first_line = max(first, 1)
    if not fdefs or not isinstance(fdefs[0], ast.FunctionDef):
        loc = SourceLocation(filename, first_line, 1, lines[first_line - 1] if lines else "")
        raise UnsupportedError([Problem(loc, "function", "only plain `def` functions are supported")])
    if not file_lines:  # no file: positions are relative to the function itself
        first_line = 1
    return FunctionSource(fdefs[0], filename, first_line, indent, lines)


def without_comment(line: str) -> str:
    """``line`` less its ``# comment``, found by Python's tokenizer (a ``#`` in a string
    literal is not one).  The line alone may not be complete Python (a statement that
    continues on the next line): the tokens before the error still count."""
    cut = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            if tok.type == tokenize.COMMENT:
                cut = len(line) - len(line.lstrip()) + tok.start[1]
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    return line if cut is None else line[:cut].rstrip() + line[len(line.rstrip()):]


def _undecodable(filename: str) -> str | None:
    """Why the file cannot be read as text, when that is why its source is missing: CPython
    imports a file whose comments hold bytes of another encoding (it checks them only when
    running the file as a script), but inspect then finds no source."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:  # a first line that is not UTF-8 (hostile session 48b, 04)
        encoding = "utf-8"
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        return (f"line {line} is not valid {encoding}: {exc}; declare the file's encoding in "
                "a `# -*- coding: NAME -*-` comment on its first or second line (PEP 263)")
    return None


def _indent_removed(text: str, dedented: str) -> int:
    for a, b in zip(text.splitlines(), dedented.splitlines(), strict=False):
        if b.strip():
            return len(a) - len(b)
    return 0
