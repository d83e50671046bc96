"""A file's enumeration constants as the numbers they are, as the C compiler reads them.

An enumerator declared at file scope is an ``int`` constant; left as a name, a region
reads it as a parameter that may take any value, which ``--verify`` then chose
(``EN=10`` for ``enum { EN = 30 }``) and whose accesses it could not keep inside the
arrays (hostile session 47b, finding 03)::

    enum { EN = 30, EM = EN + 5 };           for (i = 0; i < EN; i++)
    for (i = 0; i < EN; i++)           ->        x[i + 35 - 30 - 5] = ...
        x[i + EM - EN - 5] = ...

Each value is folded as :mod:`polyopt.frontends.c_constants` folds constant
expressions (an enumerator without ``= value`` is the one before it plus 1); where one
does not fold (``sizeof``, a value past ``int``), it and the rest of its list stay
names.  A name that the file also declares (a variable, a parameter or a member that
may shadow the enumerator) is left as written too.
"""

from __future__ import annotations

import copy

from polyopt.frontends.c_constants import constant_node, replace_child, signed_value
from polyopt.frontends.c_types import walk_nodes
from pycparser import c_ast

from polyopt.model.dtypes import DType


def fold_enums(ast: c_ast.FileAST) -> None:
    """Replace each use of a file-scope enumerator by its value."""
    values = _enumerators(ast)
    if not values:
        return
    declared = {n.name for n in walk_nodes(ast) if isinstance(n, (c_ast.Decl, c_ast.Typedef))
                and isinstance(n.name, str)}
    usable = {k: v for k, v in values.items() if k not in declared}
    if not usable:
        return
    for ext in ast.ext:  # the functions, and the extents of arrays (`double x[EN];`)
        _substitute(ext, usable)


def _enumerators(ast: c_ast.FileAST) -> dict[str, int]:
    out: dict[str, int] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            continue  # a function's own enums have its scopes
        for node in walk_nodes(ext):
            if isinstance(node, c_ast.Enum) and node.values is not None:
                _one_list(node.values, out)
    return out


def _one_list(values: c_ast.EnumeratorList, out: dict[str, int]) -> None:
    low, high = DType.INT32.bounds
    following = 0
    for e in values.enumerators:
        if e.value is None:
            value: int | None = following
        else:
            folded = signed_value(_substituted(e.value, out))
            value = None if folded is None else folded[0]
        if value is None or not low <= value <= high:
            return  # this one and the rest of the list stay names
        out[e.name] = value
        following = value + 1


def _substituted(node: c_ast.Node, known: dict[str, int]) -> c_ast.Node:
    """A copy of ``node`` with the enumerators it names as numbers."""
    if isinstance(node, c_ast.ID):
        return constant_node(known[node.name], DType.INT32, node) if node.name in known else node
    mine = copy.deepcopy(node)
    _substitute(mine, known)
    return mine


def _substitute(node: c_ast.Node, known: dict[str, int]) -> None:
    for name, child in node.children():
        if isinstance(node, c_ast.StructRef) and child is node.field:
            continue  # `s.EN` names a member, not the enumerator
        if isinstance(child, c_ast.ID) and child.name in known:
            replace_child(node, name, constant_node(known[child.name], DType.INT32, child))
        else:
            _substitute(child, known)
