"""Where a ``#pragma scop`` region sits in its C file and what surrounds it: the
file's lines (for error positions), the declarations visible at the region and the
names used around it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from polyopt.frontends.c_preprocess import LineMap
from polyopt.frontends.c_types import Symbol, TypeTable
from pycparser import c_ast

from polyopt.model.errors import Problem, SourceLocation


@dataclass(frozen=True)
class RegionSource:
    """Where a region sits and what surrounds it."""

    filename: str
    lines: tuple[str, ...]  # the original file's lines
    linemap: LineMap
    types: TypeTable
    function: c_ast.FuncDef
    items: tuple[c_ast.Node, ...]  # the block items between the pragmas
    scope: dict[str, Symbol]  # declarations visible at the region
    outside_uses: frozenset[str]  # names the function or file uses outside the region
    after_uses: frozenset[str]  # names used after the region in its block
    names_in_file: frozenset[str]
    typedefs: tuple[str, ...]
    index: int
    start_line: int
    end_line: int
    # min/max names the file defines as functions of another meaning (c_affine.file_min_max)
    opaque_calls: frozenset[str] = frozenset()

    def location(self, node: c_ast.Node) -> SourceLocation:
        """Where ``node`` is in the original file (before preprocessing)."""
        coord = node.coord
        line = coord.line if coord is not None else self.start_line
        original = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        col = coord.column if coord is not None and coord.column else 1
        col = self.linemap.column(coord.file if coord else "", line, col, original)
        return SourceLocation(self.filename, line, col, original)

    def statement_location(self, node: c_ast.Node) -> SourceLocation:
        """The location with comments dropped from its line (reports show the statement),
        and the lines the statement continues on joined to it (PolyBench wraps long
        stencil updates: ``x[i] = y[i] +`` / ``2.0 * y[i];``)."""
        loc = self.location(node)
        text = _code(loc.text)
        line = loc.line
        # not past a brace: the text is then not the statement's own (a macro's expansion
        # is placed at its use, `{ BODY(i); }`; hostile session 45b, 02 ran into the next loop)
        while not _ends(rest := text[max(loc.col - 1, 0):]) and not {"{", "}"} & set(rest) \
                and line < min(loc.line + 8, len(self.lines)):
            more = _code(self.lines[line]).strip()
            if not more or more.startswith(("#", "}")):
                break  # not a continuation (a macro that holds its own `;`)
            text = text.rstrip("\\").rstrip() + " " + more
            line += 1
        return replace(loc, text=text)

    def problem(self, node: c_ast.Node, construct: str, reason: str) -> Problem:
        return Problem(self.location(node), construct, reason)


def _code(line: str) -> str:
    """``line`` without its comments."""
    return re.sub(r"//.*$", "", re.sub(r"/\*.*?\*/", " ", line)).rstrip()


def _ends(text: str) -> bool:
    """Whether the statement starting ``text`` ends in it: a ``;`` outside brackets."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ";" and depth <= 0:
            return True
    return False
