"""Register accumulators: a loop's invariant element kept in a local (scalar replacement).

A loop marked ``scalar_replace`` whose body updates one element that does not
depend on the loop's counter loads it before the loop and stores it after::

    for (c2 = 0; c2 < nk; c2 += 1)           if (0 < nk) {
      C[i * nj + j] += A[..] * B[..];   ->     double C_acc = C[i * nj + j];
                                               for (c2 = 0; c2 < nk; c2 += 1)
                                                 C_acc = (C_acc + A[..] * B[..]);
                                               C[i * nj + j] = C_acc;
                                             }

A body of several statements may hold several such elements, one local each
(gesummv's ``tmp[i]`` and ``y[i]``, reduced together by one ``simd`` clause).

After unroll-and-jam the body holds several copies of the statement, each with
its own element and local (a register tile).  Such a tile is outlined as a
micro-kernel (:mod:`polyopt.backend_c.outline`) in which every element a copy
reads is loaded once per iteration into a local, and the tile's origin is named
once (gcc folds the first copy's address differently from the others' and then
packs the row's accumulators into fewer, narrower vectors).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

import islpy as isl
from polyopt.backend_c.ast_expr import LoopHeader, for_header, ids, loop_header, split_const
from polyopt.backend_c.cexpr import Hoisted
from polyopt.backend_c.code import Code, fresh
from polyopt.backend_c.dialect import Dialect
from polyopt.backend_c.isl_ast import (
    NodeKind,
    block_children,
    call_statement,
    node_kind,
    op_args,
)
from polyopt.backend_c.outline import LoopOutliner
from polyopt.backend_c.pragma import Pragmas
from polyopt.backend_c.statements import Replacement, StatementWriter
from polyopt.backend_c.unroll import copies, substitute, unrolled_loop

from polyopt.model.schedule_tree import LoopDim, LoopMark
from polyopt.model.scop import Scop, Statement


def user_calls(node: isl.AstNode, marks: Mapping[str, LoopDim],
               values: Mapping[str, isl.AstExpr] | None = None) -> tuple[list[isl.AstExpr], bool]:
    """The statement calls in a loop body made only of blocks, ifs, statements and loops
    the printer unrolls (their counters replaced by ``values`` in each copy), and
    whether some are guarded by an ``if``; ([], False) for any other body."""
    values = values or {}
    kind = node_kind(node)
    if kind is NodeKind.USER:
        return [substitute(node.user_get_expr(), values)], False
    if kind is NodeKind.MARK and (loop := unrolled_loop(node, marks)) is not None:
        out: list[isl.AstExpr] = []
        for counter, value in copies(loop):
            sub, _ = user_calls(loop.for_get_body(), marks,
                                {**values, counter: substitute(value, values)})
            if not sub:
                return [], False
            out += sub
        return out, False
    if kind is NodeKind.BLOCK:
        out = []
        guarded = False
        for child in block_children(node):
            sub, g = user_calls(child, marks, values)
            if not sub:
                return [], False
            out += sub
            guarded = guarded or g
        return out, guarded
    if kind is NodeKind.IF and not node.if_has_else_node():
        sub, _ = user_calls(node.if_get_then_node(), marks, values)
        return sub, bool(sub)
    if kind is NodeKind.MARK:  # the mark of a loop isl unrolled
        return user_calls(node.mark_get_node(), marks, values)
    return [], False


def _needed(stmt: Statement) -> list[str]:
    """The iterators ``stmt``'s element depends on."""
    return [v for v in stmt.iterators if v in set().union(*(ix.names() for ix in stmt.indices))]


@dataclass
class _Tile:
    """The distinct elements the statement's copies update, by the values of the
    iterators the element depends on."""

    locals: dict[tuple[str, ...], str] = field(default_factory=dict)
    binds: dict[tuple[str, ...], list[tuple[str, str]]] = field(default_factory=dict)
    exprs: dict[tuple[str, ...], list[tuple[str, isl.AstExpr]]] = field(default_factory=dict)


