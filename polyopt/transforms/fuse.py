"""Loop fusion (with shifting) and distribution.

Fusion merges two consecutive sibling loops into one::

    for i in range(n):                 for i in range(n):
        t[i] = f(A[i])        ==>          t[i] = f(A[i])
    for i in range(n):                     B[i] = g(t[i])
        B[i] = g(t[i])

When the consumer reads what the producer writes *later* in the fused order,
the consumer's iterations are shifted (``i -> i + k``) by the smallest ``k``
that keeps every dependence forward; if no shift does, fusion is refused and
the error names the dependence.  Distribution is the inverse: it splits a
loop around a sequence into one loop per part.
"""

from __future__ import annotations

from dataclasses import replace

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import illegal, require_legal, violations
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.errors import PolyoptError
from polyopt.model.schedule_tree import Band, LoopDim, LoopMark, Node, Sequence, statements
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.tree import (
    at,
    dim_of,
    find,
    fresh,
    normalize,
    replace_at,
    taken_ids,
    taken_labels,
)


def _siblings(scop: Scop, tree: Node, a: str, b: str) -> tuple[tuple[int, ...], int, int]:
    pa, pb = find(tree, a), find(tree, b)
    la, lb = loop_label(scop, dim_of(tree, a)), loop_label(scop, dim_of(tree, b))
    if pa[:-1] != pb[:-1] or not pa or not isinstance(at(tree, pa[:-1]), Sequence):
        raise PolyoptError(f"loops {la} and {lb} are not siblings in one sequence; only "
                           "consecutive loops at the same depth can be fused")
    ka, kb = pa[-1], pb[-1]
    if kb != ka + 1:
        raise PolyoptError(f"loops {la} and {lb} are not consecutive (fuse adjacent loops, "
                           "first to last)")
    return pa[:-1], ka, kb


def required_shift(scop: Scop, deps: Dependences, da: LoopDim, db: LoopDim) -> int | None:
    """Smallest shift of ``db`` that keeps the dependences from ``da``'s statements forward
    at the fused level (None when it is unbounded)."""
    sa = {s for s, _ in da.exprs}
    sb = {s for s, _ in db.exprs}
    worst = 0
    for d in deps.memory:
        if d.source.statement not in sa or d.sink.statement not in sb:
            continue
        src = scop.statement(d.source.statement)
        dst = scop.statement(d.sink.statement)
        ms = isl_text.make_map(scop.params, src.name, src.iterators, "", (da.expr(src.name),))
        mt = isl_text.make_map(scop.params, dst.name, dst.iterators, "", (db.expr(dst.name),))
        delta = d.relation.apply_domain(ms).apply_range(mt).deltas()
        lo, _ = names.dim_bounds(delta, 0)
        if lo is None:
            if delta.lexmin().is_empty():
                continue
            return None
        worst = max(worst, -lo)
    return worst


def fuse(scop: Scop, deps: Dependences | None, tree: Node, a: str, b: str,
         shift: int | None = None, what: str = "", check: bool = True) -> Node:
    """Fuse consecutive sibling loops ``a`` then ``b`` into one loop named like ``a``.

    ``deps`` chooses the shift; ``check=False`` leaves the legality check to the caller."""
    seq_path, ka, kb = _siblings(scop, tree, a, b)
    seq = at(tree, seq_path)
    assert isinstance(seq, Sequence)
    ba, bb = seq.children[ka], seq.children[kb]
    assert isinstance(ba, Band) and isinstance(bb, Band)
    da, db = ba.dims[0], bb.dims[0]
    what = what or f"fusing loops {a} and {b}"
    if shift is None:
        shift = required_shift(scop, deps, da, db) if deps is not None else 0
        if shift is None:
            shift = 0  # no finite shift: the check below reports the dependence
    fused_dim = LoopDim(
        da.loop_id, da.name,
        da.exprs + tuple((s, e + Lin.constant(shift)) for s, e in db.exprs),
        LoopMark(), (*da.aliases, db.loop_id, *db.aliases), da.label,
    )
    fused = Band((fused_dim,), Sequence((ba.child, bb.child)))
    children = list(seq.children)
    children[ka:kb + 1] = [fused]
    new_seq: Node = Sequence(tuple(children)) if len(children) > 1 else children[0]
    result = normalize(replace_at(tree, seq_path, new_seq))
    if deps is not None and check:
        broken = violations(scop, deps, result)
        if broken:
            raise illegal(scop, what, broken)
    return result


def distribute(scop: Scop, deps: Dependences | None, tree: Node, loop: str,
               labels: list[str] | None = None) -> Node:
    """Split ``loop`` around its sequence: one copy of the loop per child."""
    path = find(tree, loop)
    band = at(tree, path)
    assert isinstance(band, Band)
    child = band.child
    d = band.dims[0]
    shown = loop_label(scop, d)
    if not isinstance(child, Sequence):
        raise PolyoptError(f"loop {shown} has a single child: nothing to distribute")
    ids, names_ = taken_ids(tree), taken_labels(scop, tree)
    parts: list[Node] = []
    for k, c in enumerate(child.children):
        stmts = set(statements(c))
        exprs = tuple((s, e) for s, e in d.exprs if s in stmts)
        if k == 0:
            loop_id, aliases, label = d.loop_id, d.aliases, d.label
        else:
            loop_id, aliases = fresh(f"{d.loop_id}.{k + 1}", ids), ()
            label = fresh((labels[k] if labels else "") or f"{loop_label(scop, d)}#{k + 1}",
                          names_)
        parts.append(Band((replace(d, loop_id=loop_id, exprs=exprs, mark=LoopMark(),
                                   aliases=aliases, label=label),), c))
    result = normalize(replace_at(tree, path, Sequence(tuple(parts))))
    if deps is not None:
        require_legal(scop, deps, result, f"distributing loop {shown}")
    return result

