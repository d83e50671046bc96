"""Register tiling of matmul-like reductions (the automatic unroll-and-jam).

For a statement ``X[i, j] += f(.., i, k, ..) * g(.., k, j, ..)`` nested in
loops over ``i``, ``j`` and a reduction loop ``k``, the scheduler builds::

    for i.tile, k.tile, j.tile:            # cache blocks mc, kc, nc (scheduler/blocking.py)
        for i.reg, j.reg:                  # one MR x NR register tile
            for k:                         # MR*NR accumulators stay in registers (LICM)
                X[i0+0, j0+0] += ...       # the i and j point loops, fully unrolled
                ...
                X[i0+MR-1, j0+NR-1] += ...

The statement is first split into its full register tiles and the ragged rest
(:mod:`polyopt.transforms.split`), so the unrolled micro-kernel has no guards;
the rest keeps the ordinary tiled, vectorized schedule.  Every step is checked
against the exact dependences of the split program.  Both operands are then read
from packed copies (:mod:`polyopt.transforms.pack`): ``A[i, k]`` in panels of ``MR``
rows, ``B[k, j]`` in panels of ``NR`` columns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.analysis.legality import is_legal
from polyopt.analysis.verdicts import LoopKind, loop_verdict
from polyopt.model import names, target
from polyopt.model.aff import floordiv
from polyopt.model.dtypes import DType
from polyopt.model.errors import PolyoptError, TooComplexError
from polyopt.model.isl_budget import EXPANSION_OPS, budget, coalesce
from polyopt.model.names import depends_on, has_iterator_stride
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, LoopMark, Node, Sequence, statements
from polyopt.model.scop import Scop, Statement
from polyopt.model.target import micro_tile, single_row_tile
from polyopt.scheduler.blocking import blocks
from polyopt.scheduler.nests import band_at, loops_around
from polyopt.scheduler.row_ranges import mark_ranged
from polyopt.transforms.expand import expand
from polyopt.transforms.fuse import distribute
from polyopt.transforms.pack import in_row_panels, pack, panel_operands
from polyopt.transforms.split import (
    full_tile_domain,
    split_diagonal_tiles,
    split_full_tiles,
    split_statement,
)
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import at, build_chain, find, normalize, replace_at

#: register tiles per column block where the threads share the columns (see _column_block)
COLUMN_BLOCK_TILES = 8
#: columns of the register tiles of the ragged columns (see _register_tile_edge)
EDGE_COLUMNS = 4


def _iterator(dim: LoopDim, stmt: str) -> str | None:
    return dim.expr(stmt).as_name()


def _roles(scop: Scop, stmt: str, dims: list[LoopDim]) -> tuple[LoopDim, LoopDim, LoopDim] | None:
    """(i, k, j) loops of a matmul-like statement among its three innermost loops."""
    st = scop.statement(stmt)
    if len(dims) < 3 or not st.indices:
        return None
    last = st.indices[-1]
    by_iter = {_iterator(d, stmt): d for d in dims[-3:]}
    if None in by_iter:
        return None
    used = set().union(*(ix.names() for ix in st.indices))
    red = [v for v in by_iter if v not in used]
    cols = [v for v in by_iter if v in used and abs(last.coeff(v)) == 1
            and not any(ix.coeff(v) for ix in st.indices[:-1])]
    rows = [v for v in by_iter if v in used and v not in cols]
    if len(red) != 1 or len(cols) != 1 or len(rows) != 1:
        return None
    return by_iter[rows[0]], by_iter[red[0]], by_iter[cols[0]]


def _isolate(scop: Scop, deps: Dependences, tree: Node, stmt: str, depth: int) -> Node | None:
    """Distribute loops until ``stmt``'s innermost ``depth`` loops hold nothing else."""
    for _ in range(depth + 4):
        dims = loops_around(tree, stmt)
        if len(dims) < depth:
            return None
        busy = None
        for d in dims[-depth:]:
            node = band_at(tree, d.loop_id)
            if not isinstance(node.child, (Band, Leaf)):
                busy = d
        if busy is None:
            return tree
        try:
            cand = distribute(scop, None, tree, busy.loop_id)
        except PolyoptError:
            return None
        if not is_legal(scop, deps, cand):
            return None
        tree = cand
    return None


