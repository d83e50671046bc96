"""The Numba columns: the same Python kernel under ``numba.njit``.

``@njit(parallel=True)`` only runs loops in parallel that are written with
``numba.prange``.  To keep the comparison honest, the kernel is not rewritten
by hand: the *same* loop nest is used, and in each nest the outermost loop that
polyopt's dependence report (on the source order) calls ``parallel`` becomes a
``prange``; nothing else changes.  Loops that are parallel only as reductions
stay sequential (a ``prange`` over an array reduction would race).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Collection
from typing import Any


def parallel_lines(analysis: Any) -> set[int]:
    """Source lines of the loops that a polyopt ``Analysis`` reports as parallel without
    per-thread copies of arrays: ``prange`` shares every array, so doitgen's loop over
    ``r`` (parallel on copies of ``sum``) would race and give wrong results."""
    return {lp.line for lp in analysis.loops
            if lp.verdict == "parallel" and lp.line and not lp.private_arrays}


class _ToPrange(ast.NodeTransformer):
    """``for v in range(...)`` at one of ``lines`` -> ``prange``; not below one done."""

    def __init__(self, lines: Collection[int]) -> None:
        self.lines = set(lines)
        self.converted: list[int] = []

    def visit_For(self, node: ast.For) -> ast.AST:
        it = node.iter
        if (node.lineno in self.lines and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name) and it.func.id == "range"):
            it.func = ast.copy_location(ast.Name("prange", ast.Load()), it.func)
            self.converted.append(node.lineno)
            return node  # the outermost parallel loop of this nest: leave inner loops alone
        self.generic_visit(node)
        return node


def rewrite(fn: Callable[..., Any], lines: Collection[int]) -> tuple[ast.Module, list[int]]:
    """``fn``'s syntax tree with the loops at ``lines`` (file line numbers) as ``prange``,
    decorators removed; and the lines actually converted."""
    source = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(source)
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef):
        raise TypeError(f"{fn.__name__} is not a plain function")
    func.decorator_list = []
    rewriter = _ToPrange(lines)
    rewriter.visit(func)
    ast.fix_missing_locations(tree)
    return tree, sorted(rewriter.converted)


def prange_version(fn: Callable[..., Any], lines: Collection[int]) -> tuple[Callable[..., Any], list[int]]:
    """``fn`` re-created with the loops at ``lines`` as ``numba.prange``.

    Returns the new (undecorated) Python function, whose globals are a copy of
    ``fn``'s plus ``prange``, and the lines actually converted.
    """
    import numba

    tree, converted = rewrite(fn, lines)
    namespace = dict(fn.__globals__)
    namespace["prange"] = numba.prange
    exec(compile(tree, inspect.getsourcefile(fn) or "<kernel>", "exec"), namespace)  # noqa: S102
    return namespace[fn.__name__], converted


def njit_serial(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``numba.njit(fn)``: the kernel exactly as written."""
    import numba

    return numba.njit(fn)


def njit_parallel(fn: Callable[..., Any], lines: Collection[int]) -> tuple[Callable[..., Any], list[int]]:
    """``numba.njit(parallel=True)`` of ``fn`` with its outer parallel loops as ``prange``."""
    import numba

    ported, converted = prange_version(fn, lines)
    return numba.njit(parallel=True)(ported), converted
