"""Whether the values of an array stay inside one iteration of a loop, decided from
the memory-based dependences where they suffice (isl's dataflow took most of the
compile time of NumPy-style kernels, whose temporaries the verdicts ask about).

Each read instance reads the last write of its element before it.  One iteration of a
loop is a contiguous stretch of time, so when the reader's iteration wrote its element
before it, that write is later than any write of another iteration before the read,
and the last write is of the same iteration; when only other iterations did, it is
not::

    for r in range(n):          # tmp is written, then read, in every iteration of r:
        tmp[:] = 0.0            # each read has a write of its own iteration before it,
        tmp[:] += A[r] @ C      # so the values stay in the iteration, although the
        A[r] = tmp              # memory dependences run from one iteration to the next

This holds in the order of the tree asked about; the memory dependences are in the
scop's own order, so the answer comes from them only when the tree keeps every one of
the array's (then both orders put the same writes before each read, in the same order).
"""

from __future__ import annotations

import islpy as isl

from polyopt.analysis.dependences import Dependences, DepKind
from polyopt.analysis.timeline import Timeline
from polyopt.model.isl_budget import coalesce


def stay_by_memory(deps: Dependences, tl: Timeline, array: str, loop_id: str) -> bool | None:
    """Whether every value-based flow on ``array`` stays inside one iteration of
    ``loop_id`` of ``tl``; None when the memory-based dependences cannot tell (a write
    of ``array`` outside the loop, or ``tl`` reorders one of its dependences)."""
    scop = deps.scop
    inside = set(tl.positions[loop_id].statements)
    if any(s.write.target == array and s.name not in inside for s in scop.statements):
        return None
    on_array = [d for d in deps.memory if d.array == array]
    # the scop's own order keeps its dependences by definition
    if tl.tree is not scop.schedule and not all(tl.respects(d.relation) for d in on_array):
        return None
    same_iter = tl.same_prefix(loop_id, inclusive=True)
    for s in scop.statements:
        for r in s.reads:
            if r.target != array:
                continue
            flows = [d.relation for d in on_array if d.kind is DepKind.FLOW and d.sink is r]
            if not flows:
                continue
            if s.name not in inside:
                return False  # read after the loop: its value comes from the loop
            space = r.relation.domain().get_space()
            sourced, near = isl.Set.empty(space), isl.Set.empty(space)
            for rel in flows:
                sourced = sourced.union(rel.range())
                mine = isl.UnionMap.from_map(rel).intersect(same_iter)
                near = near.union(mine.extract_map(rel.get_space()).range())
            if not coalesce(sourced).is_subset(coalesce(near)):
                return False
    return True