def register_tile_all(scop: Scop, deps: Dependences, tree: Node,
                      options: Options) -> tuple[Scop, Dependences, Node]:
    """Register-tile every statement that reduces into an array matmul-style, then pack
    the column operands of the nests tiled; the split scop and its dependences come
    back with the tree."""
    nests: list[_Nest] = []
    too_complex: set[str] = set()  # arrays whose expansion isl gave up on
    for stmt, red in sorted(deps.reductions.items()):
        if not red.is_array or stmt not in {s.name for s in scop.statements}:
            continue
        domain = scop.statement(stmt).domain
        alone = _nest_alone(scop, tree, stmt)
        if alone is not None:
            # its own nest, as a program of its own: the same legality, for a fraction
            # of the analysis (3mm: each split analysed one matmul, not all three)
            _, nest_scop, nest_tree = alone
            result = _register_tile(nest_scop, analyze(nest_scop), nest_tree, stmt, options)
        else:
            deps = _current(scop, deps)
            result = _register_tile(scop, deps, tree, stmt, options)
        if result is None:  # the row buffer of an expansion may be used elsewhere
            deps = _current(scop, deps)
            result = _register_tile_expanded(scop, deps, tree, stmt, options, too_complex)
            alone = None
        if result is None:
            continue
        nest_scop, nest_deps, nest_tree, nest = result
        nests.append(nest)
        edge = _register_tile_edge(nest_scop, nest_deps, nest_tree, nest, domain, options)
        if edge is not None:
            nest_scop, nest_deps, nest_tree, nest = edge
            nests.append(nest)
        if alone is not None:
            scop, tree = _put_back(scop, tree, alone[0], nest_scop, nest_tree)
        else:
            scop, deps, tree = nest_scop, nest_deps, nest_tree
    packed = False
    if options.pack and nests:
        # every nest's operands packed, then one dependence analysis for all of them
        # (3mm: one instead of three)
        scop, tree, packed = _pack_operands(scop, tree, nests)
    deps = analyze(scop) if packed else _current(scop, deps)
    # last: tiling a later nest rebuilds the tree, and its bands come back one loop each
    for n in nests:
        tree = _rest_in_one_band(tree, n.stmt[:-1] + "r")
    if nests and not isinstance(options.tile, tuple):  # a user's row blocks stay as given
        tree = mark_ranged(scop, deps, tree, {n.stmt: (n.i, n.mr) for n in nests})
    return scop, deps, tree


def _current(scop: Scop, deps: Dependences) -> Dependences:
    """``deps`` if they are ``scop``'s, else ``scop``'s (an earlier nest tiled alone)."""
    return deps if deps.scop is scop else analyze(scop)


def _nest_alone(scop: Scop, tree: Node, stmt: str) -> tuple[int, Scop, Node] | None:
    """The nest of the root sequence that runs ``stmt``: its position, a scop of its
    statements alone (in their order as written), and the nest.

    A transformation inside one child of the root sequence keeps the order between
    children, so the dependences between its own statements decide its legality.  Not
    where a local scalar is used inside the nest and outside it: whether a dependence
    on it may be waived (its live ranges kept apart) depends on the reads elsewhere."""
    if not isinstance(tree, Sequence) or len(tree.children) < 2:
        return None
    for k, child in enumerate(tree.children):
        inside = set(statements(child))
        if stmt not in inside:
            continue
        mine = [s for s in scop.statements if s.name in inside]
        theirs = [s for s in scop.statements if s.name not in inside]

        def scalars(group: list[Statement]) -> set[str]:
            return {a.target for s in group for a in s.accesses
                    if a.target in scop.local_scalars}

        if scalars(mine) & scalars(theirs):
            return None
        return k, replace(scop, statements=tuple(mine),
                          schedule=_order_of(scop.schedule, inside)), child
    return None


