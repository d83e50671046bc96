"""Whether an array's values stay in one iteration of a loop, from the memory-based
dependences (polyopt.analysis.iteration_flows), against isl's value-based flows."""

from __future__ import annotations

from dataclasses import replace

import islpy as isl
import pytest
from polyopt.frontends.python import parse_function

from polyopt.analysis.dependences import analyze
from polyopt.analysis.iteration_flows import stay_by_memory
from polyopt.analysis.timeline import timeline
from polyopt.model.schedule_tree import Band, Sequence, loops


def written_then_read(A, tmp):
    for r in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[j] = A[r, j] * 2.0
        for j in range(A.shape[1]):
            A[r, j] = tmp[j] + 1.0


def read_then_written(A, tmp):
    for r in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[r, j] = tmp[j]  # the previous iteration's values
        for j in range(A.shape[1]):
            tmp[j] = A[r, j] * 2.0


def one_element_rewritten(A, tmp):
    for r in range(A.shape[0]):
        tmp[0] = 1.0  # tmp[1:] still holds the previous iteration's values
        for j in range(A.shape[1]):
            A[r, j] = tmp[j]
        for j in range(A.shape[1]):
            tmp[j] = A[r, j] * 2.0


def read_after_the_loop(A, tmp):
    for r in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[j] = A[r, j] * 2.0
        for j in range(A.shape[1]):
            A[r, j] = tmp[j]
    for j in range(A.shape[1]):
        A[0, j] += tmp[j]


def _outer(tree):
    return next(dim.loop_id for dim, _ in loops(tree))


def _by_dataflow(deps, tl, array, loop_id):
    same_iter = tl.same_prefix(loop_id, inclusive=True)
    return all(isl.UnionMap.from_map(d.relation).is_subset(same_iter)
               for d in deps.flow_on(array))


@pytest.mark.parametrize("fn, stays", [
    (written_then_read, True), (read_then_written, False),
    (one_element_rewritten, False), (read_after_the_loop, False),
])
def test_agrees_with_the_value_based_flows(fn, stays):
    scop = parse_function(fn, None)
    deps = analyze(scop)
    tl = timeline(scop, scop.schedule)
    loop = _outer(scop.schedule)
    assert stay_by_memory(deps, tl, "tmp", loop) is stays
    assert _by_dataflow(deps, tl, "tmp", loop) is stays


def test_inner_loops_of_a_staying_array():
    """Inside one iteration of r, tmp's values leave the j loop that writes them (for the
    other j loop); the reading j loop's own iterations write none of tmp: not decided."""
    scop = parse_function(written_then_read, None)
    deps = analyze(scop)
    tl = timeline(scop, scop.schedule)
    writing, reading = [dim.loop_id for dim, _ in loops(scop.schedule)][1:3]
    assert stay_by_memory(deps, tl, "tmp", writing) is False
    assert _by_dataflow(deps, tl, "tmp", writing) is False
    assert stay_by_memory(deps, tl, "tmp", reading) is None


def test_a_tree_that_reorders_the_arrays_dependences_is_not_decided():
    scop = parse_function(written_then_read, None)
    deps = analyze(scop)
    band = scop.schedule if isinstance(scop.schedule, Band) else None
    assert band is not None and isinstance(band.child, Sequence)
    swapped = replace(band, child=replace(band.child, children=band.child.children[::-1]))
    tl = timeline(scop, swapped)
    assert stay_by_memory(deps, tl, "tmp", _outer(swapped)) is None
