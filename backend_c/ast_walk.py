"""The walk over the isl AST of a schedule tree, printing C loops.

Mark nodes carry each loop's :class:`LoopMark` down to its ``for``; the walker
hands each job to its writer: OpenMP pragmas (:mod:`~polyopt.backend_c.pragma`),
per-thread array copies (:mod:`~polyopt.backend_c.private_copies`), register
accumulators (:mod:`~polyopt.backend_c.accumulators`), outlined bodies
(:mod:`~polyopt.backend_c.outline`) and statement instances
(:mod:`~polyopt.backend_c.statements`)::

    #pragma omp parallel for schedule(static)
    for (int64_t c0 = 0; c0 < ni; c0 += 1) {
      {
        const int64_t i = c0;
        ...
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace

import islpy as isl
from polyopt.backend_c.accumulators import Accumulators
from polyopt.backend_c.ast_check import mismatch
from polyopt.backend_c.ast_expr import (
    LoopHeader,
    ast_lin,
    first_test,
    for_header,
    loop_header,
    trip_count,
)
from polyopt.backend_c.code import Code, fresh
from polyopt.backend_c.dialect import Dialect
from polyopt.backend_c.isl_ast import NodeKind, block_children, node_kind, user_call
from polyopt.backend_c.outline import LoopOutliner, Outliner
from polyopt.backend_c.peeled import PeeledMark, peeled, runs_outside_loops
from polyopt.backend_c.pragma import Pragmas
from polyopt.backend_c.private_copies import (
    CopyWriter,
    PrivateCopies,
    array_reductions,
    without_array_copies,
)
from polyopt.backend_c.ranged import (
    RangedNest,
    RangeNames,
    range_exprs,
    ranged_input,
    tile_rows,
)
from polyopt.backend_c.signature import CArg
from polyopt.backend_c.statements import StatementWriter
from polyopt.backend_c.unroll import copies, expandable, substitute, unrolled_loop
from polyopt.backend_c.work import entry_instances, parallel_min_instances

from polyopt.analysis.bounds import param_limit
from polyopt.model import forked, names
from polyopt.model.aff import FloorDiv, Lin
from polyopt.model.errors import TooComplexError
from polyopt.model.isl_budget import (
    AST_CHECK_OPS,
    AST_OPS,
    AST_PLAIN_QUICK_OPS,
    AST_QUICK_OPS,
    AST_SECONDS,
    budget,
)
from polyopt.model.schedule_tree import (
    Band,
    LoopDim,
    LoopMark,
    Node,
    Sequence,
    loops,
    prints_in_ranges,
    row_exprs,
    statements,
    to_isl,
)
from polyopt.model.scop import Scop, Statement


def _generated(build: isl.AstBuild, sched: isl.Schedule, quick_ops: int) -> isl.AstNode:
    """isl's AST of ``sched``; :class:`TooComplexError` past its budget, or where a build
    that outgrows ``quick_ops`` does not finish within ``AST_SECONDS`` in a forked
    child: isl does not count the steps of some stalls (a time-tiled nest's AST ran for
    minutes past 300,000 counted operations), so it is tried there first."""
    try:
        with budget(quick_ops, "generating the loop code"):
            return build.node_from_schedule(sched)
    except TooComplexError:
        pass

    def probe() -> bytes:
        with budget(AST_OPS, "generating the loop code"):
            build.node_from_schedule(sched)
        return b""

    if forked.available() and forked.run(probe, AST_SECONDS) is None:
        raise TooComplexError(f"generating the loop code took isl more than {AST_SECONDS:g} s "
                              f"or {AST_OPS:,} operations")
    with budget(AST_OPS, "generating the loop code"):
        return build.node_from_schedule(sched)


def _plain(tree: Node) -> bool:
    """Whether every loop of ``tree`` runs over one iterator or over tiles of one
    (``i``, ``floor(i / 32)``): isl's uncounted stalls came from skewed (time-tiled)
    nests, whose coefficients grow as it pivots."""
    def one_name(e: Lin) -> bool:
        if len(e.terms) != 1 or abs(e.terms[0][1]) != 1:
            return False
        atom = e.terms[0][0]
        return isinstance(atom, str) or (isinstance(atom, FloorDiv) and one_name(atom.num))

    return all(one_name(e) for dim, _ in loops(tree) for _, e in dim.exprs)


@dataclass
class RowHoist:
    """The row pointers of an innermost simd loop, read once before it.

    A C region's ``double **A`` read as ``A[c0][c1]`` in a loop over ``c1`` loads the
    row pointer ``A[c0]`` in every iteration, and under ``omp simd`` gcc gathers it
    lane by lane.  Read once into a local before the loop, it is a plain base pointer.
    The loop reads it only when it runs at least once (``guard``): a row past the end
    of the pointer array is then never read."""

    counter: str  # the loop's counter
    names: dict[str, str] = field(default_factory=dict)  # row text -> its local


class AstWalker:
    """Prints the isl AST of a schedule tree as C, in ``dialect``'s terms.

    ``taken``: the names of the program (new variables avoid them); ``outline_args``:
    the parameters of the function being printed, which outlined helpers take too
    (None: nothing is outlined)."""

    def __init__(self, scop: Scop, openmp: bool, dialect: Dialect, taken: Collection[str],
                 outline_args: tuple[CArg, ...] | None = None, function: str = "kernel") -> None:
        self.scop = scop
        self.openmp = openmp
        self.dialect = dialect
        self.code = Code()
        self.counters: list[str] = []  # loop counters in scope, outermost first
        self.marks: dict[str, LoopDim] = {}
        self.values: dict[str, isl.AstExpr] = {}  # counters of the unrolled copy printed now
        self.mismatch: str | None = None  # why the last AST built was refused (ast_check)
        prefix = "c"
        while any(u.startswith(prefix) and u[len(prefix):].isdigit() for u in taken):
            prefix += "_"
        self.prefix = prefix
        self.row_prefix = fresh("polyopt_row", taken)
        self.row_hoist: RowHoist | None = None
        self.row_count = 0
        self.range_names = RangeNames(*(fresh(f"polyopt_{n}", taken) for n in (
            "lo", "hi", "first", "count", "blocks", "block")))
        self.ranged_used = False  # whether some nest was printed in ranges (prelude.ROW_RANGES)
        self.statements = StatementWriter(self.code, scop, dialect)
        self.pragmas = Pragmas(scop, openmp, dialect, self._named)
        self.private_copies = PrivateCopies(self.code, scop, self.pragmas, dialect, taken)
        self.copies: CopyWriter = self.private_copies
        self.outliner: LoopOutliner | None = None if outline_args is None else Outliner(
            self.code, scop, self.statements, self.pragmas, self.counters, outline_args,
            function, dialect.index_type)
        self.accumulators = Accumulators(self.code, scop, dialect, self.statements,
                                         self.pragmas, self.outliner, taken, self._print)

    def use_outliner(self, outliner: LoopOutliner) -> None:
        """Outline with ``outliner`` (a C region's) instead."""
        self.outliner = self.accumulators.outliner = outliner

    def use_copies(self, copies: CopyWriter) -> None:
        """Make per-thread array copies with ``copies`` (a C region's) instead."""
        self.copies = copies

    def _named(self, names: Iterable[str]) -> None:
        """Scalars a pragma names count as used by the statements printed now."""
        self.statements.usage.mentioned.update(names)

    def build_ast(self, tree: Node) -> tuple[isl.AstNode | RangedNest, ...]:
        """The isl ASTs of ``tree``'s nests, in order (one per child of a root sequence),
        their loop counters named ``<prefix>0``, ``<prefix>1``...; :class:`TooComplexError`
        past isl's budget (callers fall back to the source order).

        Nests apart share no loop, so isl's work for the whole is the sum of theirs; built
        one at a time, each is checked and, where isl needs it, retried alone, and fewer
        outgrow the quick budget (3mm's three matmuls each fit, together they do not)."""
        iterators = {s.name: s.iterators for s in self.scop.statements}
        # only the sizes the loops depend on: the others (array extents, for the bounds
        # checks) change no bound, but isl carries them through every step (3mm: 14
        # parameters instead of 5 cost a third more time)
        params = _loop_params(self.scop, tree)
        domains = {s.name: names.keep_params(s.domain, params) for s in self.scop.statements}
        context = names.keep_params(self.scop.context, params)
        depth = max(len(s.iterators) for s in self.scop.statements) + 8
        counters = [f"{self.prefix}{k}" for k in range(4 * depth)]
        self.marks = {}
        asts: list[isl.AstNode | RangedNest] = []
        for nest in tree.children if isinstance(tree, Sequence) else (tree,):
            ranged = self._ranged_ast(nest, params, iterators, domains, context, counters)
            if ranged is not None:
                asts.append(ranged)
                continue
            ast = self._checked_ast(nest, params, iterators, domains, context, counters)
            if ast is None:
                # isl dropped or repeated instances (ast_check): with every parameter
                # bounded by what a call accepts (bounds.param_limit), isl takes another path
                bounded = context.intersect(names.bounded_params(context, param_limit(self.scop)))
                ast = self._checked_ast(nest, params, iterators, domains, bounded, counters)
            if ast is None:  # the callers fall back to the source order, checked in turn
                raise TooComplexError(f"isl generated loops that do not run {self.scop.name}'s "
                                      f"statements as written ({self.mismatch})")
            asts.append(ast)
        self.accumulators.marks = self.marks
        return tuple(asts)

    def _ranged_ast(self, nest: Node, params: tuple[str, ...],
                    iterators: dict[str, tuple[str, ...]], domains: dict[str, isl.Set],
                    context: isl.Set, counters: list[str]) -> RangedNest | None:
        """``nest`` to print in ranges (backend_c/ranged.py), or None: its outer loop is not
        marked so, or this C cannot ask for the team, or isl's body is refused."""
        if not (isinstance(nest, Band) and self.openmp and self.dialect.ranges_rows
                and prints_in_ranges(nest.dims[0].mark)):
            return None
        mark = nest.dims[0].mark
        exprs = row_exprs(nest.dims[0], mark.ranged)
        if exprs is None:
            return None
        rows, bounds = tile_rows(nest, params, iterators, domains, exprs)
        got = ranged_input(nest, params, iterators, domains, context, exprs, bounds,
                           self.range_names)
        body = self._checked_ast(got.inner, got.params, iterators, got.domains, got.context,
                                 counters)
        if body is None:
            return None
        runs, first, last = range_exprs(rows, bounds, context)
        den = next(a.den for _, e in nest.dims[0].exprs for a, _ in e.terms
                   if isinstance(a, FloorDiv))
        return RangedNest(body, mark, runs, first, last, den // mark.ranged, self.range_names)

    def _checked_ast(self, tree: Node, params: tuple[str, ...],
                     iterators: dict[str, tuple[str, ...]], domains: dict[str, isl.Set],
                     context: isl.Set, counters: list[str]) -> isl.AstNode | None:
        """isl's AST of ``tree``, or None (the reason in ``self.mismatch``) when it does
        not run each statement instance once; its loops join ``self.marks``."""
        before = self.marks
        for unroll in (False, True):  # the printer unrolls, where it can (unroll.py)
            sched, self.marks = to_isl(tree, params, iterators, domains, unroll, before)
            build = isl.AstBuild.from_context(context).set_iterators(names.id_list(counters))
            ast = _generated(build, sched,
                             AST_PLAIN_QUICK_OPS if _plain(tree) else AST_QUICK_OPS)
            if unroll or expandable(ast, self.marks):
                break
        used = {k: domains[k] for k in statements(tree)}
        try:
            with budget(AST_CHECK_OPS, "checking the loop code"):
                self.mismatch = mismatch(ast, used, context, counters)
        except TooComplexError:
            self.mismatch = None  # unchecked: a time-tiled nest's sets cost isl seconds
        if self.mismatch:
            self.marks = before
            return None
        return ast

    def print_tree(self, tree: Node, depth: int = 1) -> None:
        """Print ``tree``'s loops (:meth:`build_ast`) at ``depth``."""
        for ast in self.build_ast(tree):
            self.nest(ast, depth)

    def nest(self, nest: isl.AstNode | RangedNest, depth: int) -> None:
        """Print one nest of :meth:`build_ast`."""
        if isinstance(nest, RangedNest):
            self._ranged(nest, depth)
        else:
            self.node(nest, depth, None)

    def _ranged(self, r: RangedNest, depth: int) -> None:
        """The loop over blocks of rows around ``r``'s body (backend_c/ranged.py)."""
        emit, text, n = self.code.emit, self.dialect.text, r.names
        index = self.dialect.index_type
        self.ranged_used = True
        emit(depth, f"if ({text(r.runs)}) {{" if r.runs is not None else "{")
        d = depth + 1
        emit(d, f"const {index} {n.first} = {text.bare(r.first)};")
        emit(d, f"const {index} {n.count} = {text(r.last)} - {n.first} + 1;")
        emit(d, f"const {index} {n.blocks} = polyopt_row_blocks({n.count}, {r.per}, "
                f"{self.pragmas.team_condition()});")
        pragma = self.pragmas.loop(r.mark)
        if pragma:
            emit(d, pragma)
        emit(d, f"for ({index} {n.block} = 0; {n.block} < {n.blocks}; {n.block} += 1) {{")
        start = f"polyopt_row_start({n.first}, {n.count}, {n.blocks}, {n.block}"
        emit(d + 1, f"const {index} {n.lo} = {start});")
        emit(d + 1, f"const {index} {n.hi} = {start} + 1);")
        self.counters += [n.lo, n.hi]  # the body's parameters: an outlined body takes them
        if self.outliner is not None and self.outliner.outlines_body(r.mark, r.body):
            self.outliner.parallel_body(r.body, d + 1, r.mark, self._print)
        else:
            self.node(r.body, d + 1, None)
        del self.counters[-2:]
        emit(d, "}")
        emit(depth, "}")

    def node(self, node: isl.AstNode, depth: int, pending: LoopMark | None) -> None:
        """Print ``node``; ``pending`` is the mark of the loop it starts with."""
        kind = node_kind(node)
        emit = self.code.emit
        if kind is NodeKind.BLOCK:
            for child in block_children(node):
                self.node(child, depth, pending)
        elif kind is NodeKind.MARK and (loop := unrolled_loop(node, self.marks)) is not None:
            outer = self.values
            for counter, value in copies(loop):
                self.values = {**outer, counter: substitute(value, outer)}
                self.node(loop.for_get_body(), depth, None)
            self.values = outer
        elif kind is NodeKind.MARK:
            dim = self.marks[node.mark_get_id().get_name()]
            inner = node.mark_get_node()
            self.node(inner, depth, peeled(dim.mark) if runs_outside_loops(inner) else dim.mark)
        elif kind is NodeKind.FOR:
            self._for(node, depth, pending)
        elif kind is NodeKind.IF:
            emit(depth, f"if ({self.dialect.text(node.if_get_cond())}) {{")
            self.node(node.if_get_then_node(), depth + 1, pending)
            if node.if_has_else_node():
                emit(depth, "} else {")
                self.node(node.if_get_else_node(), depth + 1, pending)
            emit(depth, "}")
        else:
            self._user(node, depth)

    def _print(self, node: isl.AstNode, depth: int) -> None:
        self.node(node, depth, None)

    def _user(self, node: isl.AstNode, depth: int) -> None:
        name, args = user_call(node)
        args = [substitute(a, self.values) for a in args]
        stmt = self.scop.statement(name)
        values = [self.dialect.text(a) for a in args]
        if self.row_hoist is not None:
            self.dialect.body.rows = self._rows(stmt, args, values, self.row_hoist)
        try:
            line = None if self.statements.replacing(stmt) else \
                self.dialect.statement_line(stmt, values)
            if line is not None:
                self.code.emit(depth, line)
                return
            lin_values = [ast_lin(a) for a in args] \
                if self.dialect.body.hoisted is not None else []
            self.statements.write(stmt, values, lin_values, depth)
        finally:
            self.dialect.body.rows = {}

    def _rows(self, stmt: Statement, args: list[isl.AstExpr], values: list[str],
              hoist: RowHoist) -> dict[tuple[str, tuple[Lin, ...]], str]:
        """The row pointers ``stmt`` reads or writes through that the loop of ``hoist``
        does not move: (array, subscripts but the last) -> the local holding it."""
        out: dict[tuple[str, tuple[Lin, ...]], str] = {}
        moving = set()
        for v, a in zip(stmt.iterators, args, strict=True):
            lin_value = ast_lin(a)
            if lin_value is None or hoist.counter in lin_value.names():
                moving.add(v)
        env = dict(zip(stmt.iterators, values, strict=True))
        for acc in stmt.accesses:
            prefix = acc.indices[:-1]
            if acc.target not in self.dialect.pointer_rows or not prefix or any(
                    ix.names() & moving for ix in prefix):
                continue
            text = self.dialect.row_text(acc.target, prefix, env)
            if text not in hoist.names:
                hoist.names[text] = f"{self.row_prefix}{self.row_count}"
                self.row_count += 1
            out[(acc.target, prefix)] = hoist.names[text]
        return out

    def _for(self, node: isl.AstNode, depth: int, mark: LoopMark | None) -> None:
        if node.for_is_degenerate():
            it = self.dialect.text(node.for_get_iterator())
            self.code.emit(depth, "{")
            self.code.emit(depth + 1, f"const {self.dialect.index_type} {it} = "
                           f"{self.dialect.text(node.for_get_init())};")
            self.counters.append(it)
            self.node(node.for_get_body(), depth + 1, None)
            self.counters.pop()
            self.code.emit(depth, "}")
            return
        loop = loop_header(self.dialect.text, node)
        if mark is not None and mark.simd and self.dialect.pointer_rows and \
                self.row_hoist is None and _straight(node.for_get_body()):
            self._for_reading_rows_once(node, depth, mark, loop)
            return
        self._marked_for(node, depth, mark, loop)

    def _for_reading_rows_once(self, node: isl.AstNode, depth: int, mark: LoopMark,
                               loop: LoopHeader) -> None:
        """The loop, its row pointers read before it (:class:`RowHoist`)."""
        hoist = self.row_hoist = RowHoist(loop.it)
        try:
            with self.code.capture() as lines:
                self._marked_for(node, depth, mark, loop)
        finally:
            self.row_hoist = None
        runs = first_test(loop)
        for text, name in hoist.names.items():
            self.code.emit(depth, f"__typeof__({text}) const {name} = ({runs}) ? {text} : 0;")
        self.code.lines += lines

    def _marked_for(self, node: isl.AstNode, depth: int, mark: LoopMark | None,
                    loop: LoopHeader) -> None:
        if mark is not None and mark.scalar_replace and self.accumulators.write(
                node, depth, mark, loop):
            return
        if mark is not None and mark.parallel and self.openmp and (
                mark.private_arrays or array_reductions(self.scop, mark)):
            if self.dialect.privatizes_arrays and not isinstance(mark, PeeledMark) \
                    and self.copies.can_copy(mark):
                copied = self.copies.open(depth, mark, loop)
                self._loop(node, copied.depth, copied.mark, loop, copied.prologue,
                           copied.epilogue)
                self.copies.close(copied)
                return
            # an instance peeled off the loop would use the shared array while the
            # iterations use their copies (and a C region copies only some arrays): run
            # the loop in order instead
            mark = replace(without_array_copies(self.scop, mark), parallel=False)
        if mark is not None and self._versioned(node, depth, mark, loop):
            return
        pragma = self.pragmas.loop(mark) if mark is not None else None
        if pragma:
            self.code.emit(depth, pragma)
        self._loop(node, depth, mark, loop)

    def _versioned(self, node: isl.AstNode, depth: int, mark: LoopMark,
                   loop: LoopHeader) -> bool:
        """Print a small parallel loop twice, on a team and in order, chosen by the team
        flag (whether the call has enough work for threads)::

            if (polyopt_team) {                      #pragma omp parallel for ... if(polyopt_team)
              #pragma omp parallel for ...           for (...) { body }
              for (...) { body }             <-
            } else {
              #pragma omp simd     (where simd)
              for (...) { body }
            }

        Even a team of one costs an OpenMP runtime call (a quarter of a microsecond,
        and the runtime's start, several microseconds, on the first), which a small call
        of a small kernel feels.  Only a loop whose text is short is copied: a body
        moved into a helper (a call), or statements without an inner loop.  Its order is
        the schedule's, which the parallel run only reorders: the same results."""
        if not (mark.parallel and self.pragmas.team is not None):
            return False
        body = node.for_get_body()
        if not (_straight(body) or (self.outliner is not None
                                    and self.outliner.outlines_body(mark, body))):
            return False
        parallel = self.pragmas.loop(mark, team_clause=False)
        if parallel is None:
            return False
        with self.code.capture() as lines:
            self._loop(node, depth + 1, mark, loop)
        # (a simd mark has no firstprivate scalars, which simd could not copy in:
        # LoopVerdict.vectorizable, MarkParallel._wants_simd)
        serial = self.pragmas.loop(replace(mark, parallel=False))
        self.code.emit(depth, f"if ({self._team_for(node, body)}) {{")
        self.code.emit(depth + 1, parallel)
        self.code.lines += lines
        self.code.emit(depth, "} else {")
        if serial:
            self.code.emit(depth + 1, serial)
        self.code.lines += lines
        self.code.emit(depth, "}")
        return True

    def _team_for(self, node: isl.AstNode, body: isl.AstNode) -> str:
        """The condition for a team on the versioned loop ``node``: the call's flag, and,
        where its body is straight statements, enough of them in this one entry.  The
        call's work may pass the threshold while one entry of a short loop (atax zeroes
        ``y`` before its nest; a loop inside another forks at every entry) costs less
        than a fork and join."""
        team = self.pragmas.team_condition()
        trips = trip_count(self.dialect.text, node) if _straight(body) else None
        entry_min = entry_instances(parallel_min_instances())
        if trips is None or not entry_min:
            return team
        per_trip = len(block_children(body)) if node_kind(body) is NodeKind.BLOCK else 1
        work = trips if per_trip == 1 else f"{trips} * {per_trip}.0"
        return f"{team} && {work} >= {entry_min}.0"

    def _loop(self, node: isl.AstNode, depth: int, mark: LoopMark | None, loop: LoopHeader,
              prologue: tuple[str, ...] = (), epilogue: tuple[str, ...] = ()) -> None:
        emit = self.code.emit
        emit(depth, for_header(self.dialect.index_type, loop))
        self.counters.append(loop.it)
        for line in prologue:
            emit(depth + 1, line)
        inner = depth + 1 + (1 if prologue else 0)
        if mark is not None and self.outliner is not None and \
                self.outliner.outlines_body(mark, node.for_get_body()):
            self.outliner.parallel_body(node.for_get_body(), inner, mark, self._print)
        else:
            self.node(node.for_get_body(), inner, None)
        for line in epilogue:
            emit(depth + 1, line)
        self.counters.pop()
        emit(depth, "}")


def _straight(body: isl.AstNode) -> bool:
    """The loop body is statements only: no condition that a row read before the loop
    would skip, no inner loop."""
    kind = node_kind(body)
    if kind is NodeKind.BLOCK:
        return all(node_kind(c) is NodeKind.USER for c in block_children(body))
    return kind is NodeKind.USER


def _loop_params(scop: Scop, tree: Node) -> tuple[str, ...]:
    """The parameters that the statements' domains or the tree's loops mention."""
    used: set[str] = set()
    for s in scop.statements:
        used |= names.involved_params(s.domain)
    for d, _ in loops(tree):
        for _, e in d.exprs:
            used |= e.names()
    return tuple(p for p in scop.params if p in used)
