"""Calls to helper functions: module-level functions and other ``@polyopt.jit`` kernels
(their ``py_func``), inlined at the call.

A helper whose body is one ``return`` of an expression is inlined where it is called,
its parameters replaced by the arguments (which have no side effects, so evaluating an
argument where the parameter is read is evaluating it once)::

    def sq(x):                     y[i] = sq(A[i]) + 1.0
        return x * x        ->     y[i] = A[i] * A[i] + 1.0

A helper called as a statement has its statements inlined: an array parameter becomes
the array passed; a scalar one the argument itself when that is a name, a constant or a
size the helper cannot change (``n``, ``x.shape[0]``: a loop bound stays affine), else a
fresh variable assigned the argument first (evaluated once, at the call); its own
variables get fresh names::

    def axpy(a, x, y, n):          _axpy_a = A[0, 0]
        for i in range(n):             for _axpy_i in range(x.shape[0]):
            y[i] += a * x[i]               y[_axpy_i] += _axpy_a * x[_axpy_i]
    axpy(A[0, 0], x, y, x.shape[0])  ->

Every node inlined takes the call's position: a problem in a helper is reported at the
call, naming the helper and its line.  Recursion, direct or not, is refused when the
helper is found (:func:`helper_of`), so inlining always ends.
"""

from __future__ import annotations

import ast
import copy
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np
from polyopt.frontends.python_array_views import view_base
from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_names import local_names
from polyopt.frontends.python_source import FunctionSource, function_source
from polyopt.frontends.python_symbols import ArrayInfo, FunctionFacts
from polyopt.frontends.refusal import NotAffine

from polyopt.model.errors import UnsupportedError
from polyopt.model.signature import ArrayType, Declared

_N = TypeVar("_N", bound=ast.AST)


@dataclass(frozen=True)
class Helper:
    """A function the converted function calls, and its source."""

    name: str
    src: FunctionSource
    env: Environment
    params: tuple[str, ...]
    declared: tuple[Declared, ...] = ()  # a kernel's declared signatures (they still hold)


def helper_of(obj: object, call: ast.Call) -> Helper | None:
    """The helper ``obj`` is (a ``@polyopt.jit`` kernel: its Python function); None when
    it is no Python function."""
    fn = getattr(obj, "py_func", obj)
    if not inspect.isfunction(fn):
        return None
    name = fn.__name__
    try:
        src = function_source(fn)
    except UnsupportedError as exc:
        raise NotAffine(call, f"call to {name}()", f"its source is not available ({exc.msg})") from None
    a = src.tree.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise NotAffine(call, f"call to {name}()", "a helper takes plain positional parameters "
                        "only (no defaults, *args, **kwargs or keyword-only ones)")
    if call.keywords or len(call.args) != len(a.args):
        raise NotAffine(call, f"call to {name}()", f"pass its {len(a.args)} parameter(s) "
                        "positionally")
    cycle = _cycle(fn)
    if cycle:
        raise NotAffine(call, f"call to {name}()", f"is recursive ({' -> '.join(cycle)}); "
                        "polyopt inlines helpers, so a helper cannot call itself")
    declared = tuple(getattr(obj, "declared", None) or ()) if obj is not fn else ()
    return Helper(name, src, Environment.of(fn), tuple(p.arg for p in a.args), declared)


def _called(fn: object) -> list[object]:
    """The helpers ``fn``'s body calls by name (its module's functions and kernels)."""
    try:
        tree = function_source(fn).tree
    except UnsupportedError:
        return []
    env = Environment.of(fn)
    out: list[object] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            g = env.values.get(n.func.id)
            g = getattr(g, "py_func", g)
            if inspect.isfunction(g):
                out.append(g)
    return out


def _cycle(fn: object) -> list[str]:
    """The names along a chain of calls from ``fn`` back to it; empty when there is none."""
    stack: list[tuple[object, list[str]]] = [(fn, [getattr(fn, "__name__", "?")])]
    seen: set[int] = set()
    while stack:
        f, path = stack.pop()
        for g in _called(f):
            name = getattr(g, "__name__", "?")
            if g is fn:
                return [*path, name]
            if id(g) not in seen:
                seen.add(id(g))
                stack.append((g, [*path, name]))
    return []