def _order_of(node: Node, kept: set[str]) -> Node:
    """The order ``node`` gives the statements ``kept`` (which it runs)."""
    if isinstance(node, Leaf):
        return node
    if isinstance(node, Sequence):
        kids = tuple(_order_of(c, kept) for c in node.children if kept & set(statements(c)))
        return kids[0] if len(kids) == 1 else Sequence(kids)
    dims = tuple(replace(d, exprs=tuple((s, e) for s, e in d.exprs if s in kept))
                 for d in node.dims)
    return replace(node, dims=dims, child=_order_of(node.child, kept))


def _put_back(scop: Scop, tree: Node, k: int, nest_scop: Scop,
              nest_tree: Node) -> tuple[Scop, Node]:
    """``scop`` and ``tree`` with the ``k``-th nest of the root sequence replaced by a
    transformed :func:`_nest_alone` (its statements where the nest's first was)."""
    assert isinstance(tree, Sequence)
    before = set(statements(tree.children[k]))
    kept: list[Statement] = []
    for s in scop.statements:
        if s.name not in before:
            kept.append(s)
        elif not any(t in kept for t in nest_scop.statements):
            kept += nest_scop.statements

    def in_place(nest: Node) -> Node:
        inner = nest.children if isinstance(nest, Sequence) else (nest,)
        return Sequence((*tree.children[:k], *inner, *tree.children[k + 1:]))

    # the scop's order (of its dependences) is the nest's as its last split left it, as
    # a split of the whole program leaves the whole tree: an order of tiles and register
    # tiles costs isl seconds to describe a dependence in (trmm's refused packing)
    return replace(nest_scop, statements=tuple(kept),
                   schedule=in_place(nest_scop.schedule)), in_place(nest_tree)


@dataclass(frozen=True)
class _Nest:
    """A register-tiled nest: its statement, row, reduction and column iterators,
    register tile height and width, and outermost loop."""

    stmt: str
    i: str
    k: str
    j: str
    mr: int
    nr: int
    top: str
    pack_rows: bool = True


