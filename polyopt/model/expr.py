"""The typed expression tree of statement bodies.

Every node carries its :class:`~polyopt.model.dtypes.ValueType`, computed by the
frontend with NumPy's promotion rules, so the backend only prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from polyopt.model.aff import TRUE, Formula, Lin, conj
from polyopt.model.dtypes import ValueType


@dataclass(frozen=True)
class Literal:
    value: int | float
    type: ValueType


@dataclass(frozen=True)
class Name:
    """A loop iterator, a parameter, a scalar argument or a local scalar.

    ``guard``, as :attr:`Load.guard`: where a local scalar is read at all (``acc if i > 1
    else 0`` reads ``acc`` only where ``i > 1``, which is all a reduction computed under
    that test assigns it)."""

    name: str
    type: ValueType
    guard: Formula = TRUE


@dataclass(frozen=True)
class Load:
    """An array element read, ``A[indices]``, indices affine in iterators and parameters.

    ``guard`` is where the read happens at all: a read in a branch of a conditional
    expression on an affine test (``x[i - 1] if i > 0 else 0.0``) only happens where
    the test selects that branch, which the access relation and the bounds check
    must know (``x[-1]`` is never read)."""

    array: str
    indices: tuple[Lin, ...]
    type: ValueType
    guard: Formula = TRUE


@dataclass(frozen=True)
class Unary:
    op: str  # "-", "not"
    operand: Expr
    type: ValueType


@dataclass(frozen=True)
class Binary:
    """``lhs op rhs``: arithmetic (``+ - * / // % **``), comparison or ``and``/``or``.

    ``//`` and ``%`` have Python's floor semantics.  The C frontend uses ``c/`` and
    ``c%`` for C's integer division and remainder, which truncate toward zero.
    """

    op: str
    lhs: Expr
    rhs: Expr
    type: ValueType


@dataclass(frozen=True)
class Call:
    """A math function (``sqrt exp log pow fabs sin cos tanh abs min max``)."""

    fn: str
    args: tuple[Expr, ...]
    type: ValueType


@dataclass(frozen=True)
class Select:
    """``then if cond else otherwise``."""

    cond: Expr
    then: Expr
    otherwise: Expr
    type: ValueType


@dataclass(frozen=True)
class Cast:
    operand: Expr
    type: ValueType
    # NumPy's casting="unsafe" (np.full's fill): a NumPy int wraps where an element
    # store (`x8[i] = k`) raises OverflowError
    unsafe: bool = False


Expr = Literal | Name | Load | Unary | Binary | Call | Select | Cast

COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Unary, Cast)):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.lhs, e.rhs)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Select):
        return (e.cond, e.then, e.otherwise)
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of ``e``, parents before children (an explicit stack: a sum of a
    thousand terms is a tree that deep)."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def loads(e: Expr) -> list[Load]:
    return [n for n in walk(e) if isinstance(n, Load)]


def names_read(e: Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, Name)}


def map_leaves(e: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``e`` rebuilt with ``fn`` applied to every leaf (literal, name, array read)."""
    return map_nodes(e, lambda x: x if children(x) else fn(x))


def map_nodes(e: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``e`` rebuilt bottom-up, ``fn`` applied to every node once its children are."""
    done: dict[int, Expr] = {}
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:  # children before parents, without recursion (see walk)
        node, ready = stack.pop()
        kids = children(node)
        if not kids:
            done[id(node)] = fn(node)
        elif ready:
            new = [done[id(c)] for c in kids]
            if isinstance(node, (Unary, Cast)):
                done[id(node)] = fn(replace(node, operand=new[0]))
            elif isinstance(node, Binary):
                done[id(node)] = fn(replace(node, lhs=new[0], rhs=new[1]))
            elif isinstance(node, Call):
                done[id(node)] = fn(replace(node, args=tuple(new)))
            else:
                assert isinstance(node, Select)
                done[id(node)] = fn(replace(node, cond=new[0], then=new[1], otherwise=new[2]))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(kids))
    return done[id(e)]


def guarded(e: Expr, guard: Formula) -> Expr:
    """``e`` with every array and scalar read in it restricted to where ``guard`` holds."""
    return map_leaves(e, lambda x: replace(x, guard=conj(guard, x.guard))
                      if isinstance(x, (Load, Name)) else x)
