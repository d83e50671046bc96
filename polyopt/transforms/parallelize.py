"""Requests that change how a loop runs rather than its order: parallel, simd.

``parallelize("i")`` asks for ``#pragma omp parallel for`` on loop ``i``;
``vectorize("j")`` for ``#pragma omp simd``.  Both are refused, naming the
dependence, when the loop carries one (a reduction is accepted, with a
``reduction`` clause, unless ``strict_fp`` forbids reassociating floats).

Example: the outer loop of a prefix sum ::

    for i in range(1, n):
        x[i] += x[i - 1]          # flow dependence x[i] -> x[i-1], distance 1

cannot be parallelized; ``parallelize("i")`` raises IllegalTransformationError.
"""

from __future__ import annotations

from polyopt.deps import Dependences
from polyopt.errors import IllegalTransformationError
from polyopt.model import Scop
from polyopt.parallel import PARALLEL, REDUCTION, LoopVerdict, verdicts
from polyopt.report import describe
from polyopt.schedule_tree import Node


def _verdict(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> LoopVerdict:
    v = verdicts(scop, deps, tree)
    for lid, verdict in v.items():
        if lid == loop_id:
            return verdict
    from polyopt.transforms.tree import dim_of

    return v[dim_of(tree, loop_id).loop_id]


def check_parallel(scop: Scop, deps: Dependences, tree: Node, loop_id: str, name: str,
                   strict_fp: bool = False) -> LoopVerdict:
    v = _verdict(scop, deps, tree, loop_id)
    if v.kind == PARALLEL:
        return v
    if v.kind == REDUCTION:
        floats = [var for _, var in v.reductions
                  if scop.element_type(var.removeprefix("[array]")).is_float]
        if not (strict_fp and floats):
            return v
        raise IllegalTransformationError(
            f"parallelizing loop {name} would reassociate the floating-point reduction "
            f"into {', '.join(x.removeprefix('[array]') for x in floats)}, which strict_fp=True forbids",
            (),
        )
    d = v.blocking[0]
    raise IllegalTransformationError(
        f"loop {name} cannot run in parallel: it carries the {describe(scop, d)}", v.blocking
    )


def check_vectorize(scop: Scop, deps: Dependences, tree: Node, loop_id: str, name: str,
                    strict_fp: bool = False) -> LoopVerdict:
    v = check_parallel(scop, deps, tree, loop_id, name, strict_fp)
    if not v.innermost:
        raise IllegalTransformationError(
            f"loop {name} is not an innermost loop; only innermost loops are vectorized "
            "(interchange it inward first)", ())
    if not v.vectorizable:
        raise IllegalTransformationError(
            f"loop {name} reduces into an array element across iterations; apply licm({name!r}) "
            "so the accumulator is a scalar, then vectorize", ())
    return v