def _register_tile(scop: Scop, deps: Dependences, tree: Node, stmt: str, options: Options,
                   parts: list[tuple[str, isl.Set]] | None = None,
                   ) -> tuple[Scop, Dependences, Node, _Nest] | None:
    """``parts``: the split into full tiles and rest (named ``<stmt>f`` and ``<stmt>r``)
    when the caller has it (see _register_tile_edge), instead of the full tiles of
    ``stmt``'s domain."""
    dims = loops_around(tree, stmt)
    roles = _roles(scop, stmt, dims)
    if roles is None or has_iterator_stride(scop.statement(stmt).domain):
        return None  # a lattice's tiles: see transforms.tile.refuse_strided
    st = scop.statement(stmt)
    dtype = scop.arrays[st.target].dtype
    i_it, k_it = _iterator(roles[0], stmt), _iterator(roles[1], stmt)
    triangular = i_it in st.iterators and k_it in st.iterators and depends_on(
        st.domain, st.iterators.index(k_it), st.iterators.index(i_it))
    mr, nr = options.unroll_jam if isinstance(options.unroll_jam, tuple) else micro_tile(dtype)
    packed = _column_packed(scop, stmt, roles, options)
    if triangular and mr > 1:
        # the rows of a tile share the k range above their diagonal
        diagonal = _register_tile_diagonal(scop, deps, tree, stmt, roles, mr, nr,
                                           _cache_tiles(options, dtype, mr, nr, packed))
        if diagonal is not None:
            return diagonal
        if not isinstance(options.unroll_jam, tuple):
            mr, nr = single_row_tile(dtype)  # no k range common to several rows: one row a tile
    cache = _cache_tiles(options, dtype, mr, nr, packed)
    row_tile = None
    if cache is not None:
        tree, row_tile = _shared_row_tile(scop, deps, tree, stmt, roles[0], cache[0])
    isolated = _isolate(scop, deps, tree, stmt, 3)
    # the shared row tile may have put its loop among the innermost three: decided
    # here, before the split and its costly analysis (splitting and distributing keep
    # the loops' expressions, so the split program's check below would agree)
    if isolated is None or _roles(scop, stmt, loops_around(isolated, stmt)[-3:]) is None:
        return None
    i, k, j = (_iterator(d, stmt) for d in roles)
    assert i and k and j
    split = _split(scop, isolated, stmt, {i: mr, j: nr}, parts)
    if split is None:
        return None
    scop2, tree2 = split
    deps2 = analyze(scop2)
    full = f"{stmt}f"
    if f"{stmt}r" in {s.name for s in scop2.statements}:
        isolated = _isolate(scop2, deps2, tree2, full, 3)
        if isolated is None:
            return None
        tree2 = isolated
    chain_dims = loops_around(tree2, full)[-3:]
    roles2 = _roles(scop2, full, chain_dims)
    if roles2 is None:
        return None
    di, dk, dj = roles2
    outer = [] if cache is None else [
        _tiled(dk, cache[1], "tile"), _tiled(dj, cache[2], "tile")]
    if cache is not None and row_tile is None:
        outer.insert(0, _tiled(di, cache[0], "tile"))
    new_chain = [
        *outer, _tiled(dj, nr, "reg"), _tiled(di, mr, "reg"),
        _restrict(dk), _restrict(di, unroll=True), _restrict(dj, unroll=True),
    ]
    top = chain_dims[0].loop_id
    result = replace_at(tree2, find(tree2, top), build_chain(new_chain, Leaf(full)))
    if not is_legal(scop2, deps2, result):
        return None
    if cache is not None and row_tile is None and not _parallel(scop2, deps2, result, outer[0]):
        # the rows are sequential (trmm reads the rows below the one it updates): the
        # column blocks are what the threads share, outermost, and small enough that
        # there are several per thread
        cand = [_tiled(dj, _column_block(nr, cache), "tile"),
                _tiled(di, cache[0], "tile"), _tiled(dk, cache[1], "tile"), *new_chain[3:]]
        by_columns = replace_at(tree2, find(tree2, top), build_chain(cand, Leaf(full)))
        if is_legal(scop2, deps2, by_columns) and _parallel(scop2, deps2, by_columns, cand[0]):
            new_chain, result = cand, by_columns
    # operands are packed before the outermost loop of the nest: the shared row tiles
    # when there are some (the nest is fused with its neighbours inside them)
    top = loops_around(result, full)[0].loop_id if row_tile is not None else new_chain[0].loop_id
    return scop2, deps2, result, _Nest(full, i, k, j, mr, nr, top)


def _rest_in_one_band(tree: Node, rest: str) -> Node:
    """``tree`` with the innermost three loops of ``rest`` (a split's ragged rows and
    columns) in one band, which the cache tiler leaves whole (``tiling._has_joint_band``)::

        for i.rest, k.rest, j.rest:      # not: for i.tile, k.tile, j.tile: for i, k, j
            Sr(i, j, k)

    At most ``MR - 1`` rows and ``NR - 1`` columns of work: cache tiles buy little there,
    and their floors on the rest's split domain were a third of isl's AST time for 3mm.
    Unchanged where those loops hold other statements too."""
    dims = loops_around(tree, rest)[-3:]
    if len(dims) < 3:
        return tree
    path = find(tree, dims[0].loop_id)
    node = at(tree, path)
    if not (isinstance(node, Band) and node.dims[0] == dims[0] and len(node.dims) == 1
            and set(statements(node)) == {rest}):
        return tree  # one band already (a diagonal split's), or not the rest's own loops
    return replace_at(tree, path, Band(tuple(_point(d, rest, "rest") for d in dims), Leaf(rest)))


