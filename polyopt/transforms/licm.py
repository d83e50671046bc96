"""Loop-invariant code motion of an accumulator (scalar replacement).

When the innermost loop updates one array element that does not change with
the loop, the element is loaded once before the loop, kept in a register, and
stored once after it::

    for k in range(nk):                      acc = C[i, j]
        C[i, j] += A[i, k] * B[k, j]   ==>   for k in range(nk):          # omp simd reduction(+:acc)
                                                 acc += A[i, k] * B[k, j]
                                             C[i, j] = acc

It is legal only when every iteration of the loop touches that same element
and no other access in the loop touches that element (other elements of the
array may be read: ``A[i, j] -= A[i, k] * A[j, k]`` with ``k < j``), which isl
proves from the access relations (not from the source text).

The body may hold other statements (bicg)::

    for j in range(m):                       acc = q[i]
        s[j] = s[j] + r[i] * A[i, j]   ==>   for j in range(m):           # omp simd reduction(+:acc)
        q[i] = q[i] + A[i, j] * p[j]             s[j] = s[j] + r[i] * A[i, j]
                                                 acc = acc + A[i, j] * p[j]
                                             q[i] = acc

when exactly one of them writes one element throughout the loop and no access
of the others can touch it (``s[j] = q[i] * 0.5`` reading the running sum is
refused).
"""

from __future__ import annotations

import islpy as isl

from polyopt import isl_text
from polyopt.deps import Dependence, Dependences
from polyopt.errors import IllegalTransformationError
from polyopt.model import Scop
from polyopt.report import describe
from polyopt.schedule_tree import Band, Leaf, Node, Sequence
from polyopt.timeline import Timeline
from polyopt.transforms.tree import at, find


def invariant_accumulator(scop: Scop, tree: Node, loop_id: str) -> str | None:
    """The statement whose target is invariant in innermost ``loop_id``, or None (with why)."""
    return _why_not(scop, tree, loop_id)[0]


def _why_not(scop: Scop, tree: Node, loop_id: str) -> tuple[str | None, str]:
    band = at(tree, find(tree, loop_id))
    assert isinstance(band, Band)
    unrolled = []
    node = band.child
    while isinstance(node, Band) and node.dims[0].mark.unroll:
        unrolled.append(node.dims[0])
        node = node.child
    if isinstance(node, Sequence) and not unrolled and all(
            isinstance(c, Leaf) for c in node.children):
        return _accumulator_among(scop, tree, band.dims[0].loop_id,
                                  [c.stmt for c in node.children if isinstance(c, Leaf)])
    if not isinstance(node, Leaf):
        return None, "its body is not a single statement or a sequence of statements"
    s = scop.statement(node.stmt)
    if s.target not in scop.arrays:
        return None, f"it updates the scalar {s.target}, which already lives in a register"
    tl = Timeline(scop, tree)
    pairs = tl.same_prefix(band.dims[0].loop_id, inclusive=False).intersect(
        isl.UnionMap.from_map(isl.Map.from_domain_and_range(s.domain, s.domain)))
    every_pair = pairs  # across unrolled copies too: each copy's register is stale to the others
    if unrolled:
        # copies made by unrolling are separate accumulators: compare within one copy
        m = isl_text.make_map(scop.params, s.name, s.iterators, "",
                              tuple(d.expr(s.name) for d in unrolled)).intersect_domain(s.domain)
        pairs = pairs.intersect(isl.UnionMap.from_map(m.apply_range(m.reverse())))
    w = isl.UnionMap.from_map(s.write.relation)
    same_element = w.apply_range(w.reverse())
    if not pairs.is_subset(same_element):
        return None, f"{s.target}[...] changes from one iteration to the next"
    for r in s.reads:
        if r.target == s.target and r.indices != s.indices:
            # another read of the array (cholesky's A[i, k] beside A[i, j]) must never see
            # the element the register holds, in any iteration of this loop's execution
            touches = w.apply_range(isl.UnionMap.from_map(r.relation).reverse())
            if not touches.intersect(every_pair).is_empty():
                return None, (f"the statement also reads other elements of {s.target}, "
                              "one of which can be the accumulator's")
    return s.name, ""


def _accumulator_among(scop: Scop, tree: Node, loop_id: str,
                       stmts: list[str]) -> tuple[str | None, str]:
    """A body of several statements (bicg's ``s[j] = s[j] + r[i] * A[i, j]`` beside
    ``q[i] = q[i] + A[i, j] * p[j]``): the one statement that writes an element invariant
    in the loop keeps it in a register, when no other access of the body, in any
    iteration of this execution of the loop, can touch that element."""
    tl = Timeline(scop, tree)
    same = tl.same_prefix(loop_id, inclusive=False)
    found: list[str] = []
    for name in stmts:
        s = scop.statement(name)
        if s.target not in scop.arrays:
            continue
        w = isl.UnionMap.from_map(s.write.relation)
        pairs = same.intersect(isl.UnionMap.from_map(
            isl.Map.from_domain_and_range(s.domain, s.domain)))
        if pairs.is_subset(w.apply_range(w.reverse())):
            found.append(name)
    if len(found) != 1:
        return None, ("no statement of its body writes one element throughout the loop"
                      if not found else
                      f"statements {', '.join(found)} each write one element: one register "
                      "accumulator per loop is supported")
    acc = scop.statement(found[0])
    w = isl.UnionMap.from_map(acc.write.relation)
    for name in stmts:
        for a in scop.statement(name).accesses:
            if a.target != acc.target or (name == acc.name and a.indices == acc.indices):
                continue
            touches = w.apply_range(isl.UnionMap.from_map(a.relation).reverse())
            if not touches.intersect(same).is_empty():
                return None, (f"{acc.target}[...] is also accessed by the statement at line "
                              f"{scop.statement(name).location.line}, which can touch the "
                              "accumulator's element")
    return acc.name, ""


def check_licm(scop: Scop, deps: Dependences, tree: Node, loop_id: str, name: str) -> str:
    """The statement whose accumulator ``loop_id`` may keep in a register; else raise.

    When another access of the statement may touch the accumulator's element, the
    error carries the dependences between them that the loop carries.
    """
    stmt, why = _why_not(scop, tree, loop_id)
    if stmt is None:
        broken = _aliasing(scop, deps, tree, loop_id)
        if broken:
            why += f"; a register copy would break the {describe(scop, broken[0])}"
        raise IllegalTransformationError(f"licm on loop {name} is not possible: {why}", broken)
    return stmt


def _aliasing(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> tuple[Dependence, ...]:
    """Dependences carried by ``loop_id`` between the accumulator access of its body's
    statement and another access of the same array (what a register copy would miss)."""
    band = at(tree, find(tree, loop_id))
    assert isinstance(band, Band)
    if not isinstance(band.child, Leaf):
        return ()
    s = scop.statement(band.child.stmt)
    tl = Timeline(scop, tree)
    return tuple(
        d for d in deps.memory
        if d.source.statement == s.name and d.sink.statement == s.name and d.array == s.target
        and (d.source.indices != s.indices or d.sink.indices != s.indices)
        and not tl.carries(d.relation, band.dims[0].loop_id).is_empty()
    )
