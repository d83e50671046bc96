"""Which loops may run in parallel, and how code generation should run them.

A loop is *parallel* when it carries no memory-based dependence, once local
scalars that each iteration defines before it uses them are made private.  It
is *parallel as a reduction* when every dependence it carries is a
self-dependence of a reduction (``s += ...``), which OpenMP's ``reduction``
clause handles.  Otherwise it is *sequential*, and the verdict names the
dependences that force it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyopt.deps import Dependence, Dependences
from polyopt.model import Scop
from polyopt.schedule_tree import Band, LoopDim, LoopMark, Node, Sequence, loops
from polyopt.timeline import Timeline

PARALLEL = "parallel"
REDUCTION = "reduction"
SEQUENTIAL = "sequential"


@dataclass(frozen=True)
class LoopVerdict:
    loop_id: str
    label: str  # the loop in source terms: "i", or "i@12" when names repeat
    kind: str  # PARALLEL, REDUCTION or SEQUENTIAL
    blocking: tuple[Dependence, ...]  # what makes it sequential
    reductions: tuple[tuple[str, str], ...]  # (operator, variable)
    private: tuple[str, ...]
    firstprivate: tuple[str, ...]
    innermost: bool

    @property
    def vectorizable(self) -> bool:
        """An innermost loop that ``omp simd`` may vectorize (scalar reductions only)."""
        return self.innermost and not self.firstprivate and (
            self.kind == PARALLEL or (self.kind == REDUCTION and all(
                not _is_array_var(v) for _, v in self.reductions)))


def _is_array_var(v: str) -> bool:
    return v.startswith("[array]")


def loop_label(scop: Scop, dim: LoopDim) -> str:
    if dim.loop_id in scop.loops:
        return scop.loop_label(dim.loop_id)
    return dim.name


def verdicts(scop: Scop, deps: Dependences, tree: Node) -> dict[str, LoopVerdict]:
    """A verdict for every loop of ``tree``."""
    tl = Timeline(scop, tree)
    original = tree is scop.schedule
    out: dict[str, LoopVerdict] = {}
    for dim, path in loops(tree):
        inner = _innermost(dim, path)
        out[dim.loop_id] = _verdict(scop, deps, tl, dim, inner, original)
    return out


def _innermost(dim: LoopDim, path: tuple[Node, ...]) -> bool:
    band = path[-1]
    assert isinstance(band, Band)
    if band.dims[-1] is not dim:
        return False
    return not any(True for _ in loops(band.child))


def _carried(tl: Timeline, d: Dependence, loop_id: str, original: bool) -> bool:
    if original:
        return loop_id in d.carried_by
    return not tl.carries(d.relation, loop_id).is_empty()


def _verdict(scop: Scop, deps: Dependences, tl: Timeline, dim: LoopDim, innermost: bool,
             original: bool) -> LoopVerdict:
    loop_id = dim.loop_id
    inside = set(tl.positions[loop_id].statements)
    carried = [
        d for d in deps.memory
        if d.source.statement in inside and d.sink.statement in inside
        and _carried(tl, d, loop_id, original)
    ]
    private, firstprivate = _privatizable(scop, deps, tl, loop_id, inside, original)
    remaining = [d for d in carried if d.array not in private and d.array not in firstprivate]
    label = loop_label(scop, dim)
    if not remaining:
        return LoopVerdict(loop_id, label, PARALLEL, (), (), tuple(private), tuple(firstprivate),
                           innermost)
    blocking = tuple(d for d in remaining if not d.reduction)
    if not blocking:
        ops: dict[str, str] = {}
        for d in remaining:
            r = deps.reductions[d.source.statement]
            if ops.setdefault(r.target, r.op) != r.op:
                blocking = (d,)
                break
        if not blocking:
            reds = tuple(
                (op, f"[array]{t}" if t in scop.arrays else t) for t, op in sorted(ops.items())
            )
            return LoopVerdict(loop_id, label, REDUCTION, (), reds, tuple(private),
                               tuple(firstprivate), innermost)
    return LoopVerdict(loop_id, label, SEQUENTIAL, blocking, (), tuple(private),
                       tuple(firstprivate), innermost)


def _privatizable(scop, deps, tl, loop_id, inside, original) -> tuple[list[str], list[str]]:
    written = {scop.statement(s).target for s in inside} & scop.local_scalars
    private: list[str] = []
    firstprivate: list[str] = []
    returned = scop.returns.name if scop.returns and not scop.returns.is_array else None
    for x in sorted(written):
        if x == returned:
            continue
        flows = [d for d in deps.flow if d.array == x]
        if any(d.source.statement in inside and d.sink.statement not in inside for d in flows):
            continue  # its value is used after the loop
        if any(d.source.statement in inside and d.sink.statement in inside
               and _carried(tl, d, loop_id, original) for d in flows):
            continue  # one iteration reads what another wrote
        if any(d.source.statement not in inside and d.sink.statement in inside for d in flows):
            firstprivate.append(x)
        else:
            private.append(x)
    return private, firstprivate


def mark(scop: Scop, deps: Dependences, tree: Node, *, parallel: bool = True,
         vectorize: bool = True) -> Node:
    """``tree`` with OpenMP decisions on its loops: the outermost parallel loop of each
    nest gets ``parallel for`` (a reduction loop only where nothing is parallel),
    and vectorizable innermost loops get ``simd``."""
    v = verdicts(scop, deps, tree)
    return _mark(tree, v, parallel, vectorize, False)


def _has_parallel(node: Node, v: dict[str, LoopVerdict]) -> bool:
    return any(v[d.loop_id].kind == PARALLEL for d, _ in loops(node))


def _mark(node: Node, v: dict[str, LoopVerdict], parallel: bool, vectorize: bool,
          in_parallel: bool) -> Node:
    if isinstance(node, Sequence):
        return Sequence(tuple(_mark(c, v, parallel, vectorize, in_parallel) for c in node.children))
    if not isinstance(node, Band):
        return node
    dims: list[LoopDim] = []
    for k, d in enumerate(node.dims):
        verdict = v[d.loop_id]
        rest = Band(node.dims[k + 1:], node.child) if k + 1 < len(node.dims) else node.child
        m = LoopMark()
        if parallel and not in_parallel and (
            verdict.kind == PARALLEL
            or (verdict.kind == REDUCTION and not _has_parallel(rest, v))
        ):
            m = replace(m, parallel=True, reductions=_clauses(verdict),
                        private=verdict.private, firstprivate=verdict.firstprivate)
            in_parallel = True
        if vectorize and verdict.vectorizable:
            m = replace(m, simd=True, reductions=_clauses(verdict),
                        private=tuple(sorted(set(m.private) | set(verdict.private))))
        dims.append(d.with_mark(m))
    return Band(tuple(dims), _mark(node.child, v, parallel, vectorize, in_parallel), node.permutable)


def _clauses(verdict: LoopVerdict) -> tuple[tuple[str, str], ...]:
    return tuple((op, var.removeprefix("[array]")) for op, var in verdict.reductions)
