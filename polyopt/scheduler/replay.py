"""Replaying a user schedule: its steps applied in order to the program as written, with
the parallel, simd and licm requests they make checked again after every step that
changes the loops (the steps themselves are in :mod:`polyopt.scheduler.steps`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from polyopt.analysis.dependences import Dependences
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import Node, loops
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.licm import check_licm
from polyopt.transforms.parallelize import check_parallel, check_vectorize
from polyopt.transforms.tree import dim_of, normalize

if TYPE_CHECKING:
    from polyopt.scheduler.steps import Step

#: what a user asks of a loop without changing the loops (the kinds of :class:`Requests`)
RequestKind = Literal["parallel", "simd", "licm"]


@dataclass(frozen=True)
class Requests:
    """Loop ids the user asked to run in parallel, vectorize, or LICM."""

    parallel: frozenset[str] = frozenset()
    simd: frozenset[str] = frozenset()
    licm: frozenset[str] = frozenset()
    used: frozenset[RequestKind] = field(default_factory=frozenset)  # the kinds requested

    def adding(self, kind: RequestKind, loop_id: str) -> Requests:
        """These requests and ``kind`` for ``loop_id``."""
        parallel, simd, licm = self.parallel, self.simd, self.licm
        if kind == "parallel":
            parallel = parallel | {loop_id}
        elif kind == "simd":
            simd = simd | {loop_id}
        else:
            licm = licm | {loop_id}
        return Requests(parallel, simd, licm, self.used | {kind})


@dataclass(frozen=True)
class Source:
    """What the steps apply to: the program as written, its dependences, and whether
    floating-point reductions must keep their order (``strict_fp``)."""

    scop: Scop
    deps: Dependences
    strict_fp: bool = False

    def loop_id(self, tree: Node, name: str) -> str:
        return resolve(self.scop, tree, name)



def resolve(scop: Scop, tree: Node, name: str) -> str:
    """The loop id a user's name refers to in ``tree``."""
    found: list[str] = []
    for dim, _ in loops(tree):
        names = {dim.loop_id, loop_label(scop, dim), *dim.aliases}
        names |= {scop.loop_label(a) for a in dim.aliases if a in scop.loops}
        if dim.loop_id in scop.loops:
            lp = scop.loops[dim.loop_id]
            names.add(lp.label(ambiguous=True))
        names |= {user_text(n) for n in names}  # a renamed iterator by the user's name
        if name in names:
            found.append(dim.loop_id)
    if len(found) == 1:
        return found[0]
    labels = ", ".join(step_names(scop, tree))
    if not found:
        raise PolyoptError(f"no loop named {name!r}; the loops are: {labels}")
    raise PolyoptError(f"{name!r} names several loops; use one of: {labels}")


def step_names(scop: Scop, tree: Node) -> list[str]:
    """The loops of ``tree``, outermost first, each by a name that steps resolve to it
    alone: its label, or its id where loops share the label (the automatic schedule's
    packing copies run a ``k`` loop each beside gemm's own ``k``)."""
    dims = [dim for dim, _ in loops(tree)]
    labels = [user_text(loop_label(scop, dim)) for dim in dims]
    return [dim.loop_id if labels.count(label) > 1 else label
            for dim, label in zip(dims, labels, strict=True)]


def replay(scop: Scop, deps: Dependences, steps: tuple[Step, ...],
           strict_fp: bool = False, base: Node | None = None
           ) -> tuple[Source, Node, Requests]:
    """Apply ``steps`` to ``scop``'s source order (or to ``base``, the automatic schedule
    of ``polyopt.schedule(fn, start="auto")``), checking each one (``strict_fp``:
    refuse running a floating-point reduction in parallel or in SIMD lanes).  Returns
    the program the last step left (a reduction interchange makes a new one, whose own
    order is its tree), with the tree and the requests."""
    at = Source(scop, deps, strict_fp)
    tree = normalize(scop.schedule) if base is None else base
    req = Requests()
    for step in steps:
        at, tree, req = apply_step(at, tree, req, step)
    return at, tree, req


def apply_step(at: Source, tree: Node, req: Requests,
               step: Step) -> tuple[Source, Node, Requests]:
    """The program, ``tree`` and ``req`` after ``step``.  A step that changes the loops
    must also keep every earlier parallel, simd and licm request valid."""
    new_at, new_tree, new_req = step.rewrite(at, tree, req)
    if step.structural and new_req.used:
        new_req = _recheck(new_at, new_tree, new_req, step)
    return new_at, new_tree, new_req


def _recheck(at: Source, tree: Node, req: Requests, step: Step) -> Requests:
    """``req`` with its loop ids as ``tree`` knows them (fusion makes the second loop's id
    an alias of the first), each request checked again on ``tree``."""
    def canonical(ids: frozenset[str]) -> frozenset[str]:
        return frozenset(dim_of(tree, x).loop_id for x in ids)

    def label(loop_id: str) -> str:
        return loop_label(at.scop, dim_of(tree, loop_id))

    req = Requests(canonical(req.parallel), canonical(req.simd), canonical(req.licm), req.used)
    scop, deps = at.scop, at.deps
    try:
        for lid in sorted(req.parallel):
            check_parallel(scop, deps, tree, lid, label(lid), at.strict_fp)
        for lid in sorted(req.licm):
            check_licm(scop, deps, tree, lid, label(lid))
        for lid in sorted(req.simd):
            check_vectorize(scop, deps, tree, lid, label(lid), at.strict_fp,
                            scalar_replaced=lid in req.licm)
    except IllegalTransformationError as exc:
        raise IllegalTransformationError(
            f"{str(step).lstrip('.')} breaks an earlier request: {exc}", exc.violated) from None
    return req