def inline_expression(helper: Helper, call: ast.Call, caller: FunctionFacts,
                      arrays: Mapping[str, ArrayInfo]) -> ast.expr:
    """``helper(*call.args)`` as the expression it returns."""
    check_declared(helper, call, caller, arrays)
    body = _body(helper)
    if not (len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None):
        raise NotAffine(call, f"call to {helper.name}()", f"{_at(helper)}: a helper used as a "
                        "value must be a single `return` of an expression (a helper of "
                        "statements is called as a statement)")
    value = body[0].value
    _check_free_names(helper, value, set(helper.params), caller, call)
    args = dict(zip(helper.params, call.args, strict=True))
    out = substituted(value, {}, args)
    return _placed(out, call)


def inline_statements(helper: Helper, call: ast.Call, caller: FunctionFacts,
                      arrays: Mapping[str, ArrayInfo], fresh: Callable[[str], str]) -> list[ast.stmt]:
    """The statements of ``helper(*call.args)``, called as a statement: a scalar argument
    is assigned to a fresh local first (evaluated once, at the call, as in Python)."""
    check_declared(helper, call, caller, arrays)
    body = _body(helper)
    if body and isinstance(body[-1], ast.Return) and (
            body[-1].value is None or isinstance(body[-1].value, ast.Constant) and body[-1].value.value is None):
        body = body[:-1]
    own = set(local_names(helper.src.tree)) - set(helper.params)
    names: dict[str, str] = {n: fresh(f"_{helper.name}_{n}") for n in sorted(own)}
    first: list[ast.stmt] = []
    values: dict[str, ast.expr] = {}
    rebound = _assigned(body)
    for p, arg in zip(helper.params, call.args, strict=True):
        if isinstance(arg, ast.Name) and arg.id in arrays:
            names[p] = arg.id
        elif view_base(arg, arrays) is not None:
            raise NotAffine(arg, f"call to {helper.name}()", f"{_at(helper)}: passes "
                            f"`{ast.unparse(arg)}`, a view of an array, to a helper called "
                            "as a statement, which writes through its parameters in NumPy; "
                            "pass the whole array (and the bounds as arguments)")
        elif p not in rebound and _fixed(arg):
            values[p] = arg  # a size or a constant: still a bound inside (`range(n)`)
        else:
            names[p] = fresh(f"_{helper.name}_{p}")
            first.append(ast.Assign([ast.Name(names[p], ast.Store())], arg))
    _check_free_names(helper, ast.Module(body, []), set(helper.params) | own, caller, call)
    return [_placed(s, call) for s in (*first, *(substituted(s, names, values) for s in body))]


def _assigned(body: list[ast.stmt]) -> set[str]:
    """The names ``body`` assigns (a parameter it rebinds keeps a variable of its own)."""
    out: set[str] = set()
    for n in ast.walk(ast.Module(body, [])):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def _fixed(arg: ast.expr) -> bool:
    """An argument whose value the helper's statements cannot change, so that reading it
    where the parameter is read is evaluating it once, at the call: names, constants, sizes
    (``x.shape[0]``, ``len(x)``) and arithmetic on them, no array element.  As a parameter
    it keeps what it is in the caller: a size stays a loop bound."""
    for n in ast.walk(arg):
        if isinstance(n, ast.Subscript) and not (
                isinstance(n.value, ast.Attribute) and n.value.attr == "shape"):
            return False
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id == "len"):
            return False
        if isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
    return True


