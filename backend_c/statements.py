"""Statement instances at the isl AST's leaves, their iterators bound first::

    {
      const int64_t i = c0;
      const int64_t j = (c1 + 1);
      C[i * nj + j] = (C[i * nj + j] * beta);  /* C[i, j] *= beta */
    }

Inside a loop whose accumulators live in locals (:mod:`polyopt.backend_c.accumulators`),
the statement's element is its local instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from polyopt.backend_c.code import Code
from polyopt.backend_c.dialect import Dialect

from polyopt.model.aff import Lin
from polyopt.model.expr import Binary, Cast, Expr, Load, Name, names_read, walk
from polyopt.model.scop import Scop, Statement


@dataclass(frozen=True)
class Replacement:
    """One statement's element held in locals while a loop runs."""

    statement: str
    needed: list[str]  # the iterators its element depends on
    locals: dict[tuple[str, ...], str]  # their values -> the local


@dataclass
class Usage:
    """What the statements printed in a stretch of code touch."""

    written: set[str] = field(default_factory=set)  # scalars assigned
    mentioned: set[str] = field(default_factory=set)  # scalars read or assigned
    raises: bool = False  # whether some text sets the error flag


class StatementWriter:
    """Prints statement instances in the walker's block form."""

    def __init__(self, code: Code, scop: Scop, dialect: Dialect) -> None:
        self.code = code
        self.scop = scop
        self.dialect = dialect
        self.replaced: dict[str, Replacement] = {}  # by statement
        self._barrier: dict[str, bool] = {}  # by statement: _reads_itself_twice
        self.usage = Usage()

    def replacing(self, stmt: Statement) -> bool:
        return stmt.name in self.replaced

    @contextmanager
    def tracking(self) -> Iterator[Usage]:
        """The usage of the statements printed while the block runs (also counted in
        the enclosing usage)."""
        body = self.dialect.body
        outer, raised = self.usage, body.raises
        self.usage, body.raises = Usage(), False
        inner = self.usage
        try:
            yield inner
        finally:
            inner.raises = body.raises
            outer.written |= inner.written
            outer.mentioned |= inner.mentioned
            self.usage, body.raises = outer, raised or inner.raises

    def write(self, stmt: Statement, values: list[str], lin_values: list[Lin | None],
              depth: int) -> None:
        """One statement instance, its iterators bound to ``values`` (``lin_values``:
        the same as Lin, while loads are hoisted)."""
        body = self.dialect.body
        emit = self.code.emit
        emit(depth, "{")
        binds = len(self.code.lines)
        for it, v in zip(stmt.iterators, values, strict=True):
            emit(depth + 1, self.dialect.bind(it, v))
        replaced = self.replaced.get(stmt.name)
        if replaced is not None:
            args = dict(zip(stmt.iterators, values, strict=True))
            target = replaced.locals[tuple(args[v] for v in replaced.needed)]
            body.substitute = {(stmt.target, stmt.indices): target}
            if body.hoisted is not None:
                body.env = args
                body.lin_env = {v: e for v, e in zip(stmt.iterators, lin_values, strict=True)
                                if e is not None}
        elif stmt.indices or stmt.target in self.scop.arrays:
            target = self.dialect.element(stmt.target, stmt.indices)
        else:
            target = stmt.target
            self.usage.written.add(target)
            self.usage.mentioned.add(target)
        self.usage.mentioned |= names_read(stmt.value)
        value = body.expr(stmt.value)
        body.substitute = {}
        body.env = {}
        body.lin_env = {}
        emit(depth + 1, f"{target} = {value};  /* {stmt.source} */"
             if "*/" not in stmt.source else f"{target} = {value};")
        if stmt.name not in self._barrier:  # once per statement, not per printed copy
            self._barrier[stmt.name] = _reads_itself_twice(self.scop, stmt)
        if self._barrier[stmt.name]:
            # gcc 12 vectorizes `b = b * b * c[i]` on ints as a product reduction, which
            # it is not (wrong results from -O3 with AVX2 for int32, AVX-512DQ for
            # int64); an empty asm that may change the value keeps the loop scalar, as
            # a recurrence that is no reduction must be anyway
            emit(depth + 1, f'__asm__("" : "+r"({target}));')
        if self.dialect.user_compiles:
            self._drop_unused_binds(binds, stmt.iterators)
        emit(depth, "}")

    def _drop_unused_binds(self, start: int, iterators: tuple[str, ...]) -> None:
        """Leave out the iterator bindings from ``start`` on that the statement's lines do
        not read (a register tile's copy reads its accumulator, not ``C[i][j]``): gcc's
        -Wall warns of each, and a -Werror build of polyopt opt's output would fail."""
        lines = self.code.lines
        after = re.sub(r"/\*.*?\*/", "", "\n".join(lines[start + len(iterators):]), flags=re.S)
        unused = {k for k, it in enumerate(iterators)
                  if not re.search(rf"\b{re.escape(it)}\b", after)}
        if unused:
            lines[start:start + len(iterators)] = [
                line for k, line in enumerate(lines[start:start + len(iterators)])
                if k not in unused]


def _reads_itself_twice(scop: Scop, stmt: Statement) -> bool:
    """``stmt`` updates an integer by a product that holds it twice as a factor (``b *
    b * c[i]``, ``(b * 3) * b``), or once beside a local computed from it (``t = b *
    c[i]; b = t * b``): what gcc 12 takes for a product reduction.  A sum or a max
    that reads it twice (``b + b * c``, ``b >= x ? b : x``) it vectorizes rightly."""
    if not scop.element_type(stmt.target).is_int:
        return False
    element = bool(stmt.indices) or stmt.target in scop.arrays

    def is_target(x: Expr) -> bool:
        return (isinstance(x, Load) and element and x.array == stmt.target
                and x.indices == stmt.indices) or (
            isinstance(x, Name) and not element and x.name == stmt.target)

    # the locals that hold a value computed from the target, through any chain
    carriers: set[str] = set()
    writers = [s for s in scop.statements
               if s.name != stmt.name and not s.indices and s.target not in scop.arrays]
    grown = True
    while grown:
        grown = False
        for s in writers:
            if s.target not in carriers and any(
                    is_target(x) or (isinstance(x, Name) and x.name in carriers)
                    for x in walk(s.value)):
                carriers.add(s.target)
                grown = True
    factors = [x for x in _product_factors(stmt.value)
               if is_target(x) or (isinstance(x, Name) and x.name in carriers)]
    return len(factors) > 1 and any(is_target(x) for x in factors)


def _product_factors(e: Expr) -> list[Expr]:
    """The operands of the multiplications in ``e`` that are not products themselves
    (through casts)."""
    out: list[Expr] = []
    for x in walk(e):
        if isinstance(x, Binary) and x.op == "*":
            for operand in (x.lhs, x.rhs):
                while isinstance(operand, Cast):
                    operand = operand.operand
                if not (isinstance(operand, Binary) and operand.op == "*"):
                    out.append(operand)
    return out
