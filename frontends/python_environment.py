"""What a function's module and closure give the names it does not assign: the
``math`` and ``numpy`` modules, and int, float and NumPy scalar constants, which are
compiled in as literals (``N = 8`` at module level makes ``range(N)`` a loop of 8)."""

from __future__ import annotations

import ast
import builtins
import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from polyopt.frontends.python_source import FunctionSource
from polyopt.frontends.python_types import dtype_of
from polyopt.frontends.refusal import NotAffine

from polyopt.model.aff import Lin
from polyopt.model.dtypes import WEAK_FLOAT, WEAK_INT, DType, ValueType
from polyopt.model.errors import UnsupportedError
from polyopt.model.expr import Expr, Literal
from polyopt.model.prange import prange

#: bool constants are refused rather than read as Python's int 0/1: `x * FLAG` reads as a
#: mistake more often than as arithmetic, and a bool global changed from an int must not
#: silently keep compiling as a number
_BOOL_GLOBAL = "bool globals are not supported (use an int 0 or 1, or pass it as an argument)"

#: Builtins the frontend compiles itself; a module that redefines one would get the
#: builtin's meaning instead of its own, so such a redefinition is refused.
_INTERPRETED_BUILTINS = frozenset({"range", "len", "abs", "min", "max", "int", "float"})


@dataclass(frozen=True)
class Environment:
    """The function's globals, with its closure's cells on top."""

    values: Mapping[str, object]

    @classmethod
    def of(cls, fn: object) -> Environment:
        env = dict(getattr(fn, "__globals__", {}))
        code = getattr(fn, "__code__", None)
        closure = getattr(fn, "__closure__", None)
        if code is not None and closure:
            for name, cell in zip(code.co_freevars, closure, strict=True):
                try:
                    env[name] = cell.cell_contents
                except ValueError:  # a cell not filled yet
                    pass
        return cls(env)

    def check_builtins(self, src: FunctionSource) -> None:
        """Refuse the function when its module or closure redefines a builtin it uses
        that polyopt interprets itself."""
        shadowed = [n for n in ast.walk(src.tree)
                    if isinstance(n, ast.Name) and n.id in _INTERPRETED_BUILTINS and n.id in self.values]
        if shadowed:
            raise UnsupportedError([src.problem(
                n, f"`{n.id}`", f"redefines the builtin {n.id}() in the function's module or closure; "
                f"polyopt compiles only the builtin (rename the redefinition)") for n in shadowed])

    def module_alias(self, name: str) -> str | None:
        """"math" or "np" when ``name`` is bound to that module, else None."""
        obj = self.values.get(name)
        if obj is math:
            return "math"
        if obj is np:
            return "np"
        return None

    def imported(self, name: str) -> tuple[str, str] | None:
        """(function, "math" or "np") for a name bound to a function or scalar type of
        those modules (``from math import sqrt``, ``from numpy import float32 as f32``);
        None for another name."""
        obj = self.values.get(name)
        fn = getattr(obj, "__name__", None)
        if obj is None or not isinstance(fn, str):
            return None
        for module, alias in ((math, "math"), (np, "np")):
            if getattr(module, fn, None) is obj:
                return fn, alias
        return None

    def is_prange(self, func: ast.expr) -> bool:
        """Whether ``func`` is ``polyopt.prange`` or Numba's ``prange``, as a bare name or a
        module attribute.  Numba's is known by its module's name: polyopt never imports
        numba, and a function written for it compiles alike without it."""
        if isinstance(func, ast.Name):
            return _is_prange(self.values.get(func.id))
        if isinstance(func, ast.Attribute) and func.attr == "prange" and isinstance(func.value, ast.Name):
            module = self.values.get(func.value.id)
            return getattr(module, "__name__", None) in ("numba", "polyopt") or _is_prange(
                getattr(module, "prange", None))
        return False

    def binding(self, name: str) -> str | None:
        """What ``name`` is bound to, for a message: "the function cmath.sqrt", "a global
        float"; None when the function's module, closure and builtins do not bind it."""
        if name in self.values:
            obj = self.values[name]
        elif hasattr(builtins, name):
            obj = getattr(builtins, name)
        else:
            return None
        qualname = getattr(obj, "__qualname__", None)
        if callable(obj) and isinstance(qualname, str):
            module = getattr(obj, "__module__", None) or "?"
            return f"the {'type' if isinstance(obj, type) else 'function'} {module}.{qualname}"
        return f"a {'global' if name in self.values else 'builtin'} {type(obj).__name__}"

    def is_array(self, name: str) -> bool:
        return isinstance(self.values.get(name), np.ndarray)

    def int_constant(self, node: ast.Name) -> Lin | None:
        """A global int in affine position (bounds, subscripts); None for another name."""
        g = self.values.get(node.id)
        if isinstance(g, bool):
            raise NotAffine(node, f"`{node.id}`", _BOOL_GLOBAL)
        if isinstance(g, (int, np.integer)):  # range(np.int32(3)) is fine in Python too
            return Lin.constant(_int64(node, int(g)))
        return None

    def int_dtype(self, name: str) -> DType | None:
        """The type of a global NumPy integer; None for another name."""
        g = self.values.get(name)
        return dtype_of(g.dtype) if isinstance(g, np.integer) else None

    def unusable(self, node: ast.Name, affine: bool) -> str:
        """Why the global (or closure variable) ``node`` names cannot be used here: the
        reason for a name that is neither a local, an argument nor a number."""
        if node.id not in self.values:
            return "unknown name"
        g = self.values[node.id]
        if affine and isinstance(g, (float, np.floating)):
            return (f"is a global float ({g!r}); bounds, subscripts and `if` tests must be "
                    "integers")
        return (f"is a global {type(g).__name__}; a polyopt function can read global ints "
                "and floats (and NumPy scalars) only: pass other values as arguments")

    def value_constant(self, node: ast.Name) -> Expr | None:
        """A global number in value position as a literal; None for another name."""
        g = self.values.get(node.id)
        if isinstance(g, np.generic):
            dtype = dtype_of(g.dtype)
            if dtype is not None:  # a NumPy scalar is strongly typed (NEP 50), even np.float64
                return Literal(g.item(), ValueType(dtype))
        if isinstance(g, (bool, np.bool_)):
            raise NotAffine(node, f"`{node.id}`", _BOOL_GLOBAL)
        if isinstance(g, int):
            return Literal(_int64(node, g), WEAK_INT)
        if isinstance(g, float):
            return Literal(g, WEAK_FLOAT)
        return None


