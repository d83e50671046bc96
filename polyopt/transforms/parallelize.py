"""Requests that change how a loop runs rather than its order: parallel, simd.

``parallelize("i")`` asks for ``#pragma omp parallel for`` on loop ``i``;
``vectorize("j")`` for ``#pragma omp simd``.  Both are refused, naming the
dependence, when the loop carries one (a reduction is accepted, with a
``reduction`` clause, unless ``strict_fp`` forbids reassociating floats).

Before and after ``parallelize("i")`` on an element-wise nest::

    for i in range(n):                       # omp parallel for
        for j in range(m):          ==>      for i in range(n):
            C[i, j] = A[i, j] * 2.0              for j in range(m):
                                                     C[i, j] = A[i, j] * 2.0

The outer loop of a prefix sum ::

    for i in range(1, n):
        x[i] += x[i - 1]          # flow dependence x[i] -> x[i-1], distance 1

cannot be parallelized; ``parallelize("i")`` raises IllegalTransformationError.
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.analysis.legality import user_arrays_first
from polyopt.analysis.timeline import timeline
from polyopt.analysis.verdicts import PARALLEL, REDUCTION, LoopVerdict, loop_verdict, var_name
from polyopt.model.errors import IllegalTransformationError
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Scop
from polyopt.transforms.licm import invariant_accumulators, reductions_in_registers
from polyopt.transforms.tree import dim_of


def _verdict(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> LoopVerdict:
    return loop_verdict(scop, deps, tree, dim_of(tree, loop_id).loop_id)


def _carried_reductions(scop: Scop, deps: Dependences, tree: Node,
                        loop_id: str) -> tuple[Dependence, ...]:
    """The reduction self-dependences ``loop_id`` carries (what a parallel run reorders)."""
    tl = timeline(scop, tree)
    lid = dim_of(tree, loop_id).loop_id
    return tuple(d for d in deps.memory
                 if d.reduction and not tl.carries(d.relation, lid).is_empty())


def check_parallel(scop: Scop, deps: Dependences, tree: Node, loop_id: str, name: str,
                   strict_fp: bool = False, how: str = "run in parallel",
                   copies: bool = True) -> LoopVerdict:
    """The loop's verdict, if it may run in parallel (a reduction only without ``strict_fp``
    when it reduces floats); else raise, naming the dependence.  ``copies=False``: its
    array reductions need no copy per thread (``simd`` through a register accumulator)."""
    v = _verdict(scop, deps, tree, loop_id)
    if v.kind == PARALLEL:
        return v
    if v.copies_unsafe and copies:
        x = v.copies_unsafe[0]
        raise IllegalTransformationError(
            f"loop {name} cannot {how}: each thread would reduce into its own copy of {x}, "
            f"and the loop also reads or writes {x} otherwise",
            tuple(d for d in v.blocking if d.array == x))
    if v.kind == REDUCTION or v.copies_unsafe:
        floats = [var for _, var in v.reductions
                  if scop.element_type(var_name(var)).is_float]
        if not (strict_fp and floats):
            return v
        raise IllegalTransformationError(
            f"loop {name} cannot {how}: that would reassociate the floating-point reduction "
            f"into {', '.join(var_name(x) for x in floats)}, which strict_fp=True "
            "forbids",
            _carried_reductions(scop, deps, tree, loop_id),
        )
    blocking = user_arrays_first(scop, v.blocking)
    raise IllegalTransformationError(
        f"loop {name} cannot {how}: it carries the {describe(scop, blocking[0], tree)}",
        tuple(blocking)
    )


def check_vectorize(scop: Scop, deps: Dependences, tree: Node, loop_id: str, name: str,
                    strict_fp: bool = False, scalar_replaced: bool = False) -> LoopVerdict:
    """The verdict of an innermost loop that ``omp simd`` may run.

    ``scalar_replaced``: the loop's invariant accumulators are kept in registers
    (LICM), so reductions into those array elements are scalar reductions.
    """
    v = check_parallel(scop, deps, tree, loop_id, name, strict_fp, "be vectorized",
                       copies=False)
    if not v.innermost:
        raise IllegalTransformationError(
            f"loop {name} is not an innermost loop; only innermost loops are vectorized "
            "(interchange it inward first)", ())
    if not v.vectorizable and not (scalar_replaced and not v.firstprivate
                                   and reductions_in_registers(
                                       scop, invariant_accumulators(scop, tree, loop_id), v)):
        raise IllegalTransformationError(
            f"loop {name} reduces into an array element across iterations; apply licm({name!r}) "
            "so the accumulator is a scalar, then vectorize", ())
    return v

