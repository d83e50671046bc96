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
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polyopt import isl_text
from polyopt.deps import Dependences
from polyopt.dtypes import ValueType
from polyopt.expr import Expr, Load, Name, map_leaves
from polyopt.model import Access, ArrayKind, Scalar, ScalarKind, Scop, Statement
from polyopt.schedule_tree import Node, loops
from polyopt.timeline import Timeline


def contractible(scop: Scop, deps: Dependences, tree: Node) -> dict[str, str]:
    """Temporaries that can become scalars, each with the loop it is private to."""
    tl = Timeline(scop, tree)
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
    same_iter = tl.same_prefix(loop_id, inclusive=True)
    for d in deps.flow:
        if d.array == array and not isl.UnionMap.from_map(d.relation).is_subset(same_iter):
            return False
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


def contract(scop: Scop, deps: Dependences, tree: Node) -> Scop:
    """``scop`` run in the order of ``tree`` with every contractible temporary a scalar.

    Returns ``scop`` itself when nothing contracts.
    """
    names = contractible(scop, deps, tree)
    if not names:
        return scop
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
