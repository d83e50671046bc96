"""Packing: a register-tiled matmul reads its operands from copies laid out as the
micro-kernel walks them.

A micro-kernel of ``C[i, j] += A[i, k] * B[k, j]`` with ``NR`` columns reads, at
every step of ``k``, the ``NR`` elements ``B[k, j0:j0+NR]``: one new cache line
and, at ``N = 1024`` doubles per row, one new page per step.  Packing copies B
once into column panels, ``B_pk[j // NR, k, j % NR] = B[k, j]``, so that a
micro-kernel's whole walk over ``k`` is one contiguous stream::

    for k in range(p):                        for jp, k, j in ...:          # new: P
        for j in range(m):                        B_pk[j // 8, k, j % 8] = B[k, j]
            C[i, j] += A[i, k] * B[k, j]   =>  ... C[i, j] += A[i, k] * B_pk[j // 8, k, j % 8]

An operand read transposed (``A[j, k]`` in syrk) gains most: its ``NR`` elements
lie ``NR`` rows apart.  The row operand is packed in panels of ``MR`` rows, each
row's run over ``k`` contiguous (``rows=True``): ``A_pk[i // MR, i % MR, k] =
A[i, k]``, so that a micro-kernel streams ``MR`` rows of one small panel, and gcc
broadcasts each of the ``MR`` elements it needs at a ``k`` step straight from memory.
With BLIS's interleaved layout (``A_pk[i // MR, k, i % MR]``) gcc loaded the ``MR``
adjacent elements as one vector and took each lane out with a shuffle, ``MR`` shuffles
per step competing with the multiply-adds for the same ports (shared/guide/fast-c.md
also measured the row layout faster).  The copy is exact because the copy statement runs just
before the register-tiled nest and nothing in that nest writes the operand, so
every element read from the panel equals the one the original read found; that
is checked, and a request that would break it is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeGuard

from polyopt.analysis.dependences import analyze
from polyopt.analysis.describe import describe
from polyopt.model import isl_text, names
from polyopt.model.aff import TRUE, Lin, floordiv
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.expr import Binary, Expr, Literal, Load, Name, loads, map_leaves, map_nodes, walk
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, LoopMark, Node, Sequence, statements
from polyopt.model.scop import Access, Array, ArrayKind, ScalarKind, Scop, Statement
from polyopt.transforms.tree import at, find, fresh


def panel_operands(st: Statement, k: str, j: str) -> list[Access]:
    """The reads of ``st`` whose subscripts are ``k`` and ``j`` alone, each once with
    coefficient 1 (``B[k, j]``, ``A[j, k]``): the column operands of a matmul."""
    out = []
    for r in st.reads:
        if len(r.indices) != 2 or not _loaded_plainly(st.value, r):
            continue
        plain = [ix.as_name() for ix in r.indices]
        if sorted(v for v in plain if v) == sorted((k, j)):
            out.append(r)
    return out


def _loaded_plainly(value: Expr, r: Access) -> bool:
    """``r`` is read in ``value`` only by unconditional loads."""
    found = _loads(value, r)
    return bool(found) and all(x.guard == TRUE for x in found)


#: elements of a transposed operand's row that one step of a row-panel copy reads together
LINE_ELEMENTS = 8


def pack(scop: Scop, tree: Node, stmt: str, read: Access, k: str, j: str, nr: int,
         top: str, rows: bool = False) -> tuple[Scop, Node]:
    """``read`` of ``stmt`` taken from a copy in column panels of ``nr``, made by a new
    statement placed just before the outermost loop ``top`` of ``stmt``'s nest.
    ``rows``: each lane's run over ``k`` is contiguous (``A_pk[ip, il, k]``), for the
    row operand (see the module's docstring).

    The result's source order is the returned tree.  Raises
    :class:`IllegalTransformationError`, naming the dependence, when a statement in
    that nest writes the operand (the copy would go stale), and a plain
    :class:`PolyoptError` when the nest is not at the top level of the program (the
    copy would need the enclosing loops' iterators: not supported).
    """
    st = scop.statement(stmt)
    array = read.target
    seq = tree if isinstance(tree, Sequence) else Sequence((tree,))
    path = find(seq, top)
    if len(path) != 1:
        raise PolyoptError(f"cannot pack {array}: the nest of {stmt} is inside other loops")
    inside = set(statements(at(seq, path)))
    writers = sorted(s.name for s in scop.statements if s.target == array and s.name in inside)
    if writers:
        # the nest's writes the packed read would no longer see (flow into it), or
        # that it would no longer precede (anti out of it)
        stale = [d for d in analyze(scop).memory if d.array == array
                 and {d.source.statement, d.sink.statement} <= inside
                 and read.tag in (d.sink.tag, d.source.tag)]
        message = f"cannot pack {array}: {', '.join(writers)} writes it inside the packed nest"
        if stale:
            message += f", so the copy would go stale across the {describe(scop, stale[0])}"
        raise IllegalTransformationError(message, tuple(stale))

    taken = set(scop.arrays) | set(scop.scalars) | set(scop.params)
    buf = fresh(f"{array}_pk", taken)
    avoid = taken | set(st.iterators)
    pname = fresh(f"{stmt}_pk", {s.name for s in scop.statements})
    # the panel's dimensions, in its layout's order: (panel, k, lane), or (panel, lane, k)
    # for ``rows``; each has a copy iterator, a subscript from the nest's and an extent
    jp, jl = fresh(f"{j}_panel", avoid), fresh(f"{j}_lane", avoid)
    iters = (jp, jl, k) if rows else (jp, k, jl)
    jv, kv = Lin.var(j), Lin.var(k)
    j_extent, k_extent = _extents(scop, st, read, k, j)
    subscript = {jp: floordiv(jv, nr), jl: jv - floordiv(jv, nr).scale(nr), k: kv}
    extent = {jp: floordiv(j_extent + Lin.constant(nr - 1), nr), jl: Lin.constant(nr),
              k: k_extent}
    nest_iterator = {jp: j, jl: j, k: k}
    panel = tuple(subscript[v] for v in iters)
    shape = tuple(extent[v] for v in iters)
    product = _scaled(scop, st.value, read)
    dtype = scop.arrays[array].dtype if product is None else product.type.dtype

    # the copy: every (k, j) the nest reads, in its own statement over the panel's
    # dimensions, so that its subscripts need no division: B_pk[jp, k, jl] = B[k, nr * jp + jl]
    to_copy = isl_text.make_map(scop.params, st.name, st.iterators, pname, panel)
    domain = names.name_dims(st.domain.apply(to_copy), iters)
    dst = tuple(Lin.var(v) for v in iters)
    src = tuple(ix.substitute({j: Lin.var(jp).scale(nr) + Lin.var(jl)}) for ix in read.indices)
    load = Load(array, src, _loads(st.value, read)[0].type)
    copied: Expr = load if product is None else (
        replace(product, lhs=load) if _is_read(product.lhs, read) else replace(product, rhs=load))
    write = Access(f"{pname}.w", pname, buf, dst, True, isl_text.make_map(
        scop.params, pname, iters, buf, dst).intersect_domain(domain))
    source = Access(f"{pname}.r0", pname, array, src, False, isl_text.make_map(
        scop.params, pname, iters, array, src).intersect_domain(domain),
        copy_of=(st.name, read.indices))
    loops = dict(zip(st.iterators, st.loops, strict=False))
    where = replace(st.location, text=f"packing {array} for {st.source}")
    copy = Statement(pname, iters, domain, buf, dst, copied, None,
                     tuple(loops[nest_iterator[v]] for v in iters if nest_iterator[v] in loops),
                     where, write, (source,))

    # the nest reads the panels
    rel = isl_text.make_map(scop.params, st.name, st.iterators, buf, panel).intersect_domain(st.domain)
    reads = tuple(replace(r, target=buf, indices=panel, relation=rel) if r is read else r
                  for r in st.reads)
    if product is None:
        value = map_leaves(st.value, lambda x: replace(x, array=buf, indices=panel)
                           if _is_read(x, read) else x)
    else:
        scaled = Load(buf, panel, product.type)
        value = map_nodes(st.value, lambda x: scaled if x == product else x)
    new_st = replace(st, value=value, reads=reads)
    stmts: list[Statement] = []
    for s in scop.statements:
        if s.name == stmt:
            stmts += [copy, new_st]
        else:
            stmts.append(s)

    dims = tuple(LoopDim(f"{top}.{pname}.{v}", v, ((pname, Lin.var(v)),), LoopMark(), (), v)
                 for v in iters)
    if rows and read.indices[-1].as_name() == j:
        dims = _across_rows(dims, pname, jp, -(-LINE_ELEMENTS // nr))
    copy_nest = Band(dims, Leaf(pname), permutable=True)
    children = list(seq.children)
    children[path[0]:path[0]] = [copy_nest]
    new_tree: Node = Sequence(tuple(children))
    arrays = {**scop.arrays, buf: Array(buf, dtype, shape, ArrayKind.TEMPORARY, clamped=True)}
    return replace(scop, arrays=arrays, statements=tuple(stmts), schedule=new_tree), new_tree


def _across_rows(dims: tuple[LoopDim, ...], pname: str, jp: str,
                 block: int) -> tuple[LoopDim, ...]:
    """The copy loops of row panels read from a transposed operand (trmm's ``A[k, i]``),
    ``(panel, lane, k)``, reordered as ``(panel // block, k, panel, lane)``: each ``k``
    step reads ``block`` panels' lanes from one row of the operand, a line at a time,
    where ``k`` innermost read one element per row, a page apart at PolyBench's sizes
    (a TLB miss per element when the operand is not on huge pages)::

        for ip, il, k:                              for ib, k, ip in block ib, il:
            A_pk[ip, il, k] = A[k, MR * ip + il]  =>     A_pk[ip, il, k] = A[k, MR * ip + il]
    """
    panel, lane, k = dims
    blocks = LoopDim(f"{panel.loop_id}.block", f"{jp}_block",
                     ((pname, floordiv(Lin.var(jp), block)),), LoopMark(), (), f"{jp}_block")
    return (blocks, k, panel, lane)


def in_row_panels(scop: Scop, stmt: str, read: Access, k: str, i: str) -> bool:
    """Whether ``read`` is already laid out as its row panels (``rows=True``): it reads
    ``A[i, k]`` plainly (no factor to fold in), and the panels' run over ``k`` is A's
    whole row, so that ``A_pk[i // MR, i % MR, k]`` sits where ``A[i, k]`` does.  gemm's
    ``C[i, j] += A[i, k] * B[k, j]`` over all of A's columns: its copy of A would cost
    a pass over A and a second copy in memory, for the same stream of addresses."""
    st = scop.statement(stmt)
    if read.indices != (Lin.var(i), Lin.var(k)) or _scaled(scop, st.value, read) is not None:
        return False
    shape = scop.arrays[read.target].shape
    return len(shape) == 2 and _extents(scop, st, read, k, i)[1] == shape[1]


def _extents(scop: Scop, st: Statement, read: Access, k: str, j: str) -> tuple[Lin, Lin]:
    """Upper bounds on ``j + 1`` and ``k + 1``: one more than the largest value each
    takes in ``st``'s domain where that is one affine function of the parameters (the
    loops' bounds), else the operand's extent in that dimension.  The loop bound comes
    first: a C array declared ``A[][64]`` has no first extent C can name (the model's
    ``A_extent0``), and a panel allocated with it would not compile."""
    shape = scop.arrays[read.target].shape
    ext = {ix.as_name(): shape[d] for d, ix in enumerate(read.indices)}
    return _accessed(st, j, ext[j]), _accessed(st, k, ext[k])


def _accessed(st: Statement, var: str, fallback: Lin) -> Lin:
    # a full-tile part's domain has floor(n / 8) bounds: those are left out
    terms = names.dim_max_affine(st.domain, st.iterators.index(var))
    if terms is None:
        return fallback
    coeffs, const = terms
    out = Lin.constant(const + 1)
    for name, c in sorted(coeffs.items()):
        out = out + Lin.var(name).scale(c)
    return out  # negative where the loop does not run: the panel is clamped (Array.clamped)


def _scaled(scop: Scop, value: Expr, read: Access) -> Binary | None:
    """The product of ``read`` with a factor that the copy can apply once per element,
    when that product is the read's only use: a literal, or an argument scalar (never
    written).  gemm's ``(alpha * A[i, k]) * B[k, j]`` then reads ``alpha * A[i, k]``
    from the panel, the same product rounded the same way, and its micro-kernel
    broadcasts it from memory instead of multiplying every element of A by alpha
    again for every panel of B::

        A_pk[ip, k, il] = A[MR * ip + il, k]         A_pk[ip, k, il] = alpha * A[MR * ip + il, k]
        C += (alpha * A_pk[..]) * B_pk[..]     =>    C += A_pk[..] * B_pk[..]
    """
    if len(_loads(value, read)) != 1:
        return None
    for x in walk(value):
        if isinstance(x, Binary) and x.op == "*":
            for operand, factor in ((x.lhs, x.rhs), (x.rhs, x.lhs)):
                if _is_read(operand, read) and _invariant(scop, factor):
                    return x
    return None


def _invariant(scop: Scop, e: Expr) -> bool:
    if isinstance(e, Literal):
        return True
    return isinstance(e, Name) and e.name in scop.scalars \
        and scop.scalars[e.name].kind is ScalarKind.ARGUMENT


def _is_read(e: Expr, read: Access) -> TypeGuard[Load]:
    return isinstance(e, Load) and e.array == read.target and e.indices == read.indices


def _loads(value: Expr, read: Access) -> list[Load]:
    """The loads in ``value`` that make the access ``read``."""
    return [x for x in loads(value) if x.array == read.target and x.indices == read.indices]
