"""The polyhedral model of one loop nest (a SCoP): immutable, built by a frontend.

A :class:`Scop` holds the arrays and scalars, the statements (each with its
iteration domain, accesses and typed body), the original schedule as a
:class:`~polyopt.model.schedule_tree.Node`, and the source locations that reports
and errors speak of.  isl objects inside are never compared with ``==``
(semantic and costly): statements and loops are keyed by name.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

import islpy as isl

from polyopt.model.aff import Lin
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import SourceLocation
from polyopt.model.expr import Expr
from polyopt.model.schedule_tree import LoopDim, Node
from polyopt.model.size_checks import SizeCheck


class ArrayKind(enum.Enum):
    ARGUMENT = "argument"
    TEMPORARY = "temporary"  # allocated in the function, freed at its end
    RETURNED = "returned"  # allocated in the function and returned


@dataclass(frozen=True)
class Array:
    """An array: an argument, or a temporary the function allocates."""

    name: str
    dtype: DType
    shape: tuple[Lin, ...]  # affine in the parameters
    kind: ArrayKind = ArrayKind.ARGUMENT
    # an extent below 0 allocates 0 elements: a temporary a transformation sized by loop
    # bounds (a panel of a loop that does not run); a user's np.empty(-1) raises instead
    clamped: bool = False
    origin: str = ""  # what polyopt made it for (messages say so); "" for the user's own

    @property
    def rank(self) -> int:
        return len(self.shape)


class ScalarKind(enum.Enum):
    ARGUMENT = "argument"  # passed by value, never written
    LOCAL = "local"  # assigned inside the function


@dataclass(frozen=True)
class Scalar:
    name: str
    type: ValueType
    kind: ScalarKind


@dataclass(frozen=True, eq=False)
class Access:
    """One read or write of an array element or a local scalar by a statement.

    ``relation`` maps statement instances to the element, restricted to the domain.
    """

    tag: str  # unique in the scop: "S0.w", "S0.r1"
    statement: str
    target: str  # array or local scalar name
    indices: tuple[Lin, ...]  # () for scalars
    is_write: bool
    relation: isl.Map
    # where a copy polyopt made reads for a statement (a packed panel): that statement's
    # own read, which messages name instead of the copy's indices
    copy_of: tuple[str, tuple[Lin, ...]] | None = None


@dataclass(frozen=True)
class Loop:
    """A loop of the source program, as reports and errors name it."""

    id: str  # unique: "L0", "L1", ...
    iterator: str
    location: SourceLocation
    depth: int
    parent: str | None
    #: written ``for ... in prange(...)``: the user asks for it to run in parallel
    prange: bool = False
    #: how far the iterator moves per iteration (``range(2, n, 2)``: 2; ``i--``: -1), not
    #: the stride of a statement's instances, which a guard ``if i % 3 == 0`` also makes
    step: int = 1
    #: in the second copy of a double-buffered loop's body, its arrays exchanged
    #: (frontends/python_swap.py): named ``i'`` beside the first copy's ``i``
    swapped: bool = False

    @property
    def name(self) -> str:
        return f"{self.iterator}'" if self.swapped else self.iterator

    def label(self, ambiguous: bool) -> str:
        return f"{self.name}@{self.location.line}" if ambiguous else self.name


@dataclass(frozen=True, eq=False)
class Statement:
    """``target[indices] = value`` executed once for every point of ``domain``.

    Augmented assignments are desugared (``C[i,j] += x`` has value ``C[i,j] + x``)
    and remember their operator in ``update_op``.
    """

    name: str
    iterators: tuple[str, ...]
    domain: isl.Set
    target: str
    indices: tuple[Lin, ...]
    value: Expr
    update_op: str | None
    loops: tuple[str, ...]  # ids of enclosing source loops, outermost first
    location: SourceLocation
    write: Access
    reads: tuple[Access, ...]
    read_at: tuple[tuple[str, SourceLocation], ...] = ()  # where a local scalar is first read

    @property
    def accesses(self) -> tuple[Access, ...]:
        return (self.write, *self.reads)

    @property
    def source(self) -> str:
        return self.location.text.strip()

    def read_location(self, name: str) -> SourceLocation:
        """Where this statement reads local scalar ``name`` (the statement if unknown)."""
        return dict(self.read_at).get(name, self.location)


@dataclass(frozen=True)
class ReturnValue:
    """What the function returns: a local scalar, a scalar argument or an allocated array."""

    name: str
    is_array: bool


@dataclass(frozen=True, eq=False)
class Requirement:
    """What a call checks of its sizes besides the accesses: ``bad_params``, the sizes
    for which ``text`` happens, raised as ``error``.  A slice bound that is negative
    where it is evaluated (NumPy counts it from the end, polyopt's loops take it as
    written): an IndexError; a returned local that no statement assigns for these
    sizes: an UnboundLocalError, as CPython raises."""

    bad_params: isl.Set
    text: str
    error: str = "IndexError"

    @property
    def message(self) -> str:
        """The check's message: the text, after ``error: `` unless it is an IndexError
        (the call raises that error: :func:`polyopt.model.errors.check_error`)."""
        return self.text if self.error == "IndexError" else f"{self.error}: {self.text}"


@dataclass(frozen=True, eq=False)
class Scop:
    """A static control part: the whole loop nest of one function or C region."""

    name: str
    filename: str
    params: tuple[str, ...]
    context: isl.Set  # what is assumed of the parameters (sizes are >= 0)
    arrays: dict[str, Array]
    scalars: dict[str, Scalar]
    statements: tuple[Statement, ...]
    loops: dict[str, Loop]
    schedule: Node  # the original execution order
    returns: ReturnValue | None = None
    arg_order: tuple[str, ...] = ()  # the function's arguments, in order
    param_sources: dict[str, tuple[str, int]] = field(default_factory=dict)  # param -> (array, dim)
    # equalities of sizes the call checks first (NumPy's shape errors), and the array
    # dimensions they read that no parameter stands for: name -> (array, dim)
    size_checks: tuple[SizeCheck, ...] = ()
    requirements: tuple[Requirement, ...] = ()  # checked by the call, as the accesses are
    check_sources: dict[str, tuple[str, int]] = field(default_factory=dict)

    def statement(self, name: str) -> Statement:
        return self._by_name[name]

    @cached_property
    def _by_name(self) -> dict[str, Statement]:
        return {s.name: s for s in self.statements}

    @cached_property
    def domain(self) -> isl.UnionSet:
        out = isl.UnionSet.empty(self.context.get_space())
        for s in self.statements:
            out = out.union(isl.UnionSet.from_set(s.domain))
        return out

    @cached_property
    def local_scalars(self) -> frozenset[str]:
        return frozenset(n for n, s in self.scalars.items() if s.kind is ScalarKind.LOCAL)

    def loop_label(self, loop_id: str) -> str:
        """A loop's name in source terms: its iterator, with ``@line`` when the name
        repeats; its id when that repeats too (the loops NumPy code ``y[:] = B @ x``
        becomes, on one line, share their iterators: a name must pick one loop)."""
        if loop_id not in self.loops:  # a loop a transformation made
            return loop_id
        loop = self.loops[loop_id]
        same = [o for o in self.loops.values() if o.name == loop.name]
        if sum(1 for o in same if o.location.line == loop.location.line) > 1:
            return loop_id
        return loop.label(ambiguous=len(same) > 1)

    def describe_statement(self, name: str) -> str:
        s = self.statement(name)
        return f"{name} (line {s.location.line}: {s.source})"

    def element_type(self, name: str) -> DType:
        if name in self.arrays:
            return self.arrays[name].dtype
        return self.scalars[name].type.dtype


def loop_label(scop: Scop, dim: LoopDim) -> str:
    """A loop's name in reports and schedule steps."""
    if dim.label:
        return dim.label
    if dim.loop_id in scop.loops:
        return scop.loop_label(dim.loop_id)
    return dim.name