def _split(scop: Scop, tree: Node, stmt: str, sizes: dict[str, int],
           parts: list[tuple[str, isl.Set]] | None) -> tuple[Scop, Node] | None:
    """``stmt`` split into its full tiles of ``sizes`` and the rest, or into ``parts`` when
    their full part (``<stmt>f``) is whole tiles: the printer writes out every copy of a
    tile, unguarded, so a part holding half a tile would run the other half too."""
    if parts is None:
        return split_full_tiles(scop, tree, stmt, sizes)
    out = split_statement(scop, tree, stmt, parts)
    if not full_tile_domain(out[0], out[0].statement(f"{stmt}f"), sizes)[1].is_empty():
        return None
    return out


def _register_tile_edge(scop: Scop, deps: Dependences, tree: Node, nest: _Nest, domain: isl.Set,
                        options: Options) -> tuple[Scop, Dependences, Node, _Nest] | None:
    """The full rows' ragged columns in register tiles of ``EDGE_COLUMNS``.

    The columns past the last whole ``NR``-column tile (``nj % NR`` of them: 12 of
    gemm's 1,100 at PolyBench LARGE) otherwise run in loops that load and store their
    row of ``C`` at every ``k`` (a tenth of gemm's time there).  The rest of the split
    is split again, into the ``MR x EDGE_COLUMNS`` tiles of the statement's domain that
    are not in its full ``MR x NR`` tiles, and what is left; the first part is
    register-tiled as the main tiles are, with the same rows::

        for i.reg, j.reg: MR x NR micro-kernel        # Sf
        for i.reg, j.reg: MR x 4 micro-kernel         # Srf: the next 4 * ((nj % NR) // 4)
        for i, k, j: the rest                         # Srr: ragged rows, last nj % 4 columns

    Both parts are computed from the statement's domain before the first split
    (``domain``), not from the rest's: the rest of a rest has many more pieces
    (correlation's triangle: 14 s of isl in LICM's checks instead of none).  The row operand is not packed again (a second copy of A).
    """
    parts = {s.name: s for s in scop.statements}
    base = nest.stmt[:-1]
    rest = base + "r"
    if nest.nr < 3 * EDGE_COLUMNS or nest.nr % EDGE_COLUMNS or nest.mr < 2 \
            or rest not in parts or base + "d" in parts:
        # a main tile of 10 columns leaves half a narrow tile beside it; one of 8 (AVX2's
        # float64) room for one narrow tile, whose columns isl then bounds by
        # `nj - 4 - (nj + 4) % 8`, which the printer does not unroll (isl builds the AST
        # again); the rest of a diagonal split holds ragged rows of each tile
        return None
    its = parts[nest.stmt].iterators
    if depends_on(domain, its.index(nest.j), its.index(nest.i)):
        # a triangle's (correlation's j > i) edge tiles line its diagonal: more pieces,
        # whose AST cost isl seconds, for a sliver of the work
        return None
    wide = replace(parts[nest.stmt], domain=names.rename_set(domain, nest.stmt))
    if not wide.domain.is_equal(parts[nest.stmt].domain.union(
            names.rename_set(parts[rest].domain, nest.stmt))):
        return None  # not the statement the nest was split from (an expansion's, say)
    narrow, left = full_tile_domain(scop, wide, {nest.i: nest.mr, nest.j: EDGE_COLUMNS})
    edge = coalesce(narrow.subtract(parts[nest.stmt].domain))
    if edge.is_empty():
        return None
    pieces = [(f"{rest}f", names.rename_set(edge, f"{rest}f"))]
    if not left.is_empty():
        pieces.append((f"{rest}r", names.rename_set(left, f"{rest}r")))
    tiled = _register_tile(scop, deps, tree, rest,
                           replace(options, unroll_jam=(nest.mr, EDGE_COLUMNS), tile=False), pieces)
    if tiled is None:
        return None
    return (*tiled[:3], replace(tiled[3], pack_rows=False))


