"""Loop alignment: shift some statements of a loop by constants so that the loop
carries no dependence, instead of distributing it.

A time-tiled jacobi-2d row, as isl's scheduler leaves it (``A`` is shifted by one
column so that the whole band is permutable), carries a dependence: ``A[i-1, j-1]``
reads ``B[i, j-1]``, written one iteration earlier::

    for c in range(1, n):                    # B at j = c, A at j = c - 1
        B[i, c] = f(A[.., c-1 : c+2])
        A[i-1, c-1] = g(B[i-2 : i+1, c-1], B[i-1, c-2 : c+1])

Aligning ``A`` back by one column (``align(.., {"A stmt": -1})``) puts every
remaining dependence inside one iteration, so the loop is parallel and vectorizes
with both statements in it: the new ``B[i, j]`` is still in a register when ``A``
reads it, and the row is swept once instead of twice::

    for j in range(1, n - 1):                # parallel: omp simd
        B[i, j] = f(A[.., j-1 : j+2])
        A[i-1, j] = g(B[i-2 : i+1, j], B[i-1, j-1 : j+2])

Only the loop's own expressions change; every dependence is checked against the
whole new schedule.  :func:`parallel_alignment` finds the shifts: each dependence
between two statements that the loop's enclosing loops do not carry must have one
constant distance at the loop, and the shifts cancel those distances.
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.analysis.dependences import Dependence, Dependences
from polyopt.analysis.describe import describe
from polyopt.analysis.legality import require_legal
from polyopt.analysis.timeline import timeline
from polyopt.model import names
from polyopt.model.aff import Lin
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.schedule_tree import Band, Node
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.tree import at, dim_of, find, replace_at


def align(scop: Scop, deps: Dependences | None, tree: Node, loop: str,
          shifts: dict[str, int]) -> Node:
    """Loop ``loop`` runs statement ``s`` at its old value plus ``shifts[s]``."""
    path = find(tree, loop)
    band = at(tree, path)
    assert isinstance(band, Band)
    k = next(k for k, d in enumerate(band.dims) if d.answers_to(loop))
    dim = band.dims[k]
    inside = {s for s, _ in dim.exprs}
    unknown = sorted(set(shifts) - inside)
    if unknown:
        raise PolyoptError(f"statements {', '.join(unknown)} are not in loop "
                           f"{loop_label(scop, dim)}")
    exprs = tuple((s, e + Lin.constant(shifts.get(s, 0))) for s, e in dim.exprs)
    dims = list(band.dims)
    dims[k] = replace(dim, exprs=exprs, mark=replace(dim.mark, separate=True))
    result = replace_at(tree, path, replace(band, dims=tuple(dims), permutable=False))
    result = _separate_enclosing(result, path, k)
    if deps is not None:
        moved = ", ".join(f"{s} by {v:+d}" for s, v in sorted(shifts.items()) if v)
        require_legal(scop, deps, result,
                      f"aligning loop {loop_label(scop, dim)} ({moved or 'no shift'})")
    return result


def _separate_enclosing(tree: Node, path: tuple[int, ...], k: int) -> Node:
    """The aligned loop and the loop just outside it are generated in pieces that each
    run one fixed set of their statements (the edge rows of a tile run only one of them;
    fdtd-2d's statements start and end on different columns), so that no guard is left
    inside the aligned loop: a guard there stops gcc vectorizing it."""
    if k == 0:  # the loop outside is the last of the nearest band above
        cuts = [c for c in range(len(path)) if isinstance(at(tree, path[:c]), Band)]
        if not cuts:
            return tree
        path = path[:cuts[-1]]
        outer = at(tree, path)
        assert isinstance(outer, Band)
        k = len(outer.dims)
    band = at(tree, path)
    assert isinstance(band, Band)
    dims = list(band.dims)
    dims[k - 1] = replace(dims[k - 1], mark=replace(dims[k - 1].mark, separate=True))
    return replace_at(tree, path, replace(band, dims=tuple(dims)))


def parallel_alignment(scop: Scop, deps: Dependences, tree: Node, loop: str) -> dict[str, int]:
    """Per-statement shifts of ``loop`` that bring every dependence its enclosing loops
    do not carry to distance 0 at it (all zero when it carries none).

    Raises :class:`IllegalTransformationError` naming the dependence (and holding it in
    ``.violated``) when no shifts do: its distance at the loop is not one constant, or
    two dependences ask for different shifts."""
    tl = timeline(scop, tree)
    dim = dim_of(tree, loop)
    inside = {s for s, _ in dim.exprs}
    same = tl.same_prefix(dim.loop_id, False)
    edges: list[tuple[str, str, int, Dependence]] = []
    for d in deps.memory:
        src, dst = d.source.statement, d.sink.statement
        if src not in inside or dst not in inside or d.array not in scop.arrays:
            continue  # scalars: privatization, not distance, decides them
        rel = d.relation.intersect(same.extract_map(d.relation.get_space()))
        if rel.is_empty():
            continue
        lo, hi = names.dim_bounds(tl.distance(rel, [dim.loop_id]), 0)
        if lo is None or lo != hi:
            raise IllegalTransformationError(
                f"no shift aligns loop {loop_label(scop, dim)}: the {describe(scop, d)} has "
                "no single distance in it", (d,))
        if src == dst and lo != 0:
            raise IllegalTransformationError(
                f"no shift aligns loop {loop_label(scop, dim)}: the {describe(scop, d)} is "
                "carried by it from a statement to itself", (d,))
        edges.append((src, dst, lo, d))
    return _solve(scop, loop_label(scop, dim), edges, sorted(inside))


def _solve(scop: Scop, label: str, edges: list[tuple[str, str, int, Dependence]],
           stmts: list[str]) -> dict[str, int]:
    """Shifts with ``shift[dst] - shift[src] == -distance`` for every edge, the first
    statement of each connected group left in place."""
    adj: dict[str, list[tuple[str, int, Dependence]]] = {s: [] for s in stmts}
    for src, dst, dist, d in edges:
        adj[src].append((dst, -dist, d))
        adj[dst].append((src, dist, d))
    shifts: dict[str, int] = {}
    set_by: dict[str, Dependence] = {}  # the dependence that fixed a statement's shift
    for root in stmts:
        if root in shifts:
            continue
        shifts[root] = 0
        stack = [root]
        while stack:
            s = stack.pop()
            for t, delta, d in adj[s]:
                want = shifts[s] + delta
                if t not in shifts:
                    shifts[t] = want
                    set_by[t] = d
                    stack.append(t)
                elif shifts[t] != want:
                    other = set_by.get(t)
                    raise IllegalTransformationError(
                        f"no shift aligns loop {label}: the {describe(scop, d)} needs a "
                        "different shift than the other dependences in it",
                        (d,) if other is None or other is d else (d, other))
    return shifts
