"""The C frontend: every ``#pragma scop`` ... ``#pragma endscop`` region of a C file
becomes a :class:`~polyopt.model.scop.Scop` (wrapped in a :class:`CRegion` that says where
the region is and how its names are declared).

The file is run through the C preprocessor (see :mod:`.c_preprocess`), so its
macros (``_PB_N``, ``DATA_TYPE``, ``SCALAR_VAL(x)``...) and local headers are
honoured, then parsed with pycparser.  The accepted subset is documented in
``docs/c-frontend.md``; anything else raises :class:`polyopt.UnsupportedError`
listing every problem with its file, line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

from polyopt.frontends.c_affine import file_min_max, text
from polyopt.frontends.c_constants import fold_constants
from polyopt.frontends.c_enums import fold_enums
from polyopt.frontends.c_macros import size_macros
from polyopt.frontends.c_preprocess import (
    COMMENT,
    FAKE_LIBC,
    CppOptions,
    LineMap,
    marker_name,
    preprocess,
)
from polyopt.frontends.c_region import build_region
from polyopt.frontends.c_shadowing import unshadow
from polyopt.frontends.c_source import RegionSource
from polyopt.frontends.c_types import TypeTable, scope_at, walk_nodes
from pycparser import c_ast, c_parser

from polyopt.model.c_region import CFile, CRegion
from polyopt.model.errors import PolyoptError, Problem, SourceLocation, UnsupportedError
from polyopt.model.names import c_frontend_renames, internal_name

_PRAGMA_LINE = re.compile(r"^\s*#\s*pragma\s+(scop|endscop)\s*(//.*|/\*.*)?$")
_PARSE_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*([A-Za-z_]\w*)?")
_LINE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:line[ \t]+)?\d[^\n]*", re.M)
_ARITHMETIC = {"char", "short", "int", "long", "signed", "unsigned", "float", "double"}


class NoRegionError(PolyoptError):
    """The file has no ``#pragma scop`` region."""


@dataclass(frozen=True)
class _Found:
    """A region located in the AST."""

    function: c_ast.FuncDef
    path: list[c_ast.Compound]  # blocks from the function body to the one holding the region
    start: c_ast.Pragma
    end: c_ast.Pragma
    items: list[c_ast.Node]
    after: list[c_ast.Node]


def parse_c_file(path: str | Path, cpp: CppOptions | None = None,
                 function: str | None = None) -> CFile:
    """Every scop region of the C file at ``path`` (those of ``function`` alone, where
    given: another function's regions are not read, so their problems do not count)."""
    p = Path(path)
    try:  # bytes as they are: line endings and any non-UTF-8 byte survive a round trip
        text = p.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        raise PolyoptError(f"{path}: no such file") from None
    except OSError as exc:
        raise PolyoptError(f"{path}: cannot read the file ({exc})") from None
    filename = str(path)
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise PolyoptError(f"{path}:{line}: not a C source file (it contains a NUL byte)")
    # the file's own `#line 500 "gen.y"` (and `# 500` markers, as `gcc -E` writes them)
    # would renumber its lines; regions are rewritten by their lines in the file itself
    physical = _LINE_DIRECTIVE.sub("", text)
    output = preprocess(p, cpp or CppOptions(), physical if physical != text else None)
    linemap = LineMap(output)
    lines = tuple(text.splitlines())
    made: set[str] = set()
    ast = _parse(_ascii_identifiers(output, made), filename, lines)
    _rename_unsafe(ast, made)
    fold_enums(ast)  # `enum { N = 30 }`'s N is 30, not a parameter
    fold_constants(ast)  # `1 << 10` of a macro is a number
    found = _regions(ast, filename, lines)
    if not found:
        raise NoRegionError(f"{path}: no `#pragma scop` region (mark the loops to optimize with "
                            "`#pragma scop` and `#pragma endscop` lines inside a function)")
    types = TypeTable(ast)
    # the file's static functions: one the region alone calls (band-mv's `max`) is
    # unused once the region's C computes it itself, and -Wall says so
    statics = {e.decl.name for e in ast.ext if isinstance(e, c_ast.FuncDef)
               and "static" in (e.decl.storage or [])}
    file_names = _identifiers(ast) | set(_DEFINE.findall(text))
    opaque = file_min_max(ast)
    regions: list[CRegion] = []
    problems: list[Problem] = []
    chosen = [k for k, f in enumerate(found, 1)
              if function is None or f.function.decl.name == function]
    if not chosen:
        names = ", ".join(sorted({f.function.decl.name for f in found}))
        raise NoRegionError(f"{path}: no #pragma scop region in a function named {function!r} "
                            f"(regions are in: {names})")
    for k, f in enumerate(found, 1):
        if k not in chosen:
            continue
        scope = scope_at(ast, f.function, f.path, f.start, types)
        unshadow(f.items, scope, file_names)
        src = RegionSource(
            filename=filename, lines=lines, linemap=linemap, types=types, function=f.function,
            items=tuple(f.items), scope=scope,
            outside_uses=frozenset(_uses_outside(f)), after_uses=frozenset(_uses(f.after)),
            names_in_file=frozenset(file_names), typedefs=_typedefs(ast), index=k, start_line=f.start.coord.line,
            end_line=f.end.coord.line, opaque_calls=opaque,
        )
        directives = _directives(filename, lines, src.start_line, src.end_line)
        region, found_problems = build_region(src)
        problems += directives + found_problems
        if directives:
            continue
        if region is not None:
            region_text = "\n".join(lines[src.start_line:src.end_line - 1])
            sizes, floats, kinds = size_macros(p, text, cpp or CppOptions(), src.start_line,
                                               region_text)
            called = tuple(sorted(_calls(f.items) & statics - src.outside_uses))
            if sizes or floats or kinds or called:
                region = replace(region, size_macros=sizes, float_macros=floats,
                                 type_macros=kinds,
                                 outside_locals=region.outside_locals + called)
            regions.append(region)
    if problems:
        raise UnsupportedError(problems)
    return CFile(filename, text, tuple(regions))


