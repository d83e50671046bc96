"""C text of isl AST expressions: loop bounds, guards, and the iterators' values.

isl's AST is printed fully parenthesized (``((5 * c3) + 1)``), so that C's
precedence never matters; a loop's condition drops the outer pair, as OpenMP
wants (``c0 < n``).  An :class:`AstText` can also print some sub-expressions
under other names, which is how a register tile's origin is named once::

    const int64_t i = ((5 * c3) + 1);   ->   const int64_t o0 = (5 * c3);
                                             const int64_t i = (o0 + 1);
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import islpy as isl
from polyopt.backend_c.cexpr import int64_literal
from polyopt.backend_c.isl_ast import AND, OR, expr_kind, op_args, op_type

from polyopt.model.aff import Lin, floordiv

_OP = isl.ast_expr_op_type
_BIN = {
    _OP.add: "+", _OP.sub: "-", _OP.mul: "*", _OP.div: "/", _OP.eq: "==", _OP.le: "<=",
    _OP.lt: "<", _OP.ge: ">=", _OP.gt: ">", AND: "&&", _OP.and_then: "&&",
    OR: "||", _OP.or_else: "||", _OP.zdiv_r: "%", _OP.pdiv_r: "%", _OP.pdiv_q: "/",
}
_PLAIN_INT = re.compile(r"-?\d+")
_INT = isl.ast_expr_type.int
_ID = isl.ast_expr_type.id
_OP_EXPR = isl.ast_expr_type.op


def ast_expr(e: isl.AstExpr, int_text: Callable[[int], str] = int64_literal) -> str:
    """C text of an isl AST expression over int64 values (``int_text`` prints constants)."""
    return AstText(int_text)(e)


class AstText:
    """Prints the isl AST expressions of one piece of C.

    ``rename`` maps the text of a sub-expression to the name it is printed as (the
    longest match wins: a renamed expression's parts are not renamed), and
    ``helpers`` collects the integer helpers the printed text calls
    (``polyopt_floord``, ``polyopt_imin``, ``polyopt_imax``).
    """

    def __init__(self, int_text: Callable[[int], str] = int64_literal,
                 wide_products: bool = False) -> None:
        self.int_text = int_text
        # a product's constant as ``long long``: ``100LL * c0 + 99``, a tile's end, may
        # pass INT_MAX where ``c0`` and the iterators are int (a C region's counters)
        self.wide_products = wide_products
        self.rename: dict[str, str] = {}
        self.helpers: set[str] = set()
        # texts under ``rename`` by isl's own C text of the expression, which isl prints
        # unambiguously (a right operand of the same precedence in parentheses): a
        # register tile prints the same bounds and iterator values for each of its copies
        self._memo: dict[tuple[str, bool], str] = {}

    def __call__(self, e: isl.AstExpr, rename: Mapping[str, str] | None = None) -> str:
        return self._text(e, rename, bare=False)

    def bare(self, e: isl.AstExpr, rename: Mapping[str, str] | None = None) -> str:
        """The text without its outer parentheses: ``c0 < n`` for a loop condition."""
        return self._text(e, rename, bare=True)

    @contextmanager
    def renaming(self, rename: Mapping[str, str]) -> Iterator[None]:
        """Sub-expressions printed as names (``rename``) while the block runs."""
        saved, memo = self.rename, self._memo
        self.rename, self._memo = {**saved, **rename}, {}
        try:
            yield
        finally:
            self.rename, self._memo = saved, memo

    def _text(self, e: isl.AstExpr, rename: Mapping[str, str] | None, bare: bool) -> str:
        if rename:  # a renaming for this expression alone
            return self._renamed(e, {**self.rename, **rename}, bare)[1]
        key = (e.to_C_str(), bare)
        text = self._memo.get(key)
        if text is None:
            text = self._renamed(e, self.rename, bare)[1] if self.rename else self._plain(e, bare)
            self._memo[key] = text
        return text

    def _plain(self, e: isl.AstExpr, bare: bool = False) -> str:
        kind = expr_kind(e)
        if kind is _INT:
            return self.int_text(e.get_val().to_python())
        if kind is _ID:
            return str(e.get_id().get_name())
        return self._op(op_type(e), [self._plain(a) for a in op_args(e)], bare)

    def _renamed(self, e: isl.AstExpr, names: Mapping[str, str], bare: bool) -> tuple[str, str]:
        """The text of ``e`` as is and with ``names`` applied."""
        kind = expr_kind(e)
        if kind is _INT:
            raw = self.int_text(e.get_val().to_python())
        elif kind is _ID:
            raw = str(e.get_id().get_name())
        else:
            op = op_type(e)
            parts = [self._renamed(a, names, False) for a in op_args(e)]
            raw = self._op(op, [r for r, _ in parts], bare)
            if raw not in names:
                return raw, self._op(op, [t for _, t in parts], bare)
        return raw, names.get(raw, raw)

    def _op(self, op: isl.ast_expr_op_type, args: list[str], bare: bool) -> str:
        if op == _OP.mul and self.wide_products and _PLAIN_INT.fullmatch(args[0]):
            args = [f"{args[0]}LL", *args[1:]]
        if op in _BIN:
            text = f"{args[0]} {_BIN[op]} {args[1]}"
        elif op == _OP.minus:
            text = f"-{args[0]}"
        elif op in (_OP.cond, _OP.select):
            text = f"{args[0]} ? {args[1]} : {args[2]}"
        elif op in (_OP.min, _OP.max):
            fn = "polyopt_imin" if op == _OP.min else "polyopt_imax"
            self.helpers.add(fn)
            out = args[0]
            for a in args[1:]:
                out = f"{fn}({out}, {a})"
            return out
        elif op == _OP.fdiv_q:
            self.helpers.add("polyopt_floord")
            return f"polyopt_floord({args[0]}, {args[1]})"
        else:
            raise NotImplementedError(f"isl AST operation {op}")
        return text if bare else f"({text})"


@dataclass(frozen=True)
class LoopHeader:
    """The parts of ``for (it = init; cond; it += inc)``."""

    it: str
    init: str
    cond: str
    inc: str


def for_header(index_type: str, loop: LoopHeader) -> str:
    """``for (int c3 = init; cond; c3 += inc) {``.

    An ``int`` counter whose start is computed in ``long long`` (a tile's first row,
    ``polyopt_imax(100000000LL * c1, ...)``) may be handed a start past ``INT_MAX`` where
    the loop runs no iteration; converted, it would wrap negative and run garbage rows.
    It starts at the nearest ``int`` instead (``polyopt_int_start``, a helper macro of
    the region), and its test still fails: a loop that runs has its values in ``int``,
    as the file's own iterators do."""
    init = loop.init
    if index_type == "int" and "LL" in init:
        init = f"polyopt_int_start({init})"
    return f"for ({index_type} {loop.it} = {init}; {loop.cond}; {loop.it} += {loop.inc}) {{"


def first_test(loop: LoopHeader) -> str:
    """The condition under which ``loop`` runs at least once: its test at its start."""
    return re.sub(rf"\b{re.escape(loop.it)}\b", f"({loop.init})", loop.cond)


def loop_header(text: AstText, node: isl.AstNode) -> LoopHeader:
    """The header of a ``for`` node (not degenerate) as ``text`` prints it."""
    return LoopHeader(text(node.for_get_iterator()), text(node.for_get_init()),
                      text.bare(node.for_get_cond()), text(node.for_get_inc()))


def trip_count(text: AstText, node: isl.AstNode) -> str | None:
    """A C (double) count of the iterations of the ``for`` node ``node`` from its header
    (``for (i = init; i <= ub; i += 1)``: ``ub - init + 1``, at most 0 meaning none), or
    None where its test is not a bound on its counter."""
    cond, it = node.for_get_cond(), text(node.for_get_iterator())
    if expr_kind(cond) is not _OP_EXPR or op_type(cond) not in (_OP.le, _OP.lt):
        return None
    counter, bound = op_args(cond)
    if text(counter) != it:
        return None
    span = f"(double)({text(bound)}) - (double)({text(node.for_get_init())})"
    span += " + 1.0" if op_type(cond) == _OP.le else ""
    inc = text(node.for_get_inc())
    return f"({span})" if inc == "1" else f"({span}) / {inc}.0"


def ids(e: isl.AstExpr) -> set[str]:
    """The names (loop counters, parameters) an expression reads."""
    kind = expr_kind(e)
    if kind is _ID:
        return {str(e.get_id().get_name())}
    if kind is _INT:
        return set()
    return set().union(*(ids(a) for a in op_args(e)))


def split_const(e: isl.AstExpr) -> tuple[isl.AstExpr, int]:
    """``(5 * c3) + 1`` -> (``5 * c3``, 1); an expression without a constant term -> (e, 0)."""
    if expr_kind(e) is _INT or expr_kind(e) is _ID:
        return e, 0
    op = op_type(e)
    if op not in (_OP.add, _OP.sub):
        return e, 0
    base, const = op_args(e)
    if expr_kind(const) is not _INT:
        return e, 0
    value = const.get_val().to_python()
    if not 0 <= value < 2**31:  # only a term printed as plain digits counts
        return e, 0
    return base, value if op == _OP.add else -value


def ast_lin(e: isl.AstExpr) -> Lin | None:
    """An isl AST expression as a :class:`Lin` over loop counters and parameters, or None
    when it is not quasi-affine (min, max, conditions)."""
    kind = expr_kind(e)
    if kind is _INT:
        return Lin.constant(e.get_val().to_python())
    if kind is _ID:
        return Lin.var(str(e.get_id().get_name()))
    op = op_type(e)
    args: list[Lin] = []
    for arg in op_args(e):
        lin = ast_lin(arg)
        if lin is None:
            return None
        args.append(lin)
    if op == _OP.add:
        return args[0] + args[1]
    if op == _OP.sub:
        return args[0] - args[1]
    if op == _OP.minus:
        return -args[0]
    if op == _OP.mul:
        a, b = args
        if a.is_constant():
            return b.scale(a.const)
        if b.is_constant():
            return a.scale(b.const)
        return None
    if op in (_OP.fdiv_q, _OP.pdiv_q) and args[1].is_constant() and args[1].const > 0:
        return floordiv(args[0], args[1].const)
    return None