def _register_tile_diagonal(scop: Scop, deps: Dependences, tree: Node, stmt: str,
                            roles: tuple[LoopDim, LoopDim, LoopDim], mr: int, nr: int,
                            cache: tuple[int, int, int] | None,
                            ) -> tuple[Scop, Dependences, Node, _Nest] | None:
    """Register tiles for a matmul whose reduction range starts or ends at the row
    (trmm's ``for k in range(i + 1, m): B[i, j] += A[k, i] * B[k, j]``, a triangular
    solve's ``for k in range(i): B[i, j] -= A[i, k] * B[k, j]``).

    The rows of an ``mr``-row tile share the ``k`` range beyond the tile
    (:func:`polyopt.transforms.split.split_diagonal_tiles`); the triangle next to it,
    the diagonal, runs in plain loops just before the micro-kernel of the same tile
    (trmm: its ``k`` come first) or just after it (the solve); the ragged rows before
    the first tile run first, and the other ragged rows and columns after all tiles::

        for i, k, j: the ragged rows before the tiles      # the solve's first rows
        for j.tile, k.tile, i.tile, j.reg, i.reg:    # j.tile parallel (the rows are not)
            for i, k, j in the tile: diagonal        # trmm: i < k < i0 + mr
            for k: MR x NR micro-kernel              # trmm: k >= i0 + mr; solve: k < i0
            (the solve's diagonal here: i0 <= k < i)
        for i, k, j: the other ragged rows and columns

    Rows that are independent keep gemm's order, row blocks outermost.  Every tree is
    checked against the dependences of the split program: trmm's rows stay in order (a
    row reads the rows below it before their tile updates them), and the solve's too
    (a row reads the rows above it after their tiles updated them).  None when no tree
    is legal.  ``cache``: the cache blocks (None: no cache tiling).
    """
    isolated = _isolate(scop, deps, tree, stmt, 3)
    if isolated is None:
        return None
    i, k, j = (_iterator(d, stmt) for d in roles)
    assert i and k and j
    split = split_diagonal_tiles(scop, isolated, stmt, {i: mr, j: nr}, i)
    if split is None:
        return None
    scop2, tree2 = split
    full, diag, ragged, before = f"{stmt}f", f"{stmt}d", f"{stmt}r", f"{stmt}b"
    dims = loops_around(tree2, full)[-3:]
    roles2 = _roles(scop2, full, dims)
    if roles2 is None:
        return None
    di, dk, dj = (_only(d, (full, diag)) for d in roles2)
    kernel = build_chain([_restrict(_only(dk, (full,))), _restrict(_only(di, (full,)), unroll=True),
                          _restrict(_only(dj, (full,)), unroll=True)], Leaf(full))
    # one band: register tiling built it as a unit, the tiler leaves it whole
    triangle = Band(tuple(_point(d, diag, "diag") for d in roles2), Leaf(diag))
    # the ragged parts in one band each too: at most MR - 1 rows and NR - 1 columns of
    # work, not worth cache tiles, whose floors on their split domains cost isl seconds
    parts = {s.name for s in scop2.statements}
    rest = [Band(tuple(_point(d, ragged, "rest") for d in roles2), Leaf(ragged))] \
        if ragged in parts else []
    first = [Band(tuple(_point(d, before, "first") for d in roles2), Leaf(before))] \
        if before in parts else []
    # (cache blocks, whether the outermost must be parallel): the row blocks where the
    # threads can share them, else the column blocks, else the row blocks in order
    orders: list[tuple[list[LoopDim], bool]] = [([], False)]
    if cache is not None:
        by_rows = [_tiled(di, cache[0], "tile"), _tiled(dk, cache[1], "tile"),
                   _tiled(dj, cache[2], "tile")]
        by_columns = [_tiled(dj, _column_block(nr, cache), "tile"), _tiled(dk, cache[1], "tile"),
                      _tiled(di, cache[0], "tile")]
        orders = [(by_rows, True), (by_columns, True), (by_rows, False)]
    deps2 = analyze(scop2)
    for outer, shared in orders:
        tiles = [*outer, _tiled(dj, nr, "reg"), _tiled(di, mr, "reg")]
        for body in ((triangle, kernel), (kernel, triangle)):
            nest = build_chain(tiles, Sequence(body))
            result = normalize(replace_at(tree2, find(tree2, dims[0].loop_id),
                                          Sequence((*first, nest, *rest))), split_bands=False)
            if is_legal(scop2, deps2, result) and (
                    not shared or _parallel(scop2, deps2, result, outer[0])):
                return scop2, deps2, result, _Nest(full, i, k, j, mr, nr, tiles[0].loop_id)
    return None


