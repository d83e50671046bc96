"""Fusion of consecutive sibling loops.

``fuse="smart"`` fuses loops that share an array when the fused loop stays
parallel if both were; ``"max"`` fuses whenever it is legal.  The second loop is
shifted when a dependence needs it::

    for i: B[i] = A[i] + 1             for i:
    for i: C[i] = B[i] * 2      ==>        B[i] = A[i] + 1
                                           C[i] = B[i] * 2
"""

from __future__ import annotations

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.legality import is_legal
from polyopt.analysis.verdicts import LoopKind, loop_verdict
from polyopt.model.errors import PolyoptError
from polyopt.model.options import FuseMode, Options
from polyopt.model.schedule_tree import Band, Node, Sequence, statements
from polyopt.model.scop import Scop
from polyopt.scheduler.cost_model import stride_improves, sweeps_rows_among
from polyopt.scheduler.nests import depth
from polyopt.transforms.fuse import fuse
from polyopt.transforms.interchange import permute
from polyopt.transforms.tree import at, chain, find, sequences


def fuse_all(scop: Scop, deps: Dependences, tree: Node, options: Options) -> Node:
    """Fuse sibling loops, outermost sequence first, until no pair fuses."""
    progress = True
    while progress:
        progress = False
        for seq_node in sequences(tree):
            kids = seq_node.children
            for k in range(len(kids) - 1):
                a, b = kids[k], kids[k + 1]
                if not (isinstance(a, Band) and isinstance(b, Band)):
                    continue
                cand = _fusion(scop, deps, tree, a, b, options)
                if cand is not None:
                    tree, progress = cand, True
                    break
            if progress:
                break
    return tree


def _fusion(scop: Scop, deps: Dependences, tree: Node, a: Band, b: Band,
            options: Options) -> Node | None:
    """The fusion of siblings ``a`` and ``b`` to take, if any: as they stand, or (smart
    mode) after an interchange when that fuses them where they would not fuse, or fuses
    them without a statement sweeping rows innermost where they would."""
    cand = _try_fuse(scop, deps, tree, a, b, options.fuse)
    if options.fuse != "smart":
        return cand
    stmts = statements(a) + statements(b)
    if cand is not None and not sweeps_rows_among(scop, cand, stmts):
        return cand
    turned = _fuse_interchanged(scop, deps, tree, a, b, options)
    if turned is None or (cand is not None and sweeps_rows_among(scop, turned, stmts)):
        return cand
    return turned


def _try_fuse(scop: Scop, deps: Dependences, tree: Node, a: Band, b: Band,
              mode: FuseMode) -> Node | None:
    if mode == "smart" and not _share_data(scop, a, b):
        return None
    da, db = a.dims[0], b.dims[0]
    try:
        cand = fuse(scop, deps, tree, da.loop_id, db.loop_id, check=False)
    except PolyoptError:
        return None
    if not is_legal(scop, deps, cand):
        return None
    if mode == "smart":
        kinds = [loop_verdict(scop, deps, tree, d.loop_id).kind for d in (da, db)]
        fused = loop_verdict(scop, deps, cand, da.loop_id).kind
        if kinds == [LoopKind.PARALLEL] * 2 and fused is not LoopKind.PARALLEL:
            return None
        if depth(a) != depth(b):
            if kinds == [LoopKind.SEQUENTIAL] * 2:
                # Pluto's rule for nests of different depths, where parallelism does not
                # decide: ludcmp's LU (3 deep) fused with its forward substitution (2
                # deep) no longer time-tiles, and gains no reuse worth a factor of n
                return None
            # only tiling fixes a strided innermost access when no loop order gives both
            # an outer parallel loop and a unit-stride inner one, and tiling needs the
            # deeper nest perfect: gemver's ``for i: for j: x[i] += beta * A[j, i] *
            # y[j]`` fused with ``for i: x[i] += z[i]`` at ``i`` would stay untiled and
            # strided
            deeper = a if depth(a) > depth(b) else b
            if sweeps_rows_among(scop, deeper, statements(deeper)):
                return None
    return cand


def _arrays(scop: Scop, node: Node) -> tuple[set[str], set[str]]:
    """The arrays the statements of ``node`` read, and those they write."""
    reads: set[str] = set()
    writes: set[str] = set()
    for s in statements(node):
        st = scop.statement(s)
        writes.add(st.target)
        reads |= {a.target for a in st.reads}
    return reads, writes


def _share_data(scop: Scop, a: Node, b: Node) -> bool:
    ra, wa = _arrays(scop, a)
    rb, wb = _arrays(scop, b)
    return bool(wa & rb or ra & rb or wa & wb or ra & wb)


def _fuse_interchanged(scop: Scop, deps: Dependences, tree: Node, a: Band, b: Band,
                       options: Options) -> Node | None:
    """Fuse ``a`` and ``b`` after bringing another loop of one of them outermost, when
    they cannot be fused as they stand, or fused as they stand would sweep an array
    across rows innermost (Pluto finds these as one schedule).

    gemver's ``for i: for j: A[i, j] += ...`` is followed by ``for i: for j: x[i] +=
    beta * A[j, i] * y[j]``, which reads column ``i`` of ``A``: fused at ``i`` it would
    read elements before they are updated.  Run ``j`` outer, it reads row ``j``, which
    the first nest has just updated::

        for i:                                  # parallel, x reduced per thread
            for j: A[i, j] += u1[i] * v1[j] + u2[i] * v2[j]
            for k: x[k] += beta * A[i, k] * y[i]

    one sweep over ``A`` instead of two, each inner loop unit stride.  Kept only when
    the fused loop still runs in parallel (an array reduction needs copies per thread
    and reassociation) and no statement's innermost stride gets worse.  mvt's
    ``x1[i] += A[i, j] * y_1[j]`` and ``x2[i] += A[j, i] * y_2[j]`` fuse as they stand
    with the second reading a column; with its ``j`` outer both read row ``i``."""
    if not _share_data(scop, a, b):
        return None
    position = find(tree, a.dims[0].loop_id)[:-1]
    for nest in (b, a):
        dims = chain(tree, nest.dims[0].loop_id)
        for k in range(1, len(dims)):
            order = [d.loop_id for d in dims[: k + 1]]
            order[0], order[k] = order[k], order[0]
            try:
                turned = permute(scop, None, tree, dims[0].loop_id, order)
            except PolyoptError:
                continue
            if not is_legal(scop, deps, turned) or stride_improves(scop, turned, tree):
                continue  # illegal, or some innermost stride worse than before
            kids = at(turned, position)
            assert isinstance(kids, Sequence)
            index = next(i for i, c in enumerate(kids.children)
                         if statements(c) == statements(a))
            na, nb = kids.children[index], kids.children[index + 1]
            assert isinstance(na, Band) and isinstance(nb, Band)
            cand = _try_fuse(scop, deps, turned, na, nb, "smart")
            if cand is not None and _fused_runs_in_parallel(scop, deps, cand,
                                                            na.dims[0].loop_id, options):
                return cand
    return None


def _fused_runs_in_parallel(scop: Scop, deps: Dependences, tree: Node, loop_id: str,
                            options: Options) -> bool:
    """The loop will be marked parallel: outright, or as a reduction whose copies per
    thread the options allow (``strict_fp`` forbids reassociating them)."""
    if not options.parallel:
        return True  # nothing runs in parallel: fusion is for locality alone
    kind = loop_verdict(scop, deps, tree, loop_id).kind
    if kind is LoopKind.PARALLEL:
        return True
    return kind is LoopKind.REDUCTION and options.array_copies and not options.strict_fp
