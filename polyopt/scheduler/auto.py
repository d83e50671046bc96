"""The automatic scheduler: Pluto-like goals with polyopt's own legal transformations.

In order, each step applied only where the dependence check accepts it:

0. **Accumulator promotion** (``acc = 0; for k: acc += ...; C[i, j] = acc`` keeps the
   sum in ``C[i, j]``: :mod:`polyopt.transforms.promote`) and **index-set splitting**
   at a pivot (floyd-warshall: :mod:`polyopt.transforms.iss`).
1. **Distribution** of imperfect nests where it lets a loop order improve
   (``for i: for j: {C[i,j] *= b; for k: ...}`` splits the ``j`` loop).
2. **Loop order** of every perfectly nested chain: the outermost loop parallel
   when some order allows it, and the innermost loop with unit-stride (or
   invariant) accesses, so ``i, j, k`` matmul becomes ``i, k, j``.
3. **Fusion** of consecutive sibling loops (``fuse="smart"``: when they share
   an array and the fused loop stays parallel if both were; ``"max"``: whenever
   legal), shifting the second loop when a dependence needs it.
4. **Tiling** of chains of depth >= 2 that carry reuse, with sizes from a
   simple cache model, when the band is permutable.

Marks for OpenMP (parallel, simd, reductions) and LICM are then chosen by
:func:`polyopt.transforms.mark_parallel.mark` on the resulting tree.
"""

from __future__ import annotations

from itertools import permutations

import islpy as isl

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.analysis.legality import is_legal
from polyopt.analysis.timeline import Timeline
from polyopt.analysis.verdicts import PARALLEL, REDUCTION, SEQUENTIAL, loop_verdict
from polyopt.model import isl_text
from polyopt.model.aff import Cmp, Lin, block_size
from polyopt.model.errors import PolyoptError
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence, loops, statements
from polyopt.model.scop import Access, Scop
from polyopt.scheduler.isl_schedule import isl_schedule
from polyopt.scheduler.register_tiling import enclosing as loops_around
from polyopt.scheduler.register_tiling import register_tile_all
from polyopt.transforms.align import align, parallel_alignment
from polyopt.transforms.fuse import distribute, fuse
from polyopt.transforms.interchange import permute
from polyopt.transforms.iss import outer_iterators, split_at_pivot
from polyopt.transforms.promote import promote
from polyopt.transforms.skew import wavefront
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import at, chain, enclosing, find, normalize, replace_at, sequences

MAX_PERMUTED = 4  # chains longer than this only get their innermost loops reordered
PARALLEL_BONUS = 1000  # an outer parallel loop outweighs any stride difference
L2_BYTES = 1 << 20


def schedule(scop: Scop, deps: Dependences, options: Options) -> tuple[Scop, Dependences, Node]:
    """The automatic schedule.  Register tiling may split statements, so the (possibly
    new) scop and its dependences come back with the tree."""
    if options.interchange and scop.statements:
        promoted = promote(scop, deps, expand=options.array_copies)
        if promoted is not scop:
            scop, deps = promoted, analyze(promoted)
    tree = normalize(scop.schedule)
    if not scop.statements:
        return scop, deps, tree
    if options.parallel or options.vectorize:
        scop, deps, tree = _split_pivots(scop, deps, tree)
    if options.interchange:
        tree = _distribute_for_order(scop, deps, tree)
        tree = _reorder_all(scop, deps, tree)
    if options.fuse != "none":
        tree = _fuse_all(scop, deps, tree, options)
    if options.tile:
        tree = _time_tile_all(scop, deps, tree, time_tile_sizes(options))
    if options.unroll_jam:
        scop, deps, tree = register_tile_all(scop, deps, tree, options)
    if options.tile:
        tree = _tile_all(scop, deps, tree, options)
    return scop, deps, tree


# --- index-set splitting at pivots ------------------------------------------------------

MAX_PIVOT_SPLITS = 8


