"""The generated programs as data: expressions, statements and the function around them.

Frozen dataclasses, so programs hash, compare and can be rewritten by the shrinker with
``dataclasses.replace``.  Every node means what the same Python code means under CPython;
:mod:`progen.render_py` and :mod:`progen.render_c` turn a :class:`Program` into source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- expressions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Num:
    value: int | float


@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class Index:
    array: str
    idx: tuple[Expr, ...]


@dataclass(frozen=True)
class Bin:
    op: str  # + - * / // % ** & | ^
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Neg:
    operand: Expr


@dataclass(frozen=True)
class Call:
    fn: str  # sqrt exp log pow fabs sin cos tanh (math./np.), abs min max int float
    args: tuple[Expr, ...]
    module: str = ""  # "math", "np" or "" for builtins


@dataclass(frozen=True)
class Cmp:
    op: str  # < <= > >= == !=
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp:
    op: str  # and / or
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    operand: Expr


@dataclass(frozen=True)
class IfExp:
    cond: Expr
    then: Expr
    other: Expr


Expr = Num | Name | Index | Bin | Neg | Call | Cmp | BoolOp | Not | IfExp

# --- statements ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    target: Name | Index
    op: str  # "" for `=`, else the operator of the augmented assignment (+ - * / // %)
    value: Expr


@dataclass(frozen=True)
class For:
    var: str
    start: Expr
    stop: Expr
    step: int
    body: tuple[Stmt, ...]
    parallel: bool = False  # written `prange` in Python (legal by construction: progen.parallel)
    sliced: bool = False  # written as one NumPy slice statement in Python (progen.slices)


@dataclass(frozen=True)
class If:
    cond: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()  # a single If here renders as `elif`


Stmt = Assign | For | If

# --- the function --------------------------------------------------------------------------


@dataclass(frozen=True)
class ArrayArg:
    name: str
    dtype: str  # float64 float32 int64 int32
    dims: tuple[str, ...]  # size symbols


@dataclass(frozen=True)
class ScalarArg:
    name: str
    kind: str  # "int" or "float"
    value: int | float


@dataclass(frozen=True)
class SizeDef:
    name: str
    array: str
    dim: int
    via_len: bool = False  # `len(x)` instead of `x.shape[0]`


@dataclass(frozen=True)
class Alloc:
    name: str
    dtype: str
    dims: tuple[str, ...]
    fill: str  # empty zeros ones


@dataclass(frozen=True)
class Program:
    arrays: tuple[ArrayArg, ...]
    scalars: tuple[ScalarArg, ...]
    sizes: dict[str, int] = field(hash=False, compare=True)  # symbol -> the value it is run with
    size_defs: tuple[SizeDef, ...] = ()
    allocs: tuple[Alloc, ...] = ()
    body: tuple[Stmt, ...] = ()  # top-level statements: scalar initializations and nests
    ret: Expr | None = None
    seed: int = 0  # the input data's seed
    helpers: bool = False  # render_py calls math functions through module-level helpers

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arrays) + tuple(s.name for s in self.scalars)

    def array_dtype(self, name: str) -> str:
        for a in (*self.arrays, *self.allocs):
            if a.name == name:
                return a.dtype
        raise KeyError(name)

    def array_dims(self, name: str) -> tuple[str, ...]:
        for a in (*self.arrays, *self.allocs):
            if a.name == name:
                return a.dims
        raise KeyError(name)


def is_float_dtype(dtype: str) -> bool:
    return dtype.startswith("float")


#: the math functions programs call: one-argument ones with NumPy forms of the same name
MATH1 = ("sin", "cos", "tanh", "fabs", "sqrt", "exp", "log")


@dataclass(frozen=True)
class LibmFunction:
    """One of the rest of C99's math library that Python's ``math`` mirrors: how many
    arguments, how its argument is kept in its domain, and whether NumPy has it under the
    same name (``np.arctan`` is not ``atan``)."""

    arity: int
    domain: str = ""  # "" | "bounded" (tanh) | "positive" (abs) | "above1" (1 + abs)
    numpy: bool = False


LIBM = {
    "floor": LibmFunction(1, numpy=True), "ceil": LibmFunction(1, numpy=True),
    "trunc": LibmFunction(1, numpy=True), "atan": LibmFunction(1),
    "sinh": LibmFunction(1, "bounded", True), "cosh": LibmFunction(1, "bounded", True),
    "asinh": LibmFunction(1), "erf": LibmFunction(1), "erfc": LibmFunction(1),
    "expm1": LibmFunction(1, "bounded", True), "log1p": LibmFunction(1, "positive", True),
    "log2": LibmFunction(1, "above1", True), "log10": LibmFunction(1, "above1", True),
    "atan2": LibmFunction(2), "hypot": LibmFunction(2, numpy=True),
    "copysign": LibmFunction(2, numpy=True), "fmod": LibmFunction(2, numpy=True),
}