class _Parser(c_parser.CParser):  # type: ignore[misc]  # pycparser has no type hints
    """pycparser, with a position on every syntax error (a few carry only the file name)."""

    def _parse_error(self, msg: str, coord: object) -> NoReturn:
        if isinstance(coord, str):
            try:
                tok = self._peek()
                if tok is not None:
                    coord = self._tok_coord(tok)
            except Exception:  # noqa: BLE001 - private API: keep the file-only message
                pass
        super()._parse_error(msg, coord)
        raise AssertionError("CParser._parse_error returned")  # it always raises ParseError


def _parse(output: str, filename: str, lines: tuple[str, ...]) -> c_ast.FileAST:
    try:
        return _Parser().parse(output, filename)
    except c_parser.ParseError as exc:
        m = _PARSE_ERROR.match(str(exc))
        filled = [k for k, text in enumerate(lines) if text.strip()]
        if m is None and str(exc).endswith("At end of input") and filled:
            # no token to point at: the caret goes after the file's last text
            last = lines[filled[-1]]
            loc = SourceLocation(filename, filled[-1] + 1, len(last.rstrip()) + 1, last)
            raise UnsupportedError([Problem(loc, "syntax", "the file ends inside a function or "
                                            "block (a `}` missing?)")]) from None
        if m is None:
            raise PolyoptError(f"{filename}: cannot parse the file: {exc}") from None
        line, file = int(m.group("line")), m.group("file")
        file = filename if file == marker_name(filename) else file
        src = lines[line - 1] if file == filename and 0 < line <= len(lines) else ""
        loc = SourceLocation(file, line, int(m.group("col")), src)
        raise UnsupportedError([Problem(loc, "syntax", f"{m.group('msg')} (pycparser parses "
                                        "standard C99; GNU extensions are not supported)")]) from None


def _regions(ast: c_ast.FileAST, filename: str, lines: tuple[str, ...]) -> list[_Found]:
    out: list[_Found] = []
    problems: list[Problem] = []
    # the name as cpp's line markers write it, and pycparser keeps it (`back\\slash.c`)
    marked = marker_name(filename)
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.coord is not None and ext.coord.file == marked:
            _scan(ext, [ext.body], out, problems, filename, lines)
        elif isinstance(ext, c_ast.Pragma) and _kind(ext) and ext.coord.file == marked:
            problems.append(_problem(ext, filename, lines, f"`#pragma {_kind(ext)}` must be "
                                     "inside a function body"))
    if problems:
        raise UnsupportedError(problems)
    return out


