"""A new local bound to a view of an array (``t = x[1:]``, ``t = A.T``, ``t = A[0]``,
``t = x``): NumPy's ``t`` shares ``x``'s memory, so a later write to either shows in the
other.  polyopt gives a new local array its own copy, which is the same only while
neither is written; otherwise the assignment is refused, naming the shared array::

    t = x[1:]            NumPy: t is x[1:]          polyopt: t is a copy of x[1:]
    x[:] = 0.0      ->   return t * 1 is zeros     -> refused here (write x[1:].copy())
    return t * 1
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from polyopt.frontends.python_symbols import ArrayInfo


def parts(node: ast.expr) -> tuple[str | None, list[ast.expr]]:
    """``A[i][1:]``: ``("A", [i, 1:])``; None for a subscript of something else."""
    idx: list[ast.expr] = []
    cur = node
    while isinstance(cur, ast.Subscript):
        sl = cur.slice
        idx = (list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]) + idx
        cur = cur.value
    return (cur.id if isinstance(cur, ast.Name) else None), idx


def through_a_slice(node: ast.Subscript) -> bool:
    """``node`` subscripts a slice of an array (``x[1:][0]``), which the walker's element
    accesses, one index per dimension, cannot spell."""
    cur = node.value
    while isinstance(cur, ast.Subscript):
        sl = cur.slice
        if any(isinstance(ix, ast.Slice) for ix in (sl.elts if isinstance(sl, ast.Tuple) else [sl])):
            return True
        cur = cur.value
    return False


def view_base(node: ast.expr, arrays: Mapping[str, ArrayInfo]) -> str | None:
    """The array ``node`` is a view of (a name, slices, rows, ``.T``, ``np.transpose``,
    ``.transpose()``); None for a value that is computed (a new array in NumPy too)."""
    if isinstance(node, ast.Name):
        return node.id if node.id in arrays else None
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return view_base(node.value, arrays)
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "transpose":
        return view_base(node.func.value, arrays)
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "transpose":
        return view_base(node.args[0], arrays)
    if isinstance(node, ast.Subscript):
        name, idx = parts(node)
        if name is None:
            return view_base(_innermost(node), arrays)
        info = arrays.get(name)
        if info is None:
            return None
        # basic indexing: a slice, a new axis or fewer indices than the rank keep a view
        sliced = any(isinstance(ix, ast.Slice) or isinstance(ix, ast.Constant) and ix.value in (
            None, ...) for ix in idx)
        return name if sliced or len(idx) < info.rank else None
    return None


def _innermost(node: ast.Subscript) -> ast.expr:
    cur: ast.expr = node
    while isinstance(cur, ast.Subscript):
        cur = cur.value
    return cur


def written(fdef: ast.FunctionDef) -> set[str]:
    """The arrays (and locals) the function writes: assignment targets' base names, names
    updated in place (``x += 1``), and names passed to a helper called as a statement (it
    may write them)."""
    out: set[str] = set()
    for n in ast.walk(fdef):
        targets: list[ast.expr] = []
        if isinstance(n, ast.Assign):
            targets = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            out.update(a.id for a in n.value.args if isinstance(a, ast.Name))
        for t in targets:
            for e in t.elts if isinstance(t, ast.Tuple) else [t]:
                if isinstance(n, ast.AugAssign) and isinstance(e, ast.Name):
                    out.add(e.id)  # `x += 1` on an array updates it in place
                elif isinstance(e, ast.Subscript):
                    name = parts(e)[0]
                    if name is not None:
                        out.add(name)
    return out