def _only(d: LoopDim, stmts: tuple[str, ...]) -> LoopDim:
    """``d`` scheduling only ``stmts``."""
    return replace(d, exprs=tuple((s, e) for s, e in d.exprs if s in stmts))


def _point(d: LoopDim, stmt: str, kind: str) -> LoopDim:
    """A point loop of ``d`` for ``stmt`` alone, in a nest of its own."""
    return LoopDim(f"{d.loop_id}.{kind}", d.name, ((stmt, d.expr(stmt)),), LoopMark(), (),
                   f"{d.label or d.name}.{kind}")


def _register_tile_expanded(scop: Scop, deps: Dependences, tree: Node, stmt: str,
                            options: Options, too_complex: set[str],
                            ) -> tuple[Scop, Dependences, Node, _Nest] | None:
    """doitgen's ``sum_[p] += A[r, q, s] * C4[s, p]``: the target is a buffer that one of
    the three innermost loops (``q``) reuses, so those loops are no matmul; with a row of
    the buffer per iteration of that loop (:mod:`polyopt.transforms.expand`) they are."""
    st = scop.statement(stmt)
    dims = loops_around(tree, stmt)
    if st.target not in scop.arrays or len(dims) < 3 or st.target in too_complex:
        return None
    used = set().union(*(ix.names() for ix in st.indices))
    its = [_iterator(d, stmt) for d in dims[-3:]]
    if None in its or sum(it not in used for it in its) != 2:
        # the expanded target is indexed by one more loop, and a matmul's by two of its
        # three: floyd-warshall's min over k (its target indexed by i and j) cannot become
        # one, and each try asked isl for the array's flows
        return None
    for d in dims[-3:]:
        it = _iterator(d, stmt)
        if it is None or it in used:
            continue
        try:
            with budget(EXPANSION_OPS, f"expanding {st.target}"):
                scop2, tree2 = expand(scop, deps, tree, st.target, d.loop_id)
        except TooComplexError:  # the flows on the array, which every loop asks for alike
            too_complex.add(st.target)
            return None
        except PolyoptError:
            continue
        result = _register_tile(scop2, analyze(scop2), tree2, stmt, options)
        if result is not None:
            return result
    return None


def _parallel(scop: Scop, deps: Dependences, tree: Node, d: LoopDim) -> bool:
    return loop_verdict(scop, deps, tree, d.loop_id).kind is LoopKind.PARALLEL


def _column_block(nr: int, cache: tuple[int, int, int]) -> int:
    """The column block of a nest whose threads share the columns: BLIS's ``nc``, at most
    eight register tiles wide (1,200 columns make five blocks of 256 float64)."""
    return min(cache[2], COLUMN_BLOCK_TILES * nr)