def _is_prange(obj: object) -> bool:
    if obj is prange:
        return True
    module = getattr(obj, "__module__", None)
    return (getattr(obj, "__name__", None) == "prange" and isinstance(module, str)
            and module.split(".")[0] == "numba")


def _int64(node: ast.Name, value: int) -> int:
    """A global int constant, refused when it does not fit the int64 the C code uses."""
    if not -(2**63) <= value < 2**63:
        raise NotAffine(node, f"`{node.id}`", f"global int {value} does not fit in 64 bits")
    return value


def helper_sources(fn: object) -> str:
    """The source of every helper ``fn`` calls, directly or not (part of the disk cache's
    key: editing a helper changes the code of its callers)."""
    seen: dict[int, str] = {}
    todo = [getattr(fn, "py_func", fn)]
    while todo:
        f = todo.pop()
        if id(f) in seen or not inspect.isfunction(f):
            continue
        try:
            seen[id(f)] = inspect.getsource(f)
        except (OSError, TypeError):
            seen[id(f)] = ""
            continue
        env = Environment.of(f)
        for name in f.__code__.co_names:
            g = env.values.get(name)
            if inspect.isfunction(getattr(g, "py_func", g)):
                todo.append(getattr(g, "py_func", g))
    first = id(getattr(fn, "py_func", fn))
    return "\0".join(text for key, text in seen.items() if key != first)
