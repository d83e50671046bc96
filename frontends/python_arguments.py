"""A Python function's arguments: checking a call's argument kinds against their use,
and inferring the kinds from use when there is no call yet (reports made ahead)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from polyopt.frontends.python_source import FunctionSource
from polyopt.frontends.python_symbols import ArrayInfo, Symbols

from polyopt.model.dtypes import WEAK_FLOAT, WEAK_INT, DType
from polyopt.model.errors import Problem
from polyopt.model.scop import ArrayKind
from polyopt.model.signature import ArrayType, ScalarType, Signature


def declare_arguments(symbols: Symbols, signature: Signature | None) -> list[Problem]:
    """Declare each argument as an array or a scalar (an int one is also a size
    parameter), with the signature's types, or with kinds inferred from use when there
    is no signature; the problems found."""
    src = symbols.facts.src
    fdef = src.tree
    problems: list[Problem] = []
    a = fdef.args
    if a.vararg or a.kwarg:
        problems.append(src.problem(fdef, "`*args`/`**kwargs`", "only named arguments are supported"))
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    symbols.arg_order = tuple(names)
    inferred = infer_arg_kinds(fdef, names) if signature is None else {}
    for name in names:
        t = signature.get(name) if signature is not None else inferred.get(name)
        if isinstance(t, ArrayType):
            symbols.arrays[name] = ArrayInfo(t.dtype, t.ndim, ArrayKind.ARGUMENT, [None] * t.ndim)
        elif isinstance(t, ScalarType):
            symbols.scalar_args[name] = t.type
            if t.is_int:
                symbols.add_param(name)
        elif t is None and signature is not None:
            problems.append(src.problem(fdef, f"argument {name!r}", "has no type in the signature"))
    return problems


def check_argument_kinds(src: FunctionSource, signature: Signature) -> None:
    """A TypeError when an argument is not what the code uses it as: a scalar passed
    for a name the code subscripts, or an array of another rank than every use of it
    has (``A[i, j]`` and ``n, m = A.shape`` want 2).  The code is fine; the call is not."""
    inner = {id(n.value) for n in ast.walk(src.tree) if isinstance(n, ast.Subscript)}
    ndims = {name: t.ndim for name, t in signature.args if isinstance(t, ArrayType)}
    views = _view_contexts(src.tree, ndims)
    uses: dict[str, list[tuple[int, ast.stmt | ast.expr]]] = {}
    for node, name, rank in _rank_uses(src.tree):
        if isinstance(node, ast.Subscript) and id(node) in inner:
            continue
        if id(node) in views and rank < ndims.get(name, 0):
            continue  # `A[i]` of a 2-D A in array code: the row `A[i, :]`, as in NumPy
        uses.setdefault(name, []).append((rank, node))
    for name, t in signature.args:
        found = uses.get(name)
        if not found:
            continue
        rank, node = min(found, key=lambda u: (u[1].lineno, u[1].col_offset))
        where = f"`{ast.unparse(node)}` at {src.location(node)}"
        if isinstance(t, ScalarType):
            raise TypeError(f"{src.tree.name}() uses argument {name!r} as an array ({where}), "
                            f"but a scalar ({t}) was passed")
        ranks = {r for r, _ in found}
        if isinstance(t, ArrayType) and len(ranks) == 1 and rank != t.ndim:
            raise TypeError(f"argument {name!r} has {t.ndim} dimension(s), but {src.tree.name}() "
                            f"uses it with {rank} ({where})")


def _view_contexts(fdef: ast.FunctionDef, ndims: dict[str, int]) -> set[int]:
    """The subscripts where a row of an array (``A[i]`` of a 2-D ``A``) is array code, as
    NumPy reads it: in a statement that assigns to a view (a slice, or an array indexed
    by fewer subscripts than its rank), under a call (``np.sum(A[i])``) or ``@``, or
    returned (``return A[i]``).
    Elsewhere (``y[i] = x[i] * 2.0`` with a 2-D ``x``) the call passed the wrong rank."""
    out: set[int] = set()
    allocated = {t.id for n in ast.walk(fdef) if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                 and n.value.func.attr in _ALLOCATIONS
                 for t in n.targets if isinstance(t, ast.Name)}

    def mark(root: ast.AST) -> None:
        out.update(id(n) for n in ast.walk(root) if isinstance(n, ast.Subscript))

    for n in ast.walk(fdef):
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            targets = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            # `A += B[0]`, `r += A[i]` (r = np.zeros(m)): an update of a whole array
            # reads the row as NumPy does (hostile session 48a, 06)
            if any(_is_view(t, ndims) for t in targets) or (
                    isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
                    and (ndims.get(n.target.id, 0) > 0 or n.target.id in allocated)):
                mark(n)
        elif isinstance(n, ast.Call) or isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
            mark(n)
        elif isinstance(n, ast.Return) and n.value is not None:
            mark(n.value)  # `return A[1]`: the row, a new array
    return out


#: calls that make a new array (``np.zeros(m)``, ``x.copy()``)
_ALLOCATIONS = frozenset({"zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                          "empty_like", "full_like", "copy"})


def _is_view(target: ast.expr, ndims: dict[str, int]) -> bool:
    if not isinstance(target, ast.Subscript):
        return False
    if _sliced(target):
        return True
    rank, base = _subscript_rank(target)
    return isinstance(base, ast.Name) and rank < ndims.get(base.id, 0)


def _subscript_rank(n: ast.Subscript) -> tuple[int, ast.expr]:
    """``A[i, j]`` or ``A[i][j]``: the number of subscripts (2) and what they index."""
    rank, cur = 0, n  # type: tuple[int, ast.expr]
    while isinstance(cur, ast.Subscript):
        rank += len(cur.slice.elts) if isinstance(cur.slice, ast.Tuple) else 1
        cur = cur.value
    return rank, cur


def infer_arg_kinds(fdef: ast.FunctionDef, names: list[str]) -> dict[str, ArrayType | ScalarType]:
    """Argument kinds from use, for reports made before any call: subscripted names are
    float64 arrays of the rank used, names in bounds/subscripts/tests are ints, others floats."""
    ranks: dict[str, int] = {}
    for _, name, rank in _rank_uses(fdef, sliced=True):
        ranks.setdefault(name, rank)
    for n in ast.walk(fdef):  # `A.shape` / `len(A)` without subscripts
        if isinstance(n, ast.Attribute) and n.attr == "shape" and isinstance(n.value, ast.Name):
            ranks.setdefault(n.value.id, 1)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
              and len(n.args) == 1 and isinstance(n.args[0], ast.Name)):
            ranks.setdefault(n.args[0].id, 1)
    ints = _names_in_integer_positions(fdef)
    out: dict[str, ArrayType | ScalarType] = {}
    for name in names:
        if name in ranks:
            out[name] = ArrayType(DType.FLOAT64, ranks[name])
        elif name in ints:
            out[name] = ScalarType(WEAK_INT)
        else:
            out[name] = ScalarType(WEAK_FLOAT)
    return out


def _rank_uses(fdef: ast.FunctionDef, sliced: bool = False
               ) -> Iterator[tuple[ast.stmt | ast.expr, str, int]]:
    """Each use that shows a name's rank, in walk order: ``A[i, j]`` and ``A[i][j]`` (2;
    also ``A[i]`` for the inner subscript) and ``n, m = A.shape`` (2); subscripts with
    slices only when ``sliced`` (they show no more than a lower bound)."""
    for n in ast.walk(fdef):
        if isinstance(n, ast.Subscript) and not sliced and _sliced(n):
            continue  # `C[:]` on a 2-D C is the whole array (python_arrays): no rank shown
        if isinstance(n, ast.Subscript):
            rank, cur = _subscript_rank(n)
            if isinstance(cur, ast.Name):
                yield n, cur.id, rank
        elif (isinstance(n, ast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], ast.Tuple) and isinstance(n.value, ast.Attribute)
              and n.value.attr == "shape" and isinstance(n.value.value, ast.Name)
              and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts)):
            yield n, n.value.value.id, len(n.targets[0].elts)


def _sliced(n: ast.Subscript) -> bool:
    """``A[1:, j]``, ``A[i][:]``, ``x[:, None]``, ``T[..., 0]``: a slice, a new axis or
    an ellipsis anywhere in the subscript chain (array code: no rank shown)."""
    cur: ast.expr = n
    while isinstance(cur, ast.Subscript):
        if any(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value in (None, ...)
               or isinstance(p, ast.Attribute) and p.attr == "newaxis" for p in ast.walk(cur.slice)):
            return True
        cur = cur.value
    return False


def _names_in_integer_positions(fdef: ast.FunctionDef) -> set[str]:
    """Names used in subscripts, ``range()`` arguments and ``if`` tests."""
    roots: list[ast.AST] = []
    for n in ast.walk(fdef):
        if isinstance(n, ast.Subscript):
            roots.append(n.slice)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range":
            roots.append(n)
        elif isinstance(n, ast.If):
            roots.append(n.test)
    return {sub.id for root in roots for sub in ast.walk(root) if isinstance(sub, ast.Name)}