def _scan(fn: c_ast.FuncDef, path: list[c_ast.Compound], out: list[_Found],
          problems: list[Problem], filename: str, lines: tuple[str, ...]) -> None:
    block = path[-1]
    items = list(block.block_items or [])
    start: int | None = None
    for k, item in enumerate(items):
        kind = _kind(item)
        if kind == "scop":
            if start is not None:
                problems.append(_problem(item, filename, lines, "a `#pragma scop` region is "
                                         "already open (regions cannot nest)"))
            start = k
        elif kind == "endscop":
            if start is None:
                problems.append(_problem(item, filename, lines, "`#pragma endscop` without a "
                                         "`#pragma scop` before it in the same block"))
                continue
            out.append(_Found(fn, list(path), items[start], item, items[start + 1:k],
                              items[k + 1:]))
            start = None
        elif start is None:
            for sub in [item] if isinstance(item, c_ast.Compound) else _compounds(item):
                _scan(fn, [*path, sub], out, problems, filename, lines)
    if start is not None:
        problems.append(_problem(items[start], filename, lines, "`#pragma scop` without a "
                                 "matching `#pragma endscop` in the same block"))


def _compounds(node: c_ast.Node) -> list[c_ast.Compound]:
    """The blocks directly nested in ``node`` (through loops and ifs)."""
    out: list[c_ast.Compound] = []
    for _, child in node.children():
        if isinstance(child, c_ast.Compound):
            out.append(child)
        else:
            out += _compounds(child)
    return out


def _kind(node: c_ast.Node) -> str | None:
    if isinstance(node, c_ast.Pragma):
        words: list[str] = node.string.split()
        if words and words[0] in ("scop", "endscop"):
            return words[0]
    return None


def _directives(filename: str, lines: tuple[str, ...], start: int, end: int) -> list[Problem]:
    """A problem for each preprocessor directive between a region's pragmas (lines
    ``start`` and ``end``), but pragmas (the parser sees those) and line markers: the region's C is
    written as one block without them, so a ``#define`` there would no longer change the
    code after the region, nor an ``#ifdef`` follow a ``-D`` build."""
    inner = "\n".join(lines[start:end - 1])
    # comments blanked, their newlines kept: a `#` inside one is no directive
    inner = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), inner)
    problems = []
    for k, line in enumerate(inner.split("\n"), start + 1):
        m = _DIRECTIVE.match(line)
        if m is None or m.group(1) in ("pragma", "line", None):
            continue  # a line marker (`#line 500`, `# 40 "gen.c"`) changes no code
        loc = SourceLocation(filename, k, line.index("#") + 1, lines[k - 1])
        problems.append(Problem(loc, f"`#{m.group(1) or ''}`", "a preprocessor directive inside "
                                "a `#pragma scop` region: polyopt writes the region's C as one "
                                "block without it, so the code after the region would see "
                                "other macros, or a -D build other branches; move it above "
                                "`#pragma scop`"))
    return problems


def _problem(node: c_ast.Node, filename: str, lines: tuple[str, ...], reason: str) -> Problem:
    line = node.coord.line
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    col = len(src) - len(src.lstrip()) + 1
    if not _PRAGMA_LINE.match(src):
        reason += " (the pragma must stand alone on its line)"
    return Problem(SourceLocation(filename, line, col, src), "`#pragma`", reason)


def _calls(nodes: list[c_ast.Node]) -> set[str]:
    """The names of the functions ``nodes`` call."""
    out: set[str] = set()

    class Calls(c_ast.NodeVisitor):  # type: ignore[misc]  # pycparser has no type hints
        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if isinstance(node.name, c_ast.ID):
                out.add(node.name.name)
            self.generic_visit(node)

    for n in nodes:
        Calls().visit(n)
    return out


def _uses(nodes: list[c_ast.Node]) -> set[str]:
    out: set[str] = set()
    for n in nodes:
        _collect_uses(n, out, skip=())
    return out


def _uses_outside(f: _Found) -> set[str]:
    """Names the function reads or writes outside the region (declarations with an
    initializer count), and its parameters."""
    out: set[str] = set()
    _collect_uses(f.function.body, out, skip=tuple(f.items))
    params = f.function.decl.type.args
    if params is not None:
        out |= {p.name for p in params.params if isinstance(p, c_ast.Decl) and p.name}
    return out


