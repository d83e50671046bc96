"""Array contraction: a temporary array that lives within one loop iteration
becomes a scalar.

After fusion, row-sum then scale reads each ``tmp[i]`` only in the iteration
that computed it::

    tmp = np.zeros(n)                      for i in range(n):
    for i in range(n):                         tmp = 0.0
        tmp[i] = 0.0                           for j in range(m):
        for j in range(m):          ==>            tmp += A[i, j]
            tmp[i] += A[i, j]                  for j in range(m):
        for j in range(m):                         out[i, j] = A[i, j] / tmp
            out[i, j] = A[i, j] / tmp[i]

Legal when the array is a temporary (allocated by the function, not
returned), some loop encloses every access to it, every value-based flow
dependence on it stays inside one iteration of that loop, and within one
iteration every access touches the same element.  isl proves the last two
from the access relations and the new schedule.  The result is a new scop
whose source order is the transformed schedule, so its dependences (and the
scalar's privatization) are recomputed exactly.

When one iteration touches several elements, but all of them in one row (or one
block of rows) that the loop runs over, the array shrinks to a buffer of that
row or block instead.  matmul -> exp -> matmul fused at tiles of 96 rows::

    T = np.empty((n, m))                   T_rows = np.empty((96, m))
    for it in range(ceil(n / 96)):         for it in range(ceil(n / 96)):
        for i in tile it:  T[i, j] = ...       for i in tile it:  T_rows[i % 96, j] = ...
        for i in tile it:  ... T[i, k] ...     for i in tile it:  ... T_rows[i % 96, k] ...

Legal under the same conditions, with "the same element" replaced by "the same
window": every access's index in that dimension is the loop's own iterator (a
row), or the iterator the loop tiles (a block), so within one iteration the
mapping to the buffer is one to one.  Every read must also read a value written
in its own iteration (a buffer holds nothing from before).  A parallel loop then
gives each thread its own buffer (:func:`polyopt.analysis.verdicts._private_array`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.timeline import Timeline, timeline
from polyopt.analysis.verdicts import flows_stay, reads_covered
from polyopt.model import isl_text
from polyopt.model.aff import Lin, block_size, floordiv
from polyopt.model.dtypes import ValueType
from polyopt.model.expr import Expr, Load, Name, map_leaves
from polyopt.model.schedule_tree import LoopDim, Node, loops
from polyopt.model.scop import Access, Array, ArrayKind, Scalar, ScalarKind, Scop, Statement


def contractible(scop: Scop, deps: Dependences, tree: Node) -> dict[str, str]:
    """Temporaries that can become scalars, each with the loop it is private to."""
    tl = timeline(scop, tree)
    out: dict[str, str] = {}
    for name, arr in scop.arrays.items():
        if arr.kind is not ArrayKind.TEMPORARY:
            continue
        users = {a.statement for s in scop.statements for a in s.accesses if a.target == name}
        if not users:
            continue
        for dim, _ in loops(tree):
            inside = set(tl.positions[dim.loop_id].statements)
            if users <= inside and _contracts_at(scop, deps, tl, name, dim.loop_id):
                out[name] = dim.loop_id
                break
    return out


def _contracts_at(scop: Scop, deps: Dependences, tl: Timeline, array: str, loop_id: str) -> bool:
    if not flows_stay(deps, tl, array, loop_id):
        return False
    same_iter = tl.same_prefix(loop_id, inclusive=True)
    accesses = [a for s in scop.statements for a in s.accesses if a.target == array]
    for a1 in accesses:
        for a2 in accesses:
            s1 = scop.statement(a1.statement)
            s2 = scop.statement(a2.statement)
            pairs = same_iter.intersect(
                isl.UnionMap.from_map(isl.Map.from_domain_and_range(s1.domain, s2.domain)))
            same_element = isl.UnionMap.from_map(a1.relation.apply_range(a2.relation.reverse()))
            if not pairs.is_subset(same_element):
                return False
    return True


@dataclass(frozen=True)
class Window:
    """Within one iteration of loop ``loop_id``, every access of a temporary has the
    same index in dimension ``dim`` (``size == 1``), or one in the same block of
    ``size`` (the loop runs over tiles of that iterator)."""

    loop_id: str
    dim: int
    size: int


def windows(scop: Scop, deps: Dependences, tree: Node,
            scalars: frozenset[str] = frozenset()) -> dict[str, Window]:
    """Temporaries (but ``scalars``) that can become a row or block buffer."""
    tl = timeline(scop, tree)
    out: dict[str, Window] = {}
    for name, arr in scop.arrays.items():
        if arr.kind is not ArrayKind.TEMPORARY or name in scalars:
            continue
        accesses = [a for s in scop.statements for a in s.accesses if a.target == name]
        users = {a.statement for a in accesses}
        if not users or not reads_covered(scop, deps, name, users):
            continue
        for dim, _ in loops(tree):
            if not users <= set(tl.positions[dim.loop_id].statements):
                continue
            window = _window(scop, dim, accesses, arr.rank)
            if window is not None and flows_stay(deps, tl, name, dim.loop_id):
                out[name] = window
                break
    return out


def _window(scop: Scop, dim: LoopDim, accesses: list[Access], rank: int) -> Window | None:
    for p in range(rank):
        sizes = {block_size(dim.expr(a.statement), a.indices[p]) if a.indices[p].as_name()
                 else None for a in accesses}
        size = next(iter(sizes)) if len(sizes) == 1 else None
        if size is not None:
            return Window(dim.loop_id, p, size)
    return None


def contract(scop: Scop, deps: Dependences, tree: Node, row_buffers: bool = True) -> Scop:
    """``scop`` run in the order of ``tree`` with every contractible temporary a scalar,
    or else (when ``row_buffers``) a row or block buffer.

    Returns ``scop`` itself when nothing contracts.  A buffer in a parallel loop needs a
    copy per thread (``Options.array_copies``); without them the loop would run
    sequentially, so ``row_buffers=False`` then keeps such temporaries whole.
    """
    names = contractible(scop, deps, tree)
    buffers = windows(scop, deps, tree, frozenset(names)) if row_buffers else {}
    if buffers:
        scop = _to_buffers(scop, buffers)
    if not names:
        return replace(scop, schedule=tree) if buffers else scop
    taken = set(scop.arrays) | set(scop.scalars) | set(scop.params)
    scalar_of: dict[str, str] = {}
    for a in names:
        s = a
        while s in taken - {a}:
            s += "_"
        scalar_of[a] = s
    statements = tuple(_rewrite(scop, st, scalar_of) for st in scop.statements)
    arrays = {n: a for n, a in scop.arrays.items() if n not in names}
    scalars = dict(scop.scalars)
    for a, s in scalar_of.items():
        scalars[s] = Scalar(s, ValueType(scop.arrays[a].dtype), ScalarKind.LOCAL)
    return replace(scop, arrays=arrays, scalars=scalars, statements=statements, schedule=tree)


def _rewrite(scop: Scop, st: Statement, scalar_of: dict[str, str]) -> Statement:
    if st.target not in scalar_of and not any(a.target in scalar_of for a in st.reads):
        return st
    value = _expr(st.value, scalar_of)
    target, indices = st.target, st.indices
    if target in scalar_of:
        target, indices = scalar_of[target], ()
    write = _access(scop, st, st.write, scalar_of)
    reads = tuple(_access(scop, st, r, scalar_of) for r in st.reads)
    return replace(st, target=target, indices=indices, value=value, write=write, reads=reads)


def _access(scop: Scop, st: Statement, a: Access, scalar_of: dict[str, str]) -> Access:
    if a.target not in scalar_of:
        return a
    name = scalar_of[a.target]
    rel = isl_text.make_map(scop.params, st.name, st.iterators, name, ()).intersect_domain(st.domain)
    return replace(a, target=name, indices=(), relation=rel)


def _expr(e: Expr, scalar_of: dict[str, str]) -> Expr:
    def leaf(x: Expr) -> Expr:
        if isinstance(x, Load) and x.array in scalar_of:
            return Name(scalar_of[x.array], x.type)
        return x

    return map_leaves(e, leaf)


def _to_buffers(scop: Scop, buffers: dict[str, Window]) -> Scop:
    taken = set(scop.arrays) | set(scop.scalars) | set(scop.params)
    arrays = dict(scop.arrays)
    renamed: dict[str, str] = {}
    for name, w in buffers.items():
        base = f"{name}_{'row' if w.size == 1 else 'rows'}"
        new, k = base, 1
        while new in taken:
            k += 1
            new = f"{base}{k}"
        taken.add(new)
        renamed[name] = new
        arr = arrays.pop(name)
        shape = list(arr.shape)
        if w.size == 1:
            del shape[w.dim]
        else:
            shape[w.dim] = Lin.constant(w.size)
        arrays[new] = Array(new, arr.dtype, tuple(shape), ArrayKind.TEMPORARY)

    def indices(name: str, ix: tuple[Lin, ...]) -> tuple[Lin, ...]:
        w = buffers[name]
        out = list(ix)
        if w.size == 1:
            del out[w.dim]
        else:
            out[w.dim] = ix[w.dim] - floordiv(ix[w.dim], w.size).scale(w.size)
        return tuple(out)

    def access(st: Statement, a: Access) -> Access:
        if a.target not in buffers:
            return a
        new_ix = indices(a.target, a.indices)
        rel = isl_text.make_map(scop.params, st.name, st.iterators, renamed[a.target],
                                new_ix).intersect_domain(st.domain)
        return replace(a, target=renamed[a.target], indices=new_ix, relation=rel)

    def leaf(x: Expr) -> Expr:
        if isinstance(x, Load) and x.array in buffers:
            return replace(x, array=renamed[x.array], indices=indices(x.array, x.indices))
        return x

    stmts = []
    for st in scop.statements:
        if st.target not in buffers and not any(r.target in buffers for r in st.reads):
            stmts.append(st)
            continue
        target, ix = st.target, st.indices
        if target in buffers:
            target, ix = renamed[target], indices(target, ix)
        stmts.append(replace(st, target=target, indices=ix, value=map_leaves(st.value, leaf),
                             write=access(st, st.write),
                             reads=tuple(access(st, r) for r in st.reads)))
    return replace(scop, arrays=arrays, statements=tuple(stmts))
