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

and several of them may each keep their own element in a register (gesummv's
``tmp[i]`` and ``y[i]``): each statement that writes one element throughout the
loop, when no other access of the body can touch that element (``s[j] = q[i] * 0.5``
reading the running sum keeps ``q[i]`` in memory).
"""

from __future__ import annotations

import islpy as isl

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.analysis.timeline import timeline
from polyopt.analysis.verdicts import LoopVerdict, var_name
from polyopt.model import isl_text
from polyopt.model.errors import IllegalTransformationError, TooComplexError
from polyopt.model.isl_budget import LICM_OPS, budget
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, Node, Sequence
from polyopt.model.scop import Access, Scop, Statement
from polyopt.transforms.tree import at, find


def invariant_accumulators(scop: Scop, tree: Node, loop_id: str) -> tuple[str, ...]:
    """The statements whose targets innermost ``loop_id`` may keep in registers (none:
    ``()``)."""
    return _why_not(scop, tree, loop_id)[0]


def _body(tree: Node, loop_id: str) -> tuple[Band, list[LoopDim], list[str] | None]:
    """The loop's band, the fully unrolled loops right inside it, and the statements of
    its body: one, or a sequence of them (None for any other body)."""
    band = at(tree, find(tree, loop_id))
    assert isinstance(band, Band)
    unrolled: list[LoopDim] = []
    node = band.child
    while isinstance(node, Band) and node.dims[0].mark.unroll:
        unrolled.append(node.dims[0])
        node = node.child
    if isinstance(node, Leaf):
        return band, unrolled, [node.stmt]
    if isinstance(node, Sequence) and not unrolled and all(
            isinstance(c, Leaf) for c in node.children):
        return band, unrolled, [c.stmt for c in node.children if isinstance(c, Leaf)]
    return band, unrolled, None


def _writes_one_element(s: Statement, pairs: isl.UnionMap) -> bool:
    """Every pair of ``s``'s instances in ``pairs`` writes the same element."""
    own = pairs.intersect(isl.UnionMap.from_map(isl.Map.from_domain_and_range(s.domain, s.domain)))
    w = isl.UnionMap.from_map(s.write.relation)
    return own.is_subset(w.apply_range(w.reverse()))


def _may_touch(s: Statement, access: Access, pairs: isl.UnionMap) -> bool:
    """``access`` can touch the element ``s`` writes, in a pair of instances of ``pairs``."""
    w = isl.UnionMap.from_map(s.write.relation)
    touches = w.apply_range(isl.UnionMap.from_map(access.relation).reverse())
    return not touches.intersect(pairs).is_empty()


def _why_not(scop: Scop, tree: Node, loop_id: str) -> tuple[tuple[str, ...], str]:
    """:func:`_why_not_exact`, or no accumulator past :data:`LICM_OPS`: the domains of an
    ``if``/``else if`` chain of truncating divisions made one subset test of it take isl
    16 s (hostile session 41b, finding 04)."""
    try:
        with budget(LICM_OPS, f"keeping the accumulators of loop {loop_id} in registers"):
            return _why_not_exact(scop, tree, loop_id)
    except TooComplexError:
        return (), (f"isl did not decide within {LICM_OPS:,} operations whether its "
                    "statements write one element throughout the loop")


def _why_not_exact(scop: Scop, tree: Node, loop_id: str) -> tuple[tuple[str, ...], str]:
    band, unrolled, stmts = _body(tree, loop_id)
    if stmts is None:
        return (), "its body is not a single statement or a sequence of statements"
    tl = timeline(scop, tree)
    same = tl.same_prefix(band.dims[0].loop_id, inclusive=False)
    if len(stmts) > 1:
        return _accumulator_among(scop, same, stmts)
    s = scop.statement(stmts[0])
    if s.target not in scop.arrays:
        return (), f"it updates the scalar {s.target}, which already lives in a register"
    pairs = same.intersect(
        isl.UnionMap.from_map(isl.Map.from_domain_and_range(s.domain, s.domain)))
    every_pair = pairs  # across unrolled copies too: each copy's register is stale to the others
    if unrolled:
        # copies made by unrolling are separate accumulators: compare within one copy
        m = isl_text.make_map(scop.params, s.name, s.iterators, "",
                              tuple(d.expr(s.name) for d in unrolled)).intersect_domain(s.domain)
        pairs = pairs.intersect(isl.UnionMap.from_map(m.apply_range(m.reverse())))
    if not _writes_one_element(s, pairs):
        return (), f"{s.target}[...] changes from one iteration to the next"
    for r in s.reads:
        # another read of the array (cholesky's A[i, k] beside A[i, j]) must never see
        # the element the register holds, in any iteration of this loop's execution
        if r.target == s.target and r.indices != s.indices and _may_touch(s, r, every_pair):
            return (), (f"the statement also reads other elements of {s.target}, "
                        "one of which can be the accumulator's")
    return (s.name,), ""


