"""The double-buffer swap: a time loop whose last statement swaps two arrays.

``A, B = B, A`` rebinds names, which the polyhedral model has no notion of; but in the
loop's iteration ``t`` the names stand for one buffer or the other by the parity of
``t``.  The loop is unrolled by two, the second copy of its body with the names
exchanged, so that every access names its buffer and the analysis stays exact::

    for t in range(T):                    for t in range(0, T, 2):
        for i in range(1, n - 1):             for i in range(1, n - 1):
            B[i] = A[i - 1] + A[i + 1]            B[i] = A[i - 1] + A[i + 1]
        A, B = B, A                           if t + 1 < T:
                                                  for i in range(1, n - 1):
                                                      A[i] = B[i - 1] + B[i + 1]

After the loop the names are exchanged when it ran an odd number of times: renamed
when the trip count is a constant, and otherwise only ``return A`` may use them, which
copies the buffer the parity of :func:`trip_count` chooses into the returned array.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from polyopt.frontends.python_helpers import substituted
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_symbols import ArrayInfo
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin
from polyopt.model.errors import SourceLocation
from polyopt.model.scop import ArrayKind

#: set on every node of the second copy of an unrolled body: the names it exchanged
_SWAPPED = "_polyopt_swapped"


@dataclass(frozen=True)
class _Ambiguous:
    """After a swapping loop of unknown trip count: the name's other buffer, and the
    test that the loop ran an odd number of times."""

    other: str
    odd: ast.expr
    line: int


class DoubleBuffers:
    """The swapping loops of a function's top level, and what the swapped names stand
    for after them."""

    def __init__(self, scope: FunctionScope) -> None:
        self.scope = scope
        self.symbols = scope.symbols
        self.renames: dict[str, str] = {}  # after an odd constant number of swaps
        self.ambiguous: dict[str, _Ambiguous] = {}

    def loop(self, st: ast.For, top: bool) -> ast.For | None:
        """The unrolled form of ``st`` when its last statement swaps two arrays (state
        for the statements after it recorded); None for another loop."""
        pair = swapped_names(st.body[-1], self.symbols.arrays) if st.body else None
        if pair is None:
            return None
        a, b = pair
        if not top or not has_literal_step(st) or a in self.ambiguous or b in self.ambiguous:
            raise NotAffine(st.body[-1], "swapping arrays", "only the last statement of a loop "
                            "at the function's top level, with a literal step, may swap arrays")
        count_node, runs = trip_count(st)
        try:
            count = self.scope.affine.aff(count_node)
        except NotAffine:
            count = None
        if isinstance(count, Lin) and count.is_constant():  # the parity is known
            if count.const > 0 and count.const % 2 == 1:
                self.renames = {**self.renames, a: self.renames.get(b, b), b: self.renames.get(a, a)}
        else:
            odd = ast.Compare(ast.BinOp(count_node, ast.Mod(), ast.Constant(2)), [ast.Eq()],
                              [ast.Constant(1)])
            test = ast.copy_location(ast.BoolOp(ast.And(), [runs, odd]), st)
            odd_runs = ast.fix_missing_locations(test)
            line = self.symbols.facts.src.location(st).line  # the file's, not the AST's
            self.ambiguous[a] = _Ambiguous(b, odd_runs, line)
            self.ambiguous[b] = _Ambiguous(a, odd_runs, line)
        return unrolled(st, a, b)

    def after(self, st: ast.stmt) -> list[ast.stmt]:
        """``st``, a top-level statement, with the names the swaps exchanged: renamed,
        or (a returned array) copied by the parity of the loop's trip count."""
        if self.renames:
            st = substituted(st, self.renames, {})
        if not self.ambiguous:
            return [st]
        if isinstance(st, ast.Return) and isinstance(st.value, ast.Name) and st.value.id in self.ambiguous:
            return self._returned(st, st.value.id)
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and n.id in self.ambiguous:
                amb = self.ambiguous[n.id]
                raise NotAffine(n, f"`{n.id}` after the loop at line {amb.line} that swaps it",
                                f"names {n.id}'s or {amb.other}'s buffer by whether that loop ran "
                                "an odd number of times; only `return` may use it (or give "
                                "the loop a constant trip count)")
        return [st]

    def _returned(self, st: ast.Return, name: str) -> list[ast.stmt]:
        """``return A`` where ``A`` is either buffer: a new array holding the right one."""
        amb, sym = self.ambiguous[name], self.symbols
        a, b = sym.arrays[name], sym.arrays[amb.other]
        if a.kind is ArrayKind.ARGUMENT or b.kind is ArrayKind.ARGUMENT or a.dtype != b.dtype \
                or a.shape != b.shape:
            raise NotAffine(st, f"`return {name}`", f"after the loop at line {amb.line}, {name} "
                            f"is {name}'s or {amb.other}'s buffer; polyopt returns one only when "
                            "both are allocated by the function with one shape and dtype")
        result = sym.facts.fresh(f"_{name}_result", sym.arrays)
        sym.arrays[result] = ArrayInfo(a.dtype, a.rank, ArrayKind.TEMPORARY, list(a.shape))
        iters = [sym.facts.fresh(f"_i{d}", sym.params) for d in range(a.rank)]

        def copy_of(src: str) -> ast.stmt:
            index: list[ast.expr] = [ast.Name(i, ast.Load()) for i in iters]
            sub = ast.Tuple(index, ast.Load()) if len(index) != 1 else index[0]
            out: ast.stmt = ast.Assign([ast.Subscript(ast.Name(result, ast.Load()), sub, ast.Store())],
                                       ast.Subscript(ast.Name(src, ast.Load()), copy.deepcopy(sub),
                                                     ast.Load()))
            for d in reversed(range(a.rank)):
                extent = ast.Subscript(ast.Attribute(ast.Name(src, ast.Load()), "shape", ast.Load()),
                                       ast.Constant(d), ast.Load())
                out = ast.For(ast.Name(iters[d], ast.Store()),
                              ast.Call(ast.Name("range", ast.Load()), [extent], []), [out], [])
            return out

        choose = ast.If(copy.deepcopy(amb.odd), [copy_of(amb.other)], [copy_of(name)])
        ret = ast.Return(ast.Name(result, ast.Load()))
        return [ast.fix_missing_locations(ast.copy_location(n, st)) for n in (choose, ret)]


