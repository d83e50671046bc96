"""The Python frontend's renaming of local names that isl or the generated C cannot use.

A function's arguments and variables become isl dimensions and C identifiers.  A name
isl reads as a keyword (``mod``, ``ceil``, ``NaN``), a non-ASCII one (``β``) or one the
generated C reserves (``double``, ``sqrt``, ``malloc``, ``omp_get_num_threads``) is
renamed throughout the function to :func:`polyopt.model.names.internal_name`'s spelling, which
messages and reports turn back into the user's (:func:`polyopt.model.names.user_text`).  Only
local names are renamed: as in Python, a name assigned anywhere in the function is local
everywhere in it, and any other name (a builtin, a module, a global constant) keeps its
meaning.
"""

from __future__ import annotations

import ast
import copy
import dataclasses

from polyopt.frontends.python_source import FunctionSource

from polyopt.model.names import C_RESERVED, C_RESERVED_PATTERN, internal_name, isl_safe
from polyopt.model.signature import Signature


def needs_renaming(name: str) -> bool:
    base = name[:-1] if name.endswith(("f", "l")) else name
    return (not isl_safe(name) or name in C_RESERVED or base in C_RESERVED
            or bool(C_RESERVED_PATTERN.match(name)))


def local_names(fdef: ast.FunctionDef) -> list[str]:
    """The function's arguments and assigned names, in order of first appearance."""
    out: dict[str, None] = {}
    for a in (*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs):
        out[a.arg] = None
    for extra in (fdef.args.vararg, fdef.args.kwarg):
        if extra is not None:
            out[extra.arg] = None
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out[n.id] = None
    return list(out)


def renaming(src: FunctionSource) -> dict[str, str]:
    """User name -> internal name, for the local names that need one."""
    return {n: internal_name(n) for n in local_names(src.tree) if needs_renaming(n)}


def renamed_source(src: FunctionSource, names: dict[str, str]) -> FunctionSource:
    """``src`` with ``names`` renamed in a copy of its tree (positions unchanged)."""
    if not names:
        return src
    tree = copy.deepcopy(src.tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id]
        elif isinstance(n, ast.arg) and n.arg in names:
            n.arg = names[n.arg]
    return dataclasses.replace(src, tree=tree)


def renamed_signature(sig: Signature | None, names: dict[str, str]) -> Signature | None:
    if sig is None or not names:
        return sig
    return Signature(tuple((names.get(n, n), t) for n, t in sig.args))


def interface_spelling(arg_names: list[str], sig: Signature) -> tuple[list[str], Signature]:
    """The argument names and the signature as a compiled kernel's interface spells them
    (renamed where :func:`needs_renaming`), to check a cache index entry against: compared
    with the names as written, an entry of a kernel with an argument ``y1``, ``default``
    or ``α`` never matched, and was discarded and rebuilt in every process."""
    names = {n: internal_name(n) for n in arg_names if needs_renaming(n)}
    return [names.get(n, n) for n in arg_names], \
        Signature(tuple((names.get(n, n), t) for n, t in sig.args))