def _split_pivots(scop: Scop, deps: Dependences, tree: Node) -> tuple[Scop, Dependences, Node]:
    """Split sequential loops at a pivot hyperplane when the pieces then run in parallel
    or vectorize (floyd-warshall: rows ``i < k`` and ``i > k``, then the same for ``j``);
    see :mod:`polyopt.transforms.iss`."""
    for _ in range(MAX_PIVOT_SPLITS):
        step = _pivot_split_once(scop, deps, tree)
        if step is None:
            break
        scop, deps, tree = step
    return scop, deps, tree


def _pivot_split_once(scop: Scop, deps: Dependences, tree: Node
                      ) -> tuple[Scop, Dependences, Node] | None:
    tl = Timeline(scop, tree)
    for dim, path in loops(tree):
        stmts = statements(path[-1])
        if len(stmts) != 1 or loop_verdict(scop, deps, tree, dim.loop_id, tl).kind != SEQUENTIAL:
            continue
        for pivot in _pivots(scop, deps, tree, tl, dim, stmts[0]):
            try:
                scop2, cand, copies = split_at_pivot(scop, tree, dim.loop_id, pivot)
            except PolyoptError:
                continue
            deps2 = analyze(scop2)
            if not is_legal(scop2, deps2, cand):
                continue  # the split keeps the order: this would be a bug, never a result
            tl2 = Timeline(scop2, cand)
            if any(loop_verdict(scop2, deps2, cand, c, tl2).kind != SEQUENTIAL for c in copies):
                return scop2, deps2, cand
    return None


def _pivots(scop: Scop, deps: Dependences, tree: Node, tl: Timeline, dim: LoopDim,
            stmt: str) -> list[Lin]:
    """Hyperplanes ``v == u`` (``u`` an iterator of a loop around) that every dependence
    the loop carries starts or ends on."""
    v = dim.expr(stmt).as_name()
    if v is None:
        return []
    st = scop.statement(stmt)
    carried = [c for d in deps.memory if d.source.statement == stmt == d.sink.statement
               for c in [tl.carries(d.relation, dim.loop_id)] if not c.is_empty()]
    out = []
    for u in outer_iterators(tree, dim.loop_id, stmt):
        plane = isl.UnionSet.from_set(isl_text.make_set(
            scop.params, stmt, st.iterators, Cmp("==", Lin.var(v), Lin.var(u))))
        if carried and all(c.domain().is_subset(plane) or c.range().is_subset(plane)
                           for c in carried):
            out.append(Lin.var(u))
    return out


# --- loop order ---------------------------------------------------------------------------


def _chains(tree: Node) -> list[str]:
    """The outermost loop of every maximal perfectly nested chain."""
    out: list[str] = []

    def walk(node: Node, parent_is_band: bool) -> None:
        if isinstance(node, Band):
            if not parent_is_band:
                out.append(node.dims[0].loop_id)
            walk(node.child, True)
        elif isinstance(node, Sequence):
            for c in node.children:
                walk(c, False)

    walk(tree, False)
    return out


def _iterator_of(dim: LoopDim, stmt: str) -> str | None:
    """The statement iterator a loop advances, when its schedule is ``±v``."""
    e = dim.expr(stmt)
    return e.as_name() or (-e).as_name()


def _stride_score(scop: Scop, dim: LoopDim) -> int:
    """How well ``dim`` suits the innermost position: unit-stride and invariant accesses
    score, strided ones cost."""
    return sum(_statement_stride(scop, dim, stmt) for stmt, _ in dim.exprs)


def _statement_stride(scop: Scop, dim: LoopDim, stmt: str) -> int:
    v = _iterator_of(dim, stmt)
    if v is None:
        return 0
    score = 0
    for a in scop.statement(stmt).accesses:
        if a.indices:
            score += _STRIDE_SCORE[_access_stride(a, v)]
    return score


_STRIDE_SCORE = {"invariant": 5, "unit": 10, "strided": -20}


def _access_stride(a: Access, v: str) -> str:
    """How access ``a`` moves when iterator ``v`` steps: not at all, to the next element
    of a row, or farther (across rows, or by more than one)."""
    uses = [ix.coeff(v) for ix in a.indices]
    if not any(uses):
        return "invariant"
    if abs(uses[-1]) == 1 and not any(uses[:-1]):
        return "unit"
    return "strided"


