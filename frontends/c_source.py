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

    def location(self, node: c_ast.Node) -> SourceLocation:
        """Where ``node`` is in the original file (before preprocessing)."""
        coord = node.coord
        line = coord.line if coord is not None else self.start_line
        original = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        col = coord.column if coord is not None and coord.column else 1
        col = self.linemap.column(coord.file if coord else "", line, col, original)
        return SourceLocation(self.filename, line, col, original)

    def statement_location(self, node: c_ast.Node) -> SourceLocation:
        """The location with comments dropped from its line (reports show the statement)."""
        loc = self.location(node)
        text = re.sub(r"/\*.*?\*/", " ", loc.text)
        text = re.sub(r"//.*$", "", text).rstrip()
        return replace(loc, text=text)

    def problem(self, node: c_ast.Node, construct: str, reason: str) -> Problem:
        return Problem(self.location(node), construct, reason)