def _shared_row_tile(scop: Scop, deps: Dependences, tree: Node, stmt: str, di: LoopDim,
                     size: int) -> tuple[Node, str | None]:
    """Tile-level fusion: keep the statements fused with ``stmt`` at its row loop.

    When the row loop ``di`` also runs other statements (a fill of ``C``, or the
    ``exp`` of matmul -> exp -> matmul), isolating the matmul would distribute it and
    lose that fusion.  Instead ``di`` is tiled by the cache tile ``size`` first: the
    tile loop stays shared, and only the point loop inside it is distributed::

        for i:                        for i.tile:                 # shared, parallel
            for j: C[i, j] = 0.0          for i in tile: for j: C[i, j] = 0.0
            for k, j: C[i, j] += ..       register-tiled matmul of the tile's rows

    so a tile's rows of ``C`` are still in cache when the matmul reads them.  Returns
    the tree and the id of the row-tile loop around ``stmt`` (None when there is none:
    ``di`` runs ``stmt`` alone, or tiling it is illegal).  A row-tile loop that is
    already there (made for an earlier nest of the same fused loop) is reused.
    """
    i_expr = di.expr(stmt)
    wanted = floordiv(i_expr, size)
    above = loops_around(tree, stmt)
    for d in above[:above.index(di)]:
        if d.expr(stmt) == wanted:
            return tree, d.loop_id
    band = band_at(tree, di.loop_id)
    if statements(band) == [stmt]:
        return tree, None
    try:
        cand = tile(scop, None, tree, [di.loop_id], [size])
    except PolyoptError:
        return tree, None
    if not is_legal(scop, deps, cand):
        return tree, None
    new_above = loops_around(cand, stmt)
    return cand, next(d.loop_id for d in new_above if d.expr(stmt) == wanted)


def _pack_operands(scop: Scop, tree: Node, nests: list[_Nest]) -> tuple[Scop, Node, bool]:
    """Each column operand of each nest read from contiguous panels, where that is legal
    (:func:`polyopt.transforms.pack.pack` refuses the rest)."""
    packed = False
    for n in nests:
        # column operands (B[k, j]) in panels of NR columns, row operands (A[i, k]) in
        # panels of MR rows: each micro-kernel then streams two contiguous panels
        for across, width, rows in ((n.j, n.nr, False), (n.i, n.mr, True))[:1 + n.pack_rows]:
            for read in panel_operands(scop.statement(n.stmt), n.k, across):
                current = next(r for r in scop.statement(n.stmt).reads if r.tag == read.tag)
                if rows and in_row_panels(scop, n.stmt, current, n.k, across):
                    continue  # the copy would be the operand itself, element for element
                try:
                    scop, tree = pack(scop, tree, n.stmt, current, n.k, across, width, n.top, rows)
                except PolyoptError:  # illegal (the nest writes it) or not at the top level
                    continue
                packed = True
    return scop, tree, packed


def _column_packed(scop: Scop, stmt: str, roles: tuple[LoopDim, LoopDim, LoopDim],
                   options: Options) -> bool:
    """Whether the column operands of ``stmt`` can be packed: packing is on and the
    statement does not write them (trmm's ``B[i, j] += A[k, i] * B[k, j]`` does)."""
    st = scop.statement(stmt)
    k, j = _iterator(roles[1], stmt), _iterator(roles[2], stmt)
    return bool(options.pack) and k is not None and j is not None and not any(
        r.target == st.target for r in panel_operands(st, k, j))


def _cache_tiles(options: Options, dtype: DType, mr: int, nr: int,
                 packed: bool = True) -> tuple[int, int, int] | None:
    """Cache tile sizes for (i, k, j): BLIS's blocks for the target's caches (``packed``:
    whether the column operand will be read from panels), the user's (rounded up to
    whole register tiles), or None when tiling is off."""
    if options.tile is False:
        return None
    if isinstance(options.tile, tuple):
        sizes = list(options.tile) + [options.tile[-1]] * 3
        ti, tk, tj = sizes[0], sizes[1], sizes[2]
        return (-(-ti // mr) * mr, tk, -(-tj // nr) * nr)
    b = blocks(target.vector_unit(), dtype, mr, nr, packed)  # through the module: tests patch it
    return b.mc, b.kc, b.nc


def _tiled(d: LoopDim, size: int, kind: str) -> LoopDim:
    return LoopDim(f"{d.loop_id}.{kind}", d.name,
                   tuple((s, floordiv(e, size)) for s, e in d.exprs), LoopMark(atomic=True), (),
                   f"{d.label or d.name}.{kind}")


def _restrict(d: LoopDim, unroll: bool = False) -> LoopDim:
    return replace(d, mark=LoopMark(unroll=unroll))
