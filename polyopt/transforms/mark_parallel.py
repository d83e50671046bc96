"""Mark the loops of a schedule tree with OpenMP decisions: parallel for, simd,
reduction clauses, private copies and register accumulators.

The marks change how loops run, never their order, and each follows the loop's
verdict (:mod:`polyopt.analysis.verdicts`): a loop that carries a dependence gets
no mark that would reorder it.  Before and after, for a row sum::

    for i in range(n):                        # omp parallel for
        s[i] = 0.0                            for i in range(n):
        for j in range(m):          ==>           s[i] = 0.0
            s[i] += A[i, j]                       acc = s[i]
                                                  # omp simd reduction(+:acc)
                                                  for j in range(m):
                                                      acc += A[i, j]
                                                  s[i] = acc

while a prefix sum's ``x[i] += x[i - 1]`` keeps its loop unmarked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.verdicts import (
    PARALLEL,
    REDUCTION,
    SEQUENTIAL,
    LazyVerdicts,
    LoopVerdict,
    is_array_var,
    var_name,
)
from polyopt.model.aff import FloorDiv, Lin
from polyopt.model.isl_text import make_map
from polyopt.model.schedule_tree import Band, LoopDim, LoopMark, Node, Sequence, loops
from polyopt.model.scop import Scop
from polyopt.transforms.licm import invariant_accumulators, reductions_in_registers


def mark(scop: Scop, deps: Dependences, tree: Node, *, parallel: bool = True,
         vectorize: bool = True, licm: bool = True, strict_fp: bool = False,
         array_copies: bool = True, copyable: frozenset[str] = frozenset(),
         only_parallel: frozenset[str] | None = None,
         only_simd: frozenset[str] | None = None,
         only_licm: frozenset[str] | None = None) -> Node:
    """``tree`` with OpenMP decisions on its loops.

    Automatically, the outermost parallel loop of each nest gets ``parallel for``
    (a reduction loop only where nothing is parallel), vectorizable innermost
    loops get ``simd``, and innermost loops with an invariant accumulator keep it
    in a register.  The ``only_*`` sets (loop ids a user asked for) replace the
    automatic choice for that decision.  Without ``array_copies``, a loop gets per-thread
    copies only of the ``copyable`` arrays, and of no array it reduces into.
    """
    v = LazyVerdicts(scop, deps, tree)
    ctx = _MarkCtx(scop, tree, v, parallel, vectorize, licm, strict_fp, only_parallel, only_simd,
                   only_licm, array_copies, copyable)
    return ctx.node(tree, False)


def _iterates_tiles(d: LoopDim) -> bool:
    """Every iteration of ``d`` is a block of at least 16 (a tile or wavefront loop).

    Such loops are dealt out one iteration at a time (``schedule(dynamic, 1)``, see
    backend_c/pragma.py): the ragged last tile and triangular domains then spread over
    the team, and a tile is too large for two threads to share a cache line at its
    edges."""
    return all(e.terms and all(isinstance(a, FloorDiv) and a.den >= 16 for a, _ in e.terms)
               for _, e in d.exprs)


@dataclass
class _MarkCtx:
    scop: Scop
    tree: Node
    v: LazyVerdicts  # asked only where a mark depends on the verdict
    parallel: bool
    vectorize: bool
    licm: bool
    strict_fp: bool
    only_parallel: frozenset[str] | None
    only_simd: frozenset[str] | None
    only_licm: frozenset[str] | None
    array_copies: bool = True  # heap copies per thread (private arrays, array reductions)
    copyable: frozenset[str] = frozenset()  # private arrays allowed without array_copies

    def _reassociates(self, verdict: LoopVerdict) -> bool:
        return self.strict_fp and any(
            self.scop.element_type(var_name(var)).is_float
            for _, var in verdict.reductions)

    def _reorders_nan(self, verdict: LoopVerdict, requested: frozenset[str] | None,
                      loop_id: str) -> bool:
        """A float ``min``/``max`` reduction that the loop would run in another order,
        unasked (a ``prange`` or a user's step asks).  CPython's ``max(e, m)`` is ``e``
        unless ``m > e``: a NaN ``e`` becomes ``m`` and the next element replaces it,
        and a NaN first value of ``m`` stays; run in lanes or threads, the NaN goes or
        another one stays.  Not rounding: another answer (hostile session 36b)."""
        return (requested is None or loop_id not in requested) and any(
            op in ("min", "max") and self.scop.element_type(var_name(var)).is_float
            for op, var in verdict.reductions)

    def node(self, node: Node, in_parallel: bool, enclosed: int = 0,
             outer: tuple[LoopDim, ...] = ()) -> Node:
        """Marks for ``node``; ``enclosed`` counts the sequential loops around it, ``outer``
        are the loops around it."""
        if isinstance(node, Sequence):
            return Sequence(tuple(self.node(c, in_parallel, enclosed, outer)
                                  for c in node.children))
        if not isinstance(node, Band):
            return node
        dims: list[LoopDim] = []
        for k, d in enumerate(node.dims):
            m = LoopMark(unroll=d.mark.unroll, separate=d.mark.separate, atomic=d.mark.atomic,
                         ranged=d.mark.ranged)
            innermost = self.v.innermost(d.loop_id)
            if in_parallel and not innermost and d.mark == m:
                dims.append(d)  # it gets no mark, whether or not it is a loop in the C
                continue
            if _single_iteration(self.scop, d, (*outer, *node.dims[:k])):
                dims.append(d)  # no loop in the C: a mark would claim one in the report
                continue
            rest = _rest(node, k)
            if self._wants_parallel(d, rest, in_parallel, enclosed):
                verdict = self.v[d.loop_id]
                m = replace(m, parallel=True, reductions=_clauses(verdict),
                            private=verdict.private, firstprivate=verdict.firstprivate,
                            round_robin=_iterates_tiles(d),
                            private_arrays=verdict.private_arrays,
                            scratch_arrays=verdict.scratch_arrays)
                in_parallel = True
            elif not in_parallel:
                enclosed += 1
            if not innermost:
                # register accumulators and simd are for innermost loops only
                dims.append(d.with_mark(m))
                continue
            verdict = self.v[d.loop_id]
            accumulators = self._licm_statements(d, verdict)
            if accumulators:
                m = replace(m, scalar_replace=True, accumulators=accumulators)
            if self._wants_simd(d, verdict, accumulators):
                m = replace(m, simd=True, reductions=_clauses(verdict),
                            private=tuple(sorted(set(m.private) | set(verdict.private))))
            dims.append(d.with_mark(m))
        return Band(tuple(dims), self.node(node.child, in_parallel, enclosed,
                                           (*outer, *node.dims)), node.permutable)

    def _wants_parallel(self, d: LoopDim, rest: Node, in_parallel: bool,
                        enclosed: int = 0) -> bool:
        if not self.parallel or in_parallel:
            return False
        verdict = self.v[d.loop_id]
        if verdict.kind == SEQUENTIAL:
            return False
        if self.only_parallel is None and enclosed > 0 and (
                verdict.kind == REDUCTION
                or not _has_loop(rest)):
            # a parallel region per iteration of the loops around costs more than a
            # reduction or a single loop of statements saves (docs/design/transforms.md)
            return False
        if self._reassociates(verdict) or self._reorders_nan(verdict, self.only_parallel,
                                                             d.loop_id):
            return False
        if not self.array_copies and (
                any(a not in self.copyable for a in verdict.private_arrays)
                or any(is_array_var(var) for _, var in verdict.reductions)):
            # the per-thread copies live on the heap (emit._private_arrays_loop): OpenMP's
            # `reduction(op: A[0:size])` puts them on each thread's stack, which a large
            # array overflows (SIGSEGV)
            return False
        if self.only_parallel is not None:
            return d.loop_id in self.only_parallel
        return verdict.kind == PARALLEL or not _has_parallel(rest, self.v)

    def _licm_statements(self, d: LoopDim, verdict: LoopVerdict) -> tuple[str, ...]:
        """The statements whose accumulators the loop keeps in registers."""
        if not verdict.innermost:
            return ()
        if self.only_licm is not None:
            if d.loop_id not in self.only_licm:
                return ()
        elif not self.licm:
            return ()
        stmts = invariant_accumulators(self.scop, self.tree, d.loop_id)
        if any(self.scop.statement(s).target in verdict.private_arrays for s in stmts):
            # each thread writes its own copy, copied back from the last iteration's: one
            # register for every thread's writes would lose that (a race on the scalar)
            return ()
        return stmts

    def _wants_simd(self, d: LoopDim, verdict: LoopVerdict, replaced: tuple[str, ...]) -> bool:
        if not self.vectorize or self._reassociates(verdict) or self._reorders_nan(
                verdict, self.only_simd, d.loop_id):
            return False
        if self.only_simd is not None and d.loop_id not in self.only_simd:
            return False
        if verdict.vectorizable:
            return True
        # array reductions become scalar ones once their accumulators are in registers
        return ((verdict.kind == REDUCTION or bool(verdict.copies_unsafe))
                and reductions_in_registers(self.scop, replaced, verdict)
                and not verdict.firstprivate)


def _single_iteration(scop: Scop, d: LoopDim, outer: tuple[LoopDim, ...]) -> bool:
    """``d`` runs one iteration per iteration of the loops around it, for every statement
    in it: the printed C has no loop there, so a mark would claim one in the report.
    isl's scheduler gives a statement of fewer loops such a dimension (cholesky's
    ``A[i, j] /= A[j, j]`` under a time-tiled band ``i, j, k`` has ``j`` again for
    ``k``), and index-set splitting a piece on the pivot (floyd-warshall's ``i == k``)."""
    return bool(d.exprs) and all(_fixed(scop, stmt, e, outer) for stmt, e in d.exprs)


def _fixed(scop: Scop, stmt: str, e: Lin, outer: tuple[LoopDim, ...]) -> bool:
    """``e`` takes one value for each value of the loops ``outer`` around ``stmt``."""
    around = tuple(o.expr(stmt) for o in outer if any(s == stmt for s, _ in o.exprs))
    if e.is_constant() or any(a.terms == e.terms for a in around):
        return True
    st = scop.statement(stmt)
    loops_map = make_map(scop.params, stmt, st.iterators, "", around).intersect_domain(st.domain)
    d_map = make_map(scop.params, stmt, st.iterators, "", (e,)).intersect_domain(st.domain)
    return bool(loops_map.reverse().apply_range(d_map).is_single_valued())


def _clauses(verdict: LoopVerdict) -> tuple[tuple[str, str], ...]:
    return tuple((op, var_name(var)) for op, var in verdict.reductions)


def _has_parallel(node: Node, v: LazyVerdicts) -> bool:
    """A parallel loop below would get a region of its own inside this loop: one with a
    loop nested in it (a single loop of statements, inside a loop that does not run in
    parallel, is left serial: ``_wants_parallel``)."""
    for d, path in loops(node):
        band = path[-1]
        assert isinstance(band, Band)
        if v[d.loop_id].kind == PARALLEL and _has_loop(_rest(band, band.dims.index(d))):
            return True
    return False


def _rest(band: Band, k: int) -> Node:
    """What runs inside the ``k``-th loop of ``band``."""
    return Band(band.dims[k + 1:], band.child) if k + 1 < len(band.dims) else band.child


def _has_loop(node: Node) -> bool:
    """A loop that is not fully unrolled runs in ``node``."""
    return any(not x.mark.unroll for x, _ in loops(node))
