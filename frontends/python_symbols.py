"""The symbol table of a Python function being converted: its arrays, scalar
arguments, size parameters and aliases, and the types of its local scalars.

Sizes become isl parameters.  An int argument ``n`` is one; an array argument's
extent is one too, named after the user's alias where there is one::

    def f(A, x):
        n, m = A.shape           # params (n, m, x_shape0): n = A.shape[0], m = A.shape[1]
        for i in range(len(x)):  # len(x) is x_shape0 (no name given)
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from polyopt.frontends.python_array_shapes import Key, ShapeEquations, Unified, resolve
from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_names import local_names
from polyopt.frontends.python_source import FunctionSource
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin
from polyopt.model.dtypes import WEAK_INT, DType, ValueType
from polyopt.model.scop import ArrayKind, ReturnValue


def is_name_permutation(st: ast.AST) -> bool:
    """``a, b = b, a``: names only, the targets a permutation of the values."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
        return False
    t, v = st.targets[0], st.value
    if not (isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple)):
        return False
    targets = [e.id for e in t.elts if isinstance(e, ast.Name)]
    values = [e.id for e in v.elts if isinstance(e, ast.Name)]
    return (len(targets) == len(t.elts) == len(set(targets)) and len(values) == len(v.elts)
            and sorted(targets) == sorted(values))


@dataclass(frozen=True)
class FunctionFacts:
    """What the function's text says before any statement is converted."""

    src: FunctionSource
    env: Environment
    used_names: frozenset[str]  # every name the body reads or writes
    loop_vars: frozenset[str]  # names some `for` loop assigns
    assign_count: Mapping[str, int]  # how often each name is assigned (loops included)
    loop_count: Mapping[str, int]  # how many `for` loops assign each name
    # how often each name is a target of `a, b = b, a` (an array swap rebinds no array)
    permuted: Mapping[str, int]
    # how often each name is the target of an augmented assignment (`t += a`: an array's
    # is updated in place, not rebound)
    updated: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, src: FunctionSource, env: Environment) -> FunctionFacts:
        fdef = src.tree
        assigned: dict[str, int] = {}
        permuted: dict[str, int] = {}
        loops: dict[str, int] = {}
        updated: dict[str, int] = {}
        for n in ast.walk(fdef):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                updated[n.target.id] = updated.get(n.target.id, 0) + 1
            targets: list[ast.AST] = []
            if isinstance(n, ast.Assign):
                targets = list(n.targets)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)):
                targets = [n.target]
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name):
                loops[n.target.id] = loops.get(n.target.id, 0) + 1
            if is_name_permutation(n):
                for leaf in ast.walk(n.targets[0]):  # type: ignore[attr-defined]
                    if isinstance(leaf, ast.Name):
                        permuted[leaf.id] = permuted.get(leaf.id, 0) + 1
            for t in targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                        assigned[leaf.id] = assigned.get(leaf.id, 0) + 1
        used = frozenset(n.id for n in ast.walk(fdef) if isinstance(n, ast.Name))
        return cls(src, env, used, frozenset(loops), assigned, loops, permuted, updated)

    def rebindings(self, name: str) -> int:
        """How often ``name`` is bound to a new value: its assignments less its swaps
        (``A, B = B, A`` rebinds no array, it exchanges two) and its augmented
        assignments (``t += a`` updates an array in place).  A new local array is bound
        once, whatever makes it (``np.zeros(n)``, ``x.copy()``, ``x * 2.0``)."""
        return (self.assign_count.get(name, 0) - self.permuted.get(name, 0)
                - self.updated.get(name, 0))

    @cached_property
    def local_names(self) -> frozenset[str]:
        """The function's arguments and assigned names (asked once per inlined call)."""
        return frozenset(local_names(self.src.tree))

    def fresh(self, name: str, taken: Collection[str] = ()) -> str:
        """``name``, or with ``_`` in front until the function uses no such name."""
        while name in self.used_names or name in taken:
            name = "_" + name
        return name


@dataclass
class ArrayInfo:
    """An array as the function declares it; ``kind`` becomes RETURNED at ``return A``."""

    dtype: DType
    rank: int
    kind: ArrayKind
    shape: list[Lin | None] = field(default_factory=list)  # known for allocated arrays
    origin: str = ""  # what polyopt made it for; "" for the function's own arrays
    # the value of an array expression (`t = x[5:3] * 2`): a negative extent is an empty
    # array, as NumPy's; np.empty(-1) raises instead (Array.clamped)
    clamped: bool = False