def _accumulator_among(scop: Scop, same: isl.UnionMap,
                       stmts: list[str]) -> tuple[tuple[str, ...], str]:
    """A body of several statements (bicg's ``s[j] = s[j] + r[i] * A[i, j]`` beside
    ``q[i] = q[i] + A[i, j] * p[j]``, gesummv's ``tmp[i]`` beside ``y[i]``): each
    statement that writes an element invariant in the loop keeps it in a register, when
    no other access of the body, in any iteration of this execution of the loop
    (``same``), can touch that element."""
    # (a statement that never runs writes "one element" vacuously: nothing to keep)
    found = [name for name in stmts if scop.statement(name).target in scop.arrays
             and not scop.statement(name).domain.is_empty()
             and _writes_one_element(scop.statement(name), same)]
    if not found:
        return (), "no statement of its body writes one element throughout the loop"
    kept, why = [], ""
    for name in found:
        touching = _touching(scop, same, stmts, scop.statement(name))
        if touching is None:
            kept.append(name)
        elif not why:
            why = (f"{scop.statement(name).target}[...] is also accessed by the statement at "
                   f"line {touching.location.line}, which can touch the accumulator's element")
    return tuple(kept), why


def _touching(scop: Scop, same: isl.UnionMap, stmts: list[str],
              acc: Statement) -> Statement | None:
    """A statement of the body with an access, other than ``acc``'s own accumulator
    access, that can touch ``acc``'s element; None if there is none."""
    for name in stmts:
        st = scop.statement(name)
        for a in st.accesses:
            if a.target != acc.target or (name == acc.name and a.indices == acc.indices):
                continue
            if _may_touch(acc, a, same):
                return st
    return None


def reductions_in_registers(scop: Scop, accumulators: tuple[str, ...],
                            v: LoopVerdict) -> bool:
    """Every reduction the loop of verdict ``v`` carries is into the element of one of
    ``accumulators`` (held in a register, so a scalar reduction ``simd`` may reorder)."""
    targets = {scop.statement(s).target for s in accumulators}
    return bool(v.reductions) and {var_name(var) for _, var in v.reductions} <= targets


def check_licm(scop: Scop, deps: Dependences, tree: Node, loop_id: str,
               name: str) -> tuple[str, ...]:
    """The statements whose accumulators ``loop_id`` may keep in registers; else raise.

    When another access of the statement may touch the accumulator's element, the
    error carries the dependences between them that the loop carries.
    """
    stmts, why = _why_not(scop, tree, loop_id)
    if not stmts:
        broken = _aliasing(scop, deps, tree, loop_id)
        if broken:
            why += f"; a register copy would break the {describe(scop, broken[0], tree)}"
        raise IllegalTransformationError(f"licm on loop {name} is not possible: {why}", broken)
    return stmts


def _aliasing(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> tuple[Dependence, ...]:
    """Dependences carried by ``loop_id`` between a body statement's accumulator access
    and another access of the same array (what a register copy would miss)."""
    band, _, stmts = _body(tree, loop_id)
    if stmts is None:
        return ()
    targets = {scop.statement(x).target for x in stmts}

    def own(a: Access) -> bool:
        st = scop.statement(a.statement)
        return a.target == st.target and a.indices == st.indices

    tl = timeline(scop, tree)
    return tuple(
        d for d in deps.memory
        if d.source.statement in stmts and d.sink.statement in stmts and d.array in targets
        and not (d.source.statement == d.sink.statement and own(d.source) and own(d.sink))
        and not tl.carries(d.relation, band.dims[0].loop_id).is_empty()
    )
