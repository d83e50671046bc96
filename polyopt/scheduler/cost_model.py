"""The scheduler's cost model: how well a loop order uses the cache.

An access's *stride* in a loop says how its address moves when the loop steps::

    for i: for j:
        C[i, j] += A[i, k] * B[k, j]    # in j: C and B unit, A invariant
                                        # in i: C and A strided (a row apart), B invariant

The innermost loop should be unit stride or invariant; loop order, fusion and
tiling compare the scores below.  An outer parallel loop is worth more than any
stride difference (``PARALLEL_BONUS``).
"""

from __future__ import annotations

from enum import Enum

from polyopt.model.schedule_tree import LoopDim, Node, statements
from polyopt.model.scop import Access, Scop
from polyopt.scheduler.nests import iterator_of, loops_around

PARALLEL_BONUS = 1000  # an outer parallel loop outweighs any stride difference
REDUCTION_BONUS = 200  # an outer loop that runs in parallel as a reduction
L2_BYTES = 1 << 20


class Stride(Enum):
    """How an access moves when one loop steps."""

    INVARIANT = "invariant"  # not at all
    UNIT = "unit"  # to the next element of a row
    STRIDED = "strided"  # across rows, or by more than one element

    @property
    def score(self) -> int:
        return _STRIDE_SCORE[self]


_STRIDE_SCORE = {Stride.INVARIANT: 5, Stride.UNIT: 10, Stride.STRIDED: -20}


def access_stride(a: Access, v: str) -> Stride:
    """How access ``a`` moves when iterator ``v`` steps."""
    uses = [ix.coeff(v) for ix in a.indices]
    if not any(uses):
        return Stride.INVARIANT
    if abs(uses[-1]) == 1 and not any(uses[:-1]):
        return Stride.UNIT
    return Stride.STRIDED


def statement_stride(scop: Scop, dim: LoopDim, stmt: str) -> int:
    """The stride score of ``stmt``'s array accesses in loop ``dim``."""
    v = iterator_of(dim, stmt)
    if v is None:
        return 0
    return sum(access_stride(a, v).score for a in scop.statement(stmt).accesses if a.indices)


def stride_score(scop: Scop, dim: LoopDim) -> int:
    """How well ``dim`` suits the innermost position: unit-stride and invariant accesses
    score, strided ones cost."""
    return sum(statement_stride(scop, dim, stmt) for stmt, _ in dim.exprs)


def innermost_strides(scop: Scop, tree: Node) -> dict[str, int]:
    """Each statement's stride score in its innermost loop."""
    out: dict[str, int] = {}
    for stmt in statements(tree):
        around = loops_around(tree, stmt)
        if around:
            out[stmt] = statement_stride(scop, around[-1], stmt)
    return out


def stride_improves(scop: Scop, before: Node, after: Node) -> bool:
    """Some statement's innermost loop has a better stride in ``after``."""
    old, new = innermost_strides(scop, before), innermost_strides(scop, after)
    return any(new[s] > old.get(s, new[s]) for s in new)


def sweeps_rows(scop: Scop, dim: LoopDim, stmt: str) -> bool:
    """An access of ``stmt`` moves across rows (or by more than one element) as ``dim``
    steps."""
    v = iterator_of(dim, stmt)
    return v is not None and any(a.indices and access_stride(a, v) is Stride.STRIDED
                                 for a in scop.statement(stmt).accesses)


def sweeps_rows_among(scop: Scop, tree: Node, stmts: list[str]) -> bool:
    """Some statement of ``stmts`` sweeps an array across rows in its innermost loop."""
    return any(sweeps_rows(scop, around[-1], s)
               for s in stmts if (around := loops_around(tree, s)))


def keeps_target(scop: Scop, dim: LoopDim) -> bool:
    """Every statement's written element is invariant in ``dim`` (a reduction loop)."""
    for stmt, _ in dim.exprs:
        v = iterator_of(dim, stmt)
        st = scop.statement(stmt)
        if v is None or any(ix.coeff(v) for ix in st.indices):
            return False
    return True


def reuse_spans(scop: Scop, tree: Node, dims: list[LoopDim]) -> list[int]:
    """For each access invariant in a non-innermost loop of the chain ``dims``: how many
    loops inside that one (in the chain or below it) it varies with (2 for matmul's
    ``B[k, j]`` across ``i``, and for nussinov's ``table[k + 1, j]`` across ``i``, ``k``
    being a loop under the chain ``i, j``)."""
    out = []
    for stmt, _ in dims[0].exprs:  # every loop of a chain runs the same statements
        around = loops_around(tree, stmt)
        ids = [d.loop_id for d in around]
        for dim in dims[:-1]:
            v = iterator_of(dim, stmt)
            if v is None:
                continue
            inner = {w for d in around[ids.index(dim.loop_id) + 1:]
                     if (w := iterator_of(d, stmt)) is not None}
            for a in scop.statement(stmt).accesses:
                if a.indices and not any(ix.coeff(v) for ix in a.indices):
                    out.append(len({w for w in inner if any(ix.coeff(w) for ix in a.indices)}))
    return out


def cache_tile_side(scop: Scop, depth: int) -> int:
    """The side of the square tiles of a ``depth``-deep band: the largest power of two
    from 16 with ``min(depth, 3) * (2 * side) ** 2`` elements in at most half of L2."""
    elem = max((scop.element_type(s.target).bits // 8 for s in scop.statements), default=8)
    depth = min(depth, 3)
    side = 16
    while depth * (2 * side) ** 2 * elem <= L2_BYTES // 2:
        side *= 2
    return side