def _innermost_strides(scop: Scop, tree: Node) -> dict[str, int]:
    """Each statement's stride score in its innermost loop."""
    out: dict[str, int] = {}
    for stmt in statements(tree):
        around = loops_around(tree, stmt)
        if around:
            out[stmt] = _statement_stride(scop, around[-1], stmt)
    return out


def _order_score(scop: Scop, deps: Dependences, tree: Node, dims: list[LoopDim]) -> int:
    score = _stride_score(scop, dims[-1]) * 2
    if _parallel_above(scop, deps, tree, dims[0].loop_id):
        return score  # the chain runs inside a parallel loop already: only stride counts
    v = loop_verdict(scop, deps, tree, dims[0].loop_id)
    if v.kind == PARALLEL:
        score += PARALLEL_BONUS
    elif v.kind == REDUCTION:
        score += 200
    return score


def _parallel_above(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> bool:
    """Some loop enclosing ``loop_id`` is parallel (doitgen's ``r``, once ``sum_`` is
    private, encloses the ``p, s`` chain)."""
    return any(loop_verdict(scop, deps, tree, d.loop_id).kind == PARALLEL
               for d in enclosing(tree, loop_id))


def _reorder_all(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Give every chain its best legal loop order.

    Candidates are tried best stride score first: a legal order whose outer loop is
    parallel cannot be beaten by an order with a lower stride score, so the search stops
    there instead of proving every permutation legal or not.
    """
    for outer in _chains(tree):
        dims = chain(tree, outer)
        if len(dims) < 2:
            continue
        fixed = max(0, len(dims) - MAX_PERMUTED)
        movable = dims[fixed:]
        anchor = movable[0].loop_id
        orders = sorted(permutations(movable), key=lambda o: (
            -_stride_score(scop, o[-1]), list(o) != movable))
        best_tree, best = tree, None
        for order in orders:
            bound = 2 * _stride_score(scop, order[-1]) + PARALLEL_BONUS
            if best is not None and bound <= best:
                break  # nothing left can beat the best legal order found
            cand = permute(scop, None, tree, anchor, [d.loop_id for d in order])
            if not is_legal(scop, deps, cand):
                continue
            score = _order_score(scop, deps, cand, list(order)) - (
                0 if list(order) == movable else 1)
            if best is None or score > best:
                best, best_tree = score, cand
        tree = best_tree
    return tree


def _distribute_for_order(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Distribute loops around imperfect nests when a part's loop order then improves."""
    changed = True
    while changed:
        changed = False
        for dim, path in list(loops(tree)):
            band = path[-1]
            assert isinstance(band, Band)
            if not isinstance(band.child, Sequence):
                continue
            if not any(isinstance(c, Band) for c in band.child.children):
                continue
            try:
                cand = distribute(scop, None, tree, dim.loop_id)
            except PolyoptError:
                continue
            if not is_legal(scop, deps, cand):
                continue
            reordered = _reorder_all(scop, deps, cand)
            if reordered is cand:
                continue  # no part reorders: keep the statements together
            if _runs_in_parallel(scop, deps, tree, dim) and not _stride_improves(
                    scop, cand, reordered):
                continue  # only buys a parallel loop that the whole loop already is
            tree, changed = cand, True
            break
    return tree


def _runs_in_parallel(scop: Scop, deps: Dependences, tree: Node, dim: LoopDim) -> bool:
    """``dim`` is an outermost loop, and runs in parallel outright or as a reduction (an
    array reduction gets a copy per thread).  Deeper loops are left to the loop-order
    search: a part reordered there may be tiled with better strides later (trmm, symm)."""
    if enclosing(tree, dim.loop_id):
        return False
    return loop_verdict(scop, deps, tree, dim.loop_id).kind in (PARALLEL, REDUCTION)


def _stride_improves(scop: Scop, before: Node, after: Node) -> bool:
    """Some statement's innermost loop has a better stride in ``after``.

    atax's ``for i: {tmp[i] = A[i, :] . x; y += A[i, :] * tmp[i]}`` is already unit
    stride and, with ``y`` reduced per thread, parallel in ``i``: distributing it so that
    the ``y`` part can run ``j`` outer in parallel sweeps the 32 MB ``A`` twice instead
    of once (LARGE: 3.4-5.6 ms against 2.2-2.4 ms kept together)."""
    old, new = _innermost_strides(scop, before), _innermost_strides(scop, after)
    return any(new[s] > old.get(s, new[s]) for s in new)


# --- fusion -------------------------------------------------------------------------------


def _arrays(scop: Scop, node: Node) -> tuple[set[str], set[str]]:
    reads: set[str] = set()
    writes: set[str] = set()
    for s in statements(node):
        st = scop.statement(s)
        writes.add(st.target)
        reads |= {a.target for a in st.reads}
    return reads, writes


def _fuse_all(scop: Scop, deps: Dependences, tree: Node, options: Options) -> Node:
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
    if cand is not None and not _sweeps_rows_among(scop, cand, stmts):
        return cand
    turned = _fuse_interchanged(scop, deps, tree, a, b, options)
    if turned is None or (cand is not None and _sweeps_rows_among(scop, turned, stmts)):
        return cand
    return turned


def _try_fuse(scop: Scop, deps: Dependences, tree: Node, a: Band, b: Band, mode: str) -> Node | None:
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
        if kinds == [PARALLEL, PARALLEL] and fused != PARALLEL:
            return None
        if _depth(a) != _depth(b):
            if kinds == [SEQUENTIAL, SEQUENTIAL]:
                # Pluto's rule for nests of different depths, where parallelism does not
                # decide: ludcmp's LU (3 deep) fused with its forward substitution (2
                # deep) no longer time-tiles, and gains no reuse worth a factor of n
                return None
            # only tiling fixes a strided innermost access when no loop order gives both
            # an outer parallel loop and a unit-stride inner one, and tiling needs the
            # deeper nest perfect: gemver's ``for i: for j: x[i] += beta * A[j, i] *
            # y[j]`` fused with ``for i: x[i] += z[i]`` at ``i`` stayed untiled and
            # strided, 2x slower at LARGE (17.5 against 8.7 ms) than the nests apart
            deeper = a if _depth(a) > _depth(b) else b
            if _sweeps_rows_among(scop, deeper, statements(deeper)):
                return None
    return cand


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
    and reassociation) and no statement's innermost stride gets worse; LARGE: 4.1
    against 7.6 ms, 2 threads.  mvt's ``x1[i] += A[i, j] * y_1[j]`` and ``x2[i] +=
    A[j, i] * y_2[j]`` fuse as they stand with the second reading a column; with its
    ``j`` outer both read row ``i`` (1.7-2.5 against 4.3-6.2 ms)."""
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
            if not is_legal(scop, deps, turned) or _stride_improves(scop, turned, tree):
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
    if kind == PARALLEL:
        return True
    return kind == REDUCTION and options.array_copies and not options.strict_fp


def _sweeps_rows_among(scop: Scop, tree: Node, stmts: list[str]) -> bool:
    """Some statement of ``stmts`` sweeps an array across rows in its innermost loop."""
    return any(_sweeps_rows(scop, around[-1], s)
               for s in stmts if (around := loops_around(tree, s)))


def _sweeps_rows(scop: Scop, dim: LoopDim, stmt: str) -> bool:
    """An access of ``stmt`` moves across rows (or by more than one element) as ``dim``
    steps."""
    v = _iterator_of(dim, stmt)
    return v is not None and any(a.indices and _access_stride(a, v) == "strided"
                                 for a in scop.statement(stmt).accesses)


def _depth(node: Node) -> int:
    return max((len([n for n in path if isinstance(n, Band)]) for _, path in loops(node)),
               default=0)


# --- time tiling ------------------------------------------------------------------------

TIME_TILE = (16, 32)  # time steps x rows per tile (fast-c.md: 32 half-steps x 16-32 rows)


def time_tile_sizes(options: Options) -> tuple[int, int]:
    """(time steps, rows) of a time tile: ``TIME_TILE``, or the first two of the user's
    ``tile=`` sizes (the last one repeated, as for other bands)."""
    if isinstance(options.tile, tuple):
        steps, rows = _user_sizes(options.tile, 2)
        return steps, rows
    return TIME_TILE


def _time_tile_all(scop: Scop, deps: Dependences, tree: Node, sizes: tuple[int, int]) -> Node:
    """Stencils: a sequential outer loop around a deeper nest is rescheduled by isl's
    scheduler into a skewed permutable band, tiled on its two outer dimensions by
    ``sizes``, and run as a wavefront of tiles; inner loops are distributed so each
    statement vectorizes."""
    for outer in _chains(tree):
        path_loops = [d for d, _ in loops(tree)]
        if outer not in {d.loop_id for d in path_loops}:
            continue
        if loop_verdict(scop, deps, tree, outer).kind != SEQUENTIAL:
            continue
        sub_path = find(tree, outer)
        sub = at(tree, sub_path)
        if max((len(p) for _, p in loops(sub)), default=0) < 2 or _scalar_deep(scop, sub):
            continue
        cand = _time_tiled(scop, deps, tree, sub_path, sub, sizes)
        if cand is not None:
            tree = cand
    return tree


def _scalar_deep(scop: Scop, sub: Node) -> bool:
    """A statement inside two loops of ``sub`` writes a local scalar.  Every instance
    writes one location, so no band of two of those loops is permutable, and isl's
    scheduler can spend tens of seconds proving there is none."""
    return any(len(loops_around(sub, name)) >= 2 and not st.indices
               and st.target in scop.local_scalars
               for name in statements(sub) for st in [scop.statement(name)])


def _time_tiled(scop: Scop, deps: Dependences, tree: Node, path, sub: Node,
                sizes: tuple[int, int]) -> Node | None:
    stmts = statements(sub)
    new = isl_schedule(scop, deps, stmts, prefix=f"{stmts[0]}.band")
    if new is None:
        return None
    dims = []
    node = new
    while isinstance(node, Band):
        dims += node.dims
        node = node.child
    if len(dims) != 3:
        # time and two space dimensions: a time tile covers rows of the last one
        # whole, a working set that grows like N.  With two whole space dimensions
        # (heat-3d) it grows like N^2 and leaves every cache: heat-3d MEDIUM ran 3x
        # slower time-tiled than as plain parallel sweeps (18.6 against 6.5 ms, 2 threads).
        return None
    cand = normalize(replace_at(tree, path, new))
    if not is_legal(scop, deps, cand):
        return None
    try:
        cand = tile(scop, None, cand, [dims[0].loop_id, dims[1].loop_id], list(sizes))
        cand = wavefront(scop, None, cand, f"{dims[0].loop_id}.tile", f"{dims[1].loop_id}.tile")
    except PolyoptError:
        return None
    cand = _distribute_innermost(scop, deps, cand)
    if not is_legal(scop, deps, cand):
        return None
    if loop_verdict(scop, deps, cand, f"{dims[1].loop_id}.tile").kind != PARALLEL:
        return None
    return cand


def _distribute_innermost(scop: Scop, deps: Dependences, tree: Node) -> Node:
    """Make innermost loops around statement sequences parallel: by aligning their
    statements when constant shifts do it (the statements stay in one loop, which
    sweeps the data once), else by splitting the loop."""
    for dim, path in list(loops(tree)):
        band = path[-1]
        assert isinstance(band, Band)
        if not isinstance(band.child, Sequence) or any(
                isinstance(c, Band) for c in band.child.children):
            continue
        if loop_verdict(scop, deps, tree, dim.loop_id).kind == PARALLEL:
            continue
        try:
            shifts = parallel_alignment(scop, deps, tree, dim.loop_id)
        except PolyoptError:
            shifts = {}
        if any(shifts.values()):
            cand = align(scop, None, tree, dim.loop_id, shifts)
            if (is_legal(scop, deps, cand)
                    and loop_verdict(scop, deps, cand, dim.loop_id).kind == PARALLEL):
                tree = cand
                continue
        try:
            cand = distribute(scop, None, tree, dim.loop_id)
        except PolyoptError:
            continue
        if is_legal(scop, deps, cand):
            tree = cand
    return tree


# --- tiling -------------------------------------------------------------------------------


def _user_sizes(sizes: tuple[int, ...], n: int) -> list[int]:
    """The user's ``tile=`` sizes for ``n`` loops: the last one repeated as needed."""
    return (list(sizes) + [sizes[-1]] * n)[:n]


def _worth_tiling(scop: Scop, tree: Node, dims: list[LoopDim]) -> bool:
    """Tiling the chain pays: data reused across one of its outer loops (temporal
    reuse), or a statement that sweeps an array across its rows innermost (mvt's
    ``A[i, j]`` under ``j, i``), which a tile's point loops reorder.

    Except an outermost chain whose reuse is only of vectors (each reused access spans
    one of the loops inside): a vector stays in cache untiled, and tiles would cut the
    rows that the inner loops sweep whole.  gemver's fused ``for i: for j: {A[i, j] +=
    ...; x[j] += beta * A[i, j] * y[i]}`` in 128x128 tiles ran 8.7-10.4 ms at LARGE,
    against 4.0-4.4 ms untiled.  Deeper in a nest, tiles still help: doitgen's
    ``for s: for p: sum_[p] += A[r, q, s] * C4[s, p]`` inside ``r, q`` ran 45-79 ms
    tiled against 58-98 ms untiled (11 alternating pairs); untiled, its stores to
    ``sum_`` and loads of ``C4`` collide on 4 KiB aliasing at most offsets between the
    two (a hand harness: up to 2x slower, against 1.3x tiled)."""
    last = dims[-1]
    if any(_sweeps_rows(scop, last, stmt) for stmt, _ in last.exprs):
        return True
    spans = _reuse_spans(scop, tree, dims)
    return bool(spans) and (max(spans) >= 2 or bool(enclosing(tree, dims[0].loop_id)))


def _reuse_spans(scop: Scop, tree: Node, dims: list[LoopDim]) -> list[int]:
    """For each access invariant in a non-innermost loop of the chain: how many loops
    inside that one (in the chain or below it) it varies with (2 for matmul's
    ``B[k, j]`` across ``i``, and for nussinov's ``table[k + 1, j]`` across ``i``, ``k``
    being a loop under the chain ``i, j``)."""
    out = []
    for stmt, _ in dims[0].exprs:  # every loop of a chain runs the same statements
        around = loops_around(tree, stmt)
        ids = [d.loop_id for d in around]
        for dim in dims[:-1]:
            v = _iterator_of(dim, stmt)
            if v is None:
                continue
            inner = {_iterator_of(d, stmt) for d in around[ids.index(dim.loop_id) + 1:]} - {None}
            for a in scop.statement(stmt).accesses:
                if a.indices and not any(ix.coeff(v) for ix in a.indices):
                    out.append(len({w for w in inner if any(ix.coeff(w) for ix in a.indices)}))
    return out


def tile_sizes(scop: Scop, dims: list[LoopDim], options: Options) -> list[int]:
    if isinstance(options.tile, tuple):
        return _user_sizes(options.tile, len(dims))
    elem = max((scop.element_type(s.target).bits // 8 for s in scop.statements), default=8)
    depth = min(len(dims), 3)
    side = 16
    while depth * (2 * side) ** 2 * elem <= L2_BYTES // 2:
        side *= 2
    return [side] * len(dims)


def _tile_all(scop: Scop, deps: Dependences, tree: Node, options: Options) -> Node:
    for outer in _chains(tree):
        dims = chain(tree, outer)
        if len(dims) < 2 or not _worth_tiling(scop, tree, dims) or _has_joint_band(tree, outer):
            continue
        if any(not isinstance(x, str) for d in dims for _, e in d.exprs for x, _ in e.terms):
            continue  # already tiled
        sizes = _inherited_sizes(tree, dims, tile_sizes(scop, dims, options))
        try:
            cand = tile(scop, None, tree, [d.loop_id for d in dims], sizes)
        except PolyoptError:
            continue
        if not is_legal(scop, deps, cand):
            continue
        tree = _reorder_points(scop, deps, cand, dims)
        innermost = chain(tree, dims[0].loop_id)[-1]
        tree = _reorder_below(scop, deps, tree, innermost.loop_id)
    return tree


def _has_joint_band(tree: Node, outer: str) -> bool:
    """A band of the chain at ``outer`` holds several loops: one that register tiling
    built as a unit (packing's copy loops), not a nest to tile again."""
    node = at(tree, find(tree, outer))
    while isinstance(node, Band):
        if len(node.dims) > 1:
            return True
        node = node.child
    return False


def _inherited_sizes(tree: Node, dims: list[LoopDim], sizes: list[int]) -> list[int]:
    """``sizes``, but a loop that an enclosing tile loop already cuts into tiles (the
    shared row tiles of tile-level fusion, :mod:`polyopt.scheduler.register_tiling`) keeps that
    tile size: its own tile loop then runs once per enclosing tile, and isl emits none."""
    above = enclosing(tree, dims[0].loop_id)
    out = list(sizes)
    for k, d in enumerate(dims):
        for a in above:
            size = {block_size(a.expr(s), e) for s, e in d.exprs}
            if len(size) == 1 and None not in size and 1 not in size:
                out[k] = size.pop()
    return out


def _reorder_below(scop: Scop, deps: Dependences, tree: Node, loop_id: str) -> Node:
    """The innermost point loop of a tile around an imperfect body: distribute it when a
    part then runs a better order.  symm's tile of ``i, j`` runs ``temp2[i, j] = 0;
    for k: {C[k, j] += ...; temp2[i, j] += B[k, j] * ...}; C[i, j] = ...``; the middle
    part runs ``k, j``: unit stride in ``j`` instead of ``n``."""
    band = at(tree, find(tree, loop_id))
    assert isinstance(band, Band)
    if not isinstance(band.child, Sequence) or not any(
            isinstance(c, Band) for c in band.child.children):
        return tree
    try:
        cand = distribute(scop, None, tree, loop_id)
    except PolyoptError:
        return tree
    improved = False
    for dim, _ in list(loops(cand)):
        if dim.loop_id != loop_id and not dim.loop_id.startswith(f"{loop_id}."):
            continue
        part = chain(cand, dim.loop_id)
        if len(part) < 2:
            continue
        new = _reorder_points(scop, deps, cand, part)
        if new is not cand:
            cand, improved = new, True
    return cand if improved and is_legal(scop, deps, cand) else tree


def _reorder_points(scop: Scop, deps: Dependences, tree: Node, points: list[LoopDim]) -> Node:
    """Reorder the point loops of a tile for stride, now that the tile loops carry the
    parallelism.  trmm's chain is ``j, k, i`` (``j``, the parallel loop, outermost; ``i``
    strided innermost); inside a tile ``i, k, j`` runs unit stride::

        for j.t, k.t, i.t:                 for j.t, k.t, i.t:
          for j: for k: for i:       ==>     for i: for k: for j:
            B[i, j] += A[k, i] * B[k, j]       B[i, j] += A[k, i] * B[k, j]

    Among the legal orders with the best innermost loop, one whose next loop leaves
    the written element in place (``k`` above: ``B[i, :]`` stays in L1) comes first,
    then the order closest to the current one.
    """
    if len(points) > MAX_PERMUTED:
        return tree
    current = _stride_score(scop, points[-1])
    orders = sorted(permutations(points), key=lambda o: (
        -_stride_score(scop, o[-1]), not _keeps_target(scop, o[-2]), list(o) != points))
    for order in orders:
        if _stride_score(scop, order[-1]) <= current:
            return tree  # nothing better than the order the chain already has
        cand = permute(scop, None, tree, points[0].loop_id, [d.loop_id for d in order])
        if is_legal(scop, deps, cand):
            return cand
    return tree


def _keeps_target(scop: Scop, dim: LoopDim) -> bool:
    """Every statement's written element is invariant in ``dim`` (a reduction loop)."""
    for stmt, _ in dim.exprs:
        v = _iterator_of(dim, stmt)
        st = scop.statement(stmt)
        if v is None or any(ix.coeff(v) for ix in st.indices):
            return False
    return True