def swapped_names(st: ast.stmt, arrays: Collection[str]) -> tuple[str, str] | None:
    """``("A", "B")`` for ``A, B = B, A`` on two arrays; None for another statement."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
        return None
    t, v = st.targets[0], st.value
    if not (isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts) == 2):
        return None
    names = [e.id if isinstance(e, ast.Name) else None for e in (*t.elts, *v.elts)]
    a, b, c, d = names
    if a is None or b is None or a == b or (c, d) != (b, a) or a not in arrays or b not in arrays:
        return None
    return a, b


def unrolled(loop: ast.For, a: str, b: str) -> ast.For:
    """``loop`` (over ``range`` with a constant step, its last statement the swap of ``a``
    and ``b``) unrolled by two, the second copy's ``a`` and ``b`` exchanged."""
    assert isinstance(loop.iter, ast.Call) and isinstance(loop.target, ast.Name)
    start, stop, step = _range_parts(loop.iter)
    body = loop.body[:-1] or [ast.copy_location(ast.Pass(), loop)]
    var = loop.target.id
    later = ast.BinOp(ast.Name(var, ast.Load()), ast.Add(), ast.Constant(step))
    second = [substituted(s, {a: b, b: a}, {var: later}) for s in body]
    for node in (n for s in second for n in ast.walk(s)):
        setattr(node, _SWAPPED, (a, b))
    guard = ast.Compare(later, [ast.Lt() if step > 0 else ast.Gt()], [copy.deepcopy(stop)])
    pair = ast.Call(ast.Name("range", ast.Load()), [start, stop, ast.Constant(2 * step)], [])
    out = ast.For(loop.target, pair, [*body, ast.If(guard, second, [])], [])
    return ast.fix_missing_locations(ast.copy_location(out, loop))


def in_swapped_copy(node: ast.AST) -> bool:
    """Whether ``node`` is in the second copy of a double-buffered loop's body."""
    return hasattr(node, _SWAPPED)


def as_run(node: ast.AST, location: SourceLocation) -> SourceLocation:
    """``location`` of a statement, its text with the names exchanged where ``node`` is
    in the second copy (reports show ``A[i] = B[i - 1]`` for the copy that writes ``A``)."""
    pair = getattr(node, _SWAPPED, None)
    if pair is None:
        return location
    a, b = pair
    other = {a: b, b: a}
    text = re.sub(rf"\b({re.escape(a)}|{re.escape(b)})\b", lambda m: other[m[0]], location.text)
    return replace(location, text=text)


def trip_count(loop: ast.For) -> tuple[ast.expr, ast.expr]:
    """How many times ``loop`` runs where it runs at all, and the test that it does."""
    assert isinstance(loop.iter, ast.Call)
    start, stop, step = _range_parts(loop.iter)
    lo, hi = (start, stop) if step > 0 else (stop, start)
    span = ast.BinOp(copy.deepcopy(hi), ast.Sub(), copy.deepcopy(lo))
    count = ast.BinOp(ast.BinOp(span, ast.Add(), ast.Constant(abs(step) - 1)), ast.FloorDiv(),
                      ast.Constant(abs(step)))
    runs = ast.Compare(copy.deepcopy(hi), [ast.Gt()], [copy.deepcopy(lo)])
    return (ast.fix_missing_locations(ast.copy_location(count, loop)),
            ast.fix_missing_locations(ast.copy_location(runs, loop)))


def _range_parts(call: ast.Call) -> tuple[ast.expr, ast.expr, int]:
    args = call.args
    start = args[0] if len(args) > 1 else ast.Constant(0)
    stop = args[1] if len(args) > 1 else args[0]
    step = args[2] if len(args) == 3 else ast.Constant(1)
    value = ast.literal_eval(step)  # the caller has checked: a literal (see has_literal_step)
    assert isinstance(value, int)
    return start, stop, value


def has_literal_step(loop: ast.For) -> bool:
    """Whether ``loop`` is over ``range`` with a literal step (or none)."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and 1 <= len(call.args) <= 3 and not call.keywords):
        return False
    if len(call.args) < 3:
        return True
    try:
        return isinstance(ast.literal_eval(call.args[2]), int)
    except ValueError:
        return False