def _collect_uses(node: c_ast.Node, out: set[str], skip: tuple[c_ast.Node, ...]) -> None:
    if any(node is s for s in skip):
        return
    if isinstance(node, c_ast.ID):
        out.add(node.name)
    elif isinstance(node, c_ast.Decl) and node.init is not None and node.name:
        out.add(node.name)
    for _, child in node.children():
        _collect_uses(child, out, skip)


def _typedefs(ast: c_ast.FileAST) -> tuple[str, ...]:
    """The file's typedefs of arithmetic types (``typedef char base;``, and of those:
    ``typedef base elem;``), as C text, for the ``--verify`` harness, which holds the
    region's own text (its casts may name them).  Those of the system headers
    (``uint8_t``), and ``bool``, are left to the harness's ``#include``s."""
    out: list[str] = []
    known = set(_ARITHMETIC) | {"_Bool", "_Float16"}
    # the file's, then those inside its functions (c_types.TypeTable reads those too)
    typedefs = [e for e in ast.ext if isinstance(e, c_ast.Typedef)] + [
        n for e in ast.ext if isinstance(e, c_ast.FuncDef) for n in walk_nodes(e.body)
        if isinstance(n, c_ast.Typedef)]
    for ext in typedefs:
        if ext.name not in known and isinstance(ext.type, c_ast.TypeDecl) and \
                isinstance(ext.type.type, c_ast.IdentifierType) and \
                set(ext.type.type.names) <= known:
            known.add(ext.name)
            if not (ext.coord and ext.coord.file.endswith(FAKE_LIBC)) and ext.name != "bool":
                out.append(text(ext) + ";")
    return tuple(out)


_UCN = r"\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}"
_UCN_IDENT = re.compile(rf"(?:[A-Za-z_]|{_UCN})(?:[A-Za-z0-9_]|{_UCN})*")


def _ascii_identifiers(output: str, made: set[str]) -> str:
    """The preprocessor writes a non-ASCII identifier (``β``) with universal character
    names (``\\U000003b2``), which pycparser cannot read: such an identifier becomes
    :func:`polyopt.model.names.internal_name`'s spelling of it (added to ``made``)."""
    if "\\u" not in output and "\\U" not in output:
        return output

    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        if "\\" not in word:
            return word
        name = re.sub(_UCN, lambda u: chr(int(u.group(0)[2:], 16)), word)
        made.add(internal_name(name))
        return internal_name(name)

    return _UCN_IDENT.sub(one, output)


def _rename_unsafe(ast: c_ast.FileAST, made: set[str]) -> None:
    """Rename, throughout the file, the variables isl cannot read (``mod``, ``floor``,
    ``NaN``: its keywords) to :func:`polyopt.model.names.internal_name`'s spelling; errors,
    reports and the optimized region spell them as the file does again
    (:func:`polyopt.model.names.user_text`).  Functions, fields and types keep their names,
    and so do the names :func:`_ascii_identifiers` ``made``."""

    def renames(name: str) -> bool:
        return name not in made and c_frontend_renames(name)

    stack: list[c_ast.Node] = [ast]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.FuncCall):
            if n.args is not None:
                stack.append(n.args)
            continue
        if isinstance(n, c_ast.StructRef):
            stack.append(n.name)
            continue
        if isinstance(n, (c_ast.Typedef, c_ast.Struct, c_ast.Union, c_ast.Enum)):
            continue
        if isinstance(n, c_ast.FuncDef):
            stack += [n.body, *([n.decl.type.args] if n.decl.type.args is not None else [])]
            continue
        if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.FuncDecl):
            continue  # a prototype
        if isinstance(n, c_ast.ID) and renames(n.name):
            n.name = internal_name(n.name)
        elif isinstance(n, c_ast.Decl) and n.name and renames(n.name):
            n.name = internal_name(n.name)
        elif isinstance(n, c_ast.TypeDecl) and n.declname and renames(n.declname):
            n.declname = internal_name(n.declname)
        stack += [c for _, c in n.children()]


def _identifiers(ast: c_ast.FileAST) -> set[str]:
    out: set[str] = set()
    stack: list[c_ast.Node] = [ast]
    while stack:
        n = stack.pop()
        name = getattr(n, "name", None)
        if isinstance(name, str):
            out.add(name)
        declname = getattr(n, "declname", None)
        if isinstance(declname, str):
            out.add(declname)
        stack += [c for _, c in n.children()]
    return out


__all__ = ["CFile", "CRegion", "CppOptions", "NoRegionError", "parse_c_file"]