#: the type a local of :meth:`Symbols.held_wide` is stored in
WIDE_LOCAL = WEAK_INT


class Symbols:
    """Names the function has declared so far; ``prior_types`` are the local scalar types
    an earlier pass settled on (a scalar's type is the join of all its assignments)."""

    def __init__(self, facts: FunctionFacts, prior_types: Mapping[str, ValueType],
                 unified: Mapping[Key, Unified] | None = None,
                 prior_python_ints: Collection[str] = ()) -> None:
        self.facts = facts
        # array dimensions an earlier pass found equal to others' (python_array_shapes)
        self.unified: Mapping[Key, Unified] = unified or {}
        self.shapes = ShapeEquations(facts.src)
        self.prior_types = prior_types
        self.local_types: dict[str, ValueType] = {}
        # locals assigned a Python int somewhere (and those an earlier pass found)
        self.prior_python_ints = frozenset(prior_python_ints)
        self.python_ints: set[str] = set()
        # each assignment of a local: its target and the type of the value assigned
        self.assigned: list[tuple[ast.Name, ValueType]] = []
        self.arrays: dict[str, ArrayInfo] = {}
        self.scalar_args: dict[str, ValueType] = {}
        self.arg_order: tuple[str, ...] = ()
        self.params: list[str] = []
        self.param_sources: dict[str, tuple[str, int]] = {}  # size parameter: (array, dim)
        self.aliases: dict[str, Lin] = {}  # `k = n - 1`: k is n - 1 wherever it is used
        self.dim_params: dict[tuple[str, int], str] = {}
        self.returns: ReturnValue | None = None

    def is_local(self, name: str) -> bool:
        return name in self.local_types or name in self.prior_types

    def local_type(self, name: str) -> ValueType:
        return self.prior_types.get(name) or self.local_types[name]

    def held_wide(self, name: str) -> bool:
        """Whether the local ``name`` is a narrow NumPy int (its one static type) that is
        also assigned Python ints: ``s = u8[0]`` then ``s = -1``.  CPython rebinds ``s``
        to the int -1, and raises only where -1 meets a uint8 (``s + u8[i]``), so the
        local holds int64 values (:data:`WIDE_LOCAL`) and each read converts the value
        to the static type, checked as NumPy converts a Python int."""
        t = self.local_type(name)
        return (name in self.prior_python_ints and not t.weak and t.dtype.is_int
                and t.dtype not in (DType.INT64, DType.UINT64))

    def add_param(self, name: str) -> Lin:
        if name not in self.params:
            self.params.append(name)
        return Lin.var(name)

    def shape_param(self, node: ast.AST, array: str, d: int) -> Lin:
        """The extent of ``array``'s dimension ``d`` (negative counts from the end)."""
        return self.extent(array, self.dimension(node, array, d))

    def dimension(self, node: ast.AST, array: str, d: int) -> int:
        """``array.shape[d]``'s dimension, counted from the front; refused where the array
        has none such (CPython's IndexError)."""
        rank = self.arrays[array].rank
        if not -rank <= d < rank:
            raise NotAffine(node, f"`{array}.shape[{d}]`", f"{array} has only {rank} dimension(s)")
        return d % rank

    def extent(self, array: str, d: int) -> Lin:
        """An allocated array's known extent, or an argument's size parameter (made on
        first use)."""
        info = self.arrays[array]
        if info.kind is not ArrayKind.ARGUMENT:
            known = info.shape[d]
            assert known is not None
            return known
        key = (array, d)
        if key in self.unified:
            return resolve(self.unified[key].value, self.extent)
        if key not in self.dim_params:
            name = f"{array}_shape{d}"
            while name in self.facts.used_names:
                name += "_"
            self._name_extent(key, name)
        return Lin.var(self.dim_params[key])

    def bind_dim(self, node: ast.AST, alias: str, array: str, d: int) -> None:
        """``alias = array.shape[d]``: the parameter takes the user's name when it can."""
        info = self.arrays[array]
        if info.kind is ArrayKind.ARGUMENT and (array, d) not in self.dim_params and \
                (array, d) not in self.unified and (
            self.facts.assign_count.get(alias, 0) == 1 and alias not in self.params
        ):
            self._name_extent((array, d), alias)
            return
        self.aliases[alias] = self.shape_param(node, array, d)

    def _name_extent(self, key: tuple[str, int], name: str) -> None:
        self.dim_params[key] = name
        self.param_sources[name] = key
        self.add_param(name)