class Accumulators:
    """Prints loops marked ``scalar_replace`` with their accumulators in locals.

    ``print_node`` prints an AST node at a depth (the walker's)."""

    def __init__(self, code: Code, scop: Scop, dialect: Dialect, statements: StatementWriter,
                 pragmas: Pragmas, outliner: LoopOutliner | None, taken: Collection[str],
                 print_node: Callable[[isl.AstNode, int], None]) -> None:
        self.code = code
        self.scop = scop
        self.dialect = dialect
        self.statements = statements
        self.pragmas = pragmas
        self.outliner = outliner
        self.taken = taken
        self.print_node = print_node
        self.marks: Mapping[str, LoopDim] = {}  # the AST's loops by mark (the walker's)
        # the last micro-kernel's origins: text -> (local, isl expression)
        self._origin_exprs: dict[str, tuple[str, isl.AstExpr]] = {}

    def write(self, node: isl.AstNode, depth: int, mark: LoopMark, loop: LoopHeader) -> bool:
        """Print the loop with its accumulators in locals; False if the AST does not
        have the expected shape (then the loop is printed normally)."""
        calls, guarded = user_calls(node.for_get_body(), self.marks)
        if not calls:
            return False
        names = {call_statement(c) for c in calls}
        # the mark names the accumulators' statements (licm.py), one element each; one
        # statement may have several (a register tile's copies).  Only those: a body
        # licm saw as several statements may print as one (an empty one is not printed),
        # and that one was not checked
        chosen = mark.accumulators
        if not names.issuperset(chosen) or (len(names) > 1 and guarded):
            return False
        groups = [[c for c in calls if call_statement(c) == s] for s in chosen]
        if len(groups) > 1 and any(len(g) != 1 for g in groups):
            return False
        held = []
        for group in groups:
            stmt = self.scop.statement(call_statement(group[0]))
            if stmt.target not in self.scop.arrays or (guarded and len(group) > 1):
                return False
            needed = _needed(stmt)
            base = fresh(f"{stmt.target}_acc", self.taken)
            tile = self._tile(group, stmt, needed, loop.it, base)
            if tile is None:
                return False
            held.append((stmt, needed, tile, base, group))
        if len({h[0].target for h in held}) != len(held):
            return False  # two locals of one array: the reduction clause names each once
        if len(held) == 1 and len(held[0][2].locals) > 1:  # a register tile
            stmt, needed, tile, base, group = held[0]
            if self.outliner is not None:
                self._micro_kernel(node, stmt, depth, mark, loop.it, (needed, tile, base, group))
                return True
            self.dialect.body.hoisted = Hoisted(fresh("v", self.taken))  # a C region's, in place
        self._accumulate(node, depth, mark, loop, [(s, n, t) for s, n, t, _, _ in held])
        self.dialect.body.hoisted = None
        return True

    def _tile(self, calls: list[isl.AstExpr], stmt: Statement, needed: list[str], it: str,
              base: str) -> _Tile | None:
        """The copies' elements; None when one depends on the loop's counter ``it``."""
        tile = _Tile()
        for call in calls:
            exprs = dict(zip(stmt.iterators, op_args(call)[1:], strict=True))
            args = {v: self.dialect.text(e) for v, e in exprs.items()}
            key = tuple(args[v] for v in needed)
            if any(it in ids(exprs[v]) for v in needed):
                return None
            if key not in tile.locals:
                tile.locals[key] = base if len(calls) == 1 else f"{base}{len(tile.locals)}"
                tile.binds[key] = [(v, args[v]) for v in needed]
                tile.exprs[key] = [(v, exprs[v]) for v in needed]
        return tile

    def _micro_kernel(self, node: isl.AstNode, stmt: Statement, depth: int, mark: LoopMark,
                      it: str, found: tuple[list[str], _Tile, str, list[isl.AstExpr]]) -> None:
        """The register tile's loop as an outlined micro-kernel, its loads hoisted."""
        assert self.outliner is not None
        needed, tile, base, calls = found
        text = self.dialect.text
        origins = self._origins(tile, it)
        with text.renaming(origins):  # the same tile, its elements in terms of the origin
            renamed = self._tile(calls, stmt, needed, it, base)
            assert renamed is not None
            loop = loop_header(text, node)
            body = self.dialect.body
            with self.code.capture() as lines, self.statements.tracking() as usage:
                body.hoisted = Hoisted(fresh("v", self.taken))
                self._accumulate(node, 1, mark, loop, [(stmt, needed, renamed)])
                body.hoisted = None
        decls = [f"  const {self.dialect.index_type} {name} = {origin};"
                 for origin, name in origins.items()]
        ahead = self._prefetch_next(stmt, renamed, origins)
        self.outliner.micro_kernel(stmt, decls + ahead + lines, usage, depth)

    def _prefetch_next(self, stmt: Statement, tile: _Tile, origins: dict[str, str]) -> list[str]:
        """Lines that prefetch the next call's tile of the result, one element per cache
        line: its loads come first in that call, and it is rarely in cache (the calls walk
        down the rows, and BLIS's blocks pass over the result once per ``kc`` block)::

            const int64_t o0 = (8 * c4);         {  /* the next call's tile */
            ...                            ->      const int64_t o0 = (8 * (c4 + 1));
                                                   { const int64_t i = o0; const int64_t j = o1;
                                                     polyopt_prefetch(C, i * m + j, double); }
                                                   ...

        The next call is the next value of the innermost enclosing counter; none where no
        origin depends on it or the result's last subscript is not one iterator."""
        counters = self.outliner.counters if self.outliner is not None else []
        last = stmt.indices[-1].as_name() if stmt.indices else None
        if not counters or last is None or stmt.indices[-1].coeff(last) != 1:
            return []
        counter = counters[-1]
        text = self.dialect.text
        moved = {name: text(expr, {counter: f"({counter} + 1)"})
                 for name, expr in self._origin_exprs.values()
                 if name in origins.values() and counter in ids(expr)}
        line = self.dialect.prefetch(stmt.target, stmt.indices) if moved else None
        if line is None:
            return []
        per_line = max(1, 64 // (self.scop.arrays[stmt.target].dtype.bits // 8))
        rows: dict[tuple[tuple[str, str], ...], list[tuple[int, tuple[str, ...]]]] = {}
        for key, exprs in tile.exprs.items():
            offset = dict((v, split_const(e)[1]) for v, e in exprs).get(last, 0)
            others = tuple((v, a) for v, a in tile.binds[key] if v != last)
            rows.setdefault(others, []).append((offset, key))
        out: list[str] = []
        for row in rows.values():
            top = max(offset for offset, _ in row)
            for offset, key in sorted(row):
                if offset % per_line and offset != top:
                    continue
                binds = "".join(self.dialect.bind(v, a) + " " for v, a in tile.binds[key])
                out.append(f"    {{ {binds}{line} }}")
        decls = [f"    const {self.dialect.index_type} {name} = {value};"
                 for name, value in moved.items()]
        return ["  {  /* the next call's tile of the result: in cache when it loads it */",
                *decls, *out, "  }"]

    def _origins(self, tile: _Tile, it: str) -> dict[str, str]:
        """The register tile's origin, a local per iterator: the unrolled copies'
        iterators ``(5 * c3)``, ``((5 * c3) + 1)``, ... are that local plus a constant."""
        text = self.dialect.text
        origins: dict[str, str] = {}
        self._origin_exprs = {}
        copies = list(tile.exprs.values())
        for v in dict.fromkeys(v for binds in copies for v, _ in binds):  # in order: stable C
            split = {(text(b), c, b) for binds in copies for w, a in binds if w == v
                     for b, c in [split_const(a)]}
            bases = {b for b, _, _ in split}
            if len({(b, c) for b, c, _ in split}) > 1 and len(bases) == 1:
                origin, _, expr = next(iter(split))
                if it not in ids(expr) and origin not in origins:
                    origins[origin] = f"{fresh('o', self.taken)}{len(origins)}"
                    self._origin_exprs[origin] = (origins[origin], expr)
        return origins

    def _accumulate(self, node: isl.AstNode, depth: int, mark: LoopMark, loop: LoopHeader,
                    held: list[tuple[Statement, list[str], _Tile]]) -> None:
        """The loop with each statement's elements of ``held`` in its tile's locals."""
        emit = self.code.emit
        first = self.dialect.text.bare(node.for_get_cond(), {loop.it: f"({loop.init})"})
        emit(depth, f"if ({first}) {{")
        for stmt, _, tile in held:
            ctype = self.dialect.element_ctype(stmt.target)
            emit(depth + 1, f"{ctype} {', '.join(tile.locals.values())};")
        for stmt, _, tile in held:
            element = self.dialect.element(stmt.target, stmt.indices)
            for key, acc in tile.locals.items():
                self._bound(depth + 1, tile.binds[key], f"{acc} = {element};")
        pragma = None
        if all(len(tile.locals) == 1 for _, _, tile in held):
            pragma = self.pragmas.loop(mark, {stmt.target: next(iter(tile.locals.values()))
                                              for stmt, _, tile in held})
        if pragma:
            emit(depth + 1, pragma)
        emit(depth + 1, for_header(self.dialect.index_type, loop))
        self.statements.replaced = {stmt.name: Replacement(stmt.name, needed, tile.locals)
                                    for stmt, needed, tile in held}
        start = len(self.code.lines)
        self.print_node(node.for_get_body(), depth + 2)
        self.statements.replaced = {}
        hoisted = self.dialect.body.hoisted
        if hoisted is not None:  # each element read once, before the copies
            self.code.lines[start:start] = [
                "  " * (depth + 2) + f"const {self.dialect.element_ctype(array)} {local} = {text};"
                for text, (local, array) in hoisted.locals.items()]
        emit(depth + 1, "}")
        for stmt, _, tile in held:
            element = self.dialect.element(stmt.target, stmt.indices)
            for key, acc in tile.locals.items():
                self._bound(depth + 1, tile.binds[key], f"{element} = {acc};")
        emit(depth, "}")

    def _bound(self, depth: int, binds: list[tuple[str, str]], text: str) -> None:
        """``text`` in a block where the statement iterators ``binds`` are defined."""
        if not binds:
            self.code.emit(depth, text)
            return
        self.code.emit(depth, "{")
        for v, a in binds:
            self.code.emit(depth + 1, self.dialect.bind(v, a))
        self.code.emit(depth + 1, text)
        self.code.emit(depth, "}")