def check_declared(helper: Helper, call: ast.Call, caller: FunctionFacts,
                   arrays: Mapping[str, ArrayInfo]) -> None:
    """A kernel with declared signatures, called from another, takes only the arrays one
    of them names (its dispatcher refuses the others when CPython runs the caller): a
    TypeError as that call's, at the call.  Scalars are not checked (README)."""
    if not helper.declared:
        return

    def array(arg: ast.expr) -> ArrayInfo | None:
        return arrays.get(arg.id) if isinstance(arg, ast.Name) else None

    def fits(d: Declared) -> bool:
        for arg, t in zip(call.args, d.args, strict=True):
            info = array(arg)
            if isinstance(t, ArrayType) != (info is not None):
                return False
            if info is not None and isinstance(t, ArrayType) and (
                    info.dtype != t.dtype or info.rank != t.ndim):
                return False
        return True

    if any(len(d.args) == len(call.args) and fits(d) for d in helper.declared):
        return
    given = ", ".join(f"{info.dtype.value}[{', '.join(':' * info.rank)}]" if info else "scalar"
                      for info in map(array, call.args))
    where = caller.src.location(call)
    raise TypeError(
        f"{where.filename}:{where.line}: {helper.name}() has no compiled signature for "
        f"({given}); it was compiled for "
        f"{' and '.join(repr(str(d)) for d in helper.declared)} only (a kernel called from "
        "another is inlined, and its declared signatures still hold)")


def at_helper(helper: Helper) -> str:
    """Where a problem inside ``helper`` comes from, for its message."""
    return f" (in {_at(helper)})"


def _at(helper: Helper) -> str:
    return f"{helper.name}() at {helper.src.filename}:{helper.src.first_line}"


def _body(helper: Helper) -> list[ast.stmt]:
    body = list(helper.src.tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    return body


def _check_free_names(helper: Helper, tree: ast.AST, bound: set[str], caller: FunctionFacts,
                      call: ast.Call) -> None:
    """A name the helper does not bind must mean in the caller what it means in the
    helper's module, and be none of the caller's own variables: the inlined code is read
    with the caller's names.  A global number must also be one the caller names: a call
    re-checks only the globals its function names (README), so a helper's own would go
    stale when rebound."""
    mine_locals = caller.local_names
    for n in ast.walk(tree):
        if not isinstance(n, ast.Name) or n.id in bound:
            continue
        mine, theirs = helper.env.values.get(n.id), caller.env.values.get(n.id)
        if mine is not theirs or n.id in mine_locals:
            raise NotAffine(call, f"call to {helper.name}()", f"{_at(helper)} uses `{n.id}`, "
                            "which means something else in the calling function (or nothing)")
        if isinstance(mine, (int, float, np.generic)) and n.id not in caller.used_names:
            raise NotAffine(call, f"call to {helper.name}()", f"{_at(helper)} reads the "
                            f"global `{n.id}`, which the calling function does not name; "
                            "pass it as an argument")


def substituted(node: _N, names: Mapping[str, str], values: Mapping[str, ast.expr]) -> _N:
    """A copy of ``node``: the names of ``names`` renamed, then the names of ``values``
    replaced by those expressions (in that order: an argument may use a name the helper
    also uses); positions of new nodes filled in from their parents."""
    out = copy.deepcopy(node)
    for n in ast.walk(out):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id]
    if isinstance(out, ast.Name) and out.id in values:  # `return x`: no parent to edit
        return cast(_N, ast.fix_missing_locations(copy.deepcopy(values[out.id])))
    found: list[tuple[ast.AST, str, int | None, ast.Name]] = []
    for parent in ast.walk(out):  # found first, replaced after: the walk must not see them
        for field, value in ast.iter_fields(parent):
            items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            found += [(parent, field, k, v) for k, v in items
                      if isinstance(v, ast.Name) and v.id in values]
    for parent, field, k, name in found:
        new = copy.deepcopy(values[name.id])
        if k is None:
            setattr(parent, field, new)
        else:
            getattr(parent, field)[k] = new
    return ast.fix_missing_locations(out)


def _placed(node: _N, call: ast.AST) -> _N:
    """``node`` with every position the call's (problems are reported at the call)."""
    for n in ast.walk(node):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(call, attr) and attr in getattr(n, "_attributes", ()):
                setattr(n, attr, getattr(call, attr))
    return node
