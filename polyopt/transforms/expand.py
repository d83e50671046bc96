"""Array expansion: a buffer that every iteration of a loop fills and uses up gets a row
per iteration, so that the loop's iterations no longer share it.

doitgen computes each ``A[r, q, :]`` through one buffer ``sum_``; with a row of it per
``q``, the ``q`` loop can be distributed, and the products of all ``q`` become one
matmul per ``r`` (register-tiled like gemm)::

    for r, q:                                   for r, q:
        for p:                                      for p:
            sum_[p] = 0.0                               sum_x[q, p] = 0.0
            for s:                          =>          for s:
                sum_[p] += A[r, q, s] * C4[s, p]            sum_x[q, p] += A[r, q, s] * C4[s, p]
        for p:                                      for p:
            A[r, q, p] = sum_[p]                        A[r, q, p] = sum_x[q, p]
                                                for p:  # what the loop leaves in sum_
                                                    sum_[p] = sum_x[nq - 1, p]

It is exact when, proven on the dependences of the program:

- every access of the array is inside the loop, and every value read from it was
  written in the same iteration of the loop (and of the loops around it): no read
  sees what an earlier iteration, or the caller, left there;
- each iteration of the loop writes the same elements, so that after the loop the
  array holds, in each of them, what the last iteration wrote: the copy after the
  loop restores exactly that from the last iteration's row.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polyopt.analysis.dependences import Dependences
from polyopt.analysis.timeline import timeline
from polyopt.analysis.verdicts import flows_stay, reads_covered
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.expr import Load, loads, map_leaves
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, LoopMark, Node, Sequence
from polyopt.model.scop import Access, Array, ArrayKind, Scop, Statement
from polyopt.scheduler.nests import loops_around
from polyopt.transforms.tree import find, fresh


def expand(scop: Scop, deps: Dependences, tree: Node, array: str,
           loop_id: str) -> tuple[Scop, Node]:
    """``array`` given a row per iteration of the loop ``loop_id`` (a new temporary), and
    its final values restored by a copy placed after the loop's nest, which must be at
    the top level of ``tree``.  The result's source order is the returned tree.

    Raises :class:`IllegalTransformationError` when a value of ``array`` crosses the
    loop's iterations or comes from before it, and :class:`PolyoptError` when the
    program does not have the shape above (an access outside the loop, iterations that
    write different elements, a loop that may run below 0)."""
    seq = tree if isinstance(tree, Sequence) else Sequence((tree,))
    nest, prefixes = _nest(scop, seq, array, loop_id)
    tl = timeline(scop, tree)
    if not flows_stay(deps, tl, array, loop_id) or not reads_covered(scop, deps, array,
                                                                      set(prefixes)):
        raise IllegalTransformationError(
            f"cannot expand {array}: a value of it is read in another iteration of the "
            f"loop than the one that wrote it, or before the loop writes it",
            tuple(deps.flow_on(array))[:1])
    written = _written(scop, array, prefixes)
    depth = len(next(iter(prefixes.values())))
    iterations = written.domain()
    last = names.lexmax_affine(iterations, depth - 1)
    top = names.dim_max_affine(iterations, depth - 1)
    if last is None or top is None or not names.below(iterations, depth - 1, 0).is_empty():
        raise PolyoptError(f"cannot expand {array}: its loop's bounds are not affine in the "
                           f"sizes, or the loop runs below 0")

    taken = set(scop.arrays) | set(scop.scalars) | set(scop.params)
    buf = fresh(f"{array}_x", taken)
    counters = {n: p[-1].expr(n).as_name() or "" for n, p in prefixes.items()}
    stmts = [_rewritten(scop, s, array, buf, counters[s.name]) if s.name in counters else s
             for s in scop.statements]
    copy = _last_row(scop, stmts, array, buf, written.range(), _lin(last))
    stmts.insert(max(k for k, s in enumerate(stmts) if s.name in counters) + 1, copy)
    old = scop.arrays[array]
    row = _row_shape(written.range(), old.shape)
    arrays = {**scop.arrays, buf: Array(buf, old.dtype, (_lin(top) + Lin.constant(1), *row),
                                        ArrayKind.TEMPORARY, clamped=True)}
    dims = tuple(LoopDim(f"{copy.name}.{v}", v, ((copy.name, Lin.var(v)),), LoopMark(), (), v)
                 for v in copy.iterators)
    children = list(seq.children)
    children.insert(nest + 1, Band(dims, Leaf(copy.name), permutable=True) if dims
                    else Leaf(copy.name))
    new_tree: Node = Sequence(tuple(children))
    return replace(scop, arrays=arrays, statements=tuple(stmts), schedule=new_tree), new_tree


def _nest(scop: Scop, seq: Sequence, array: str,
          loop_id: str) -> tuple[int, dict[str, tuple[LoopDim, ...]]]:
    """The top-level position of the nest of ``loop_id``, and the loops around each
    statement that accesses ``array`` down to ``loop_id``."""
    prefixes: dict[str, tuple[LoopDim, ...]] = {}
    for s in scop.statements:
        if not any(a.target == array for a in s.accesses):
            continue
        around = loops_around(seq, s.name)
        ids = [d.loop_id for d in around]
        if loop_id not in ids:
            raise PolyoptError(f"cannot expand {array}: {s.name} accesses it outside the loop")
        prefixes[s.name] = tuple(around[:ids.index(loop_id) + 1])
    if not prefixes or array not in scop.arrays:
        raise PolyoptError(f"cannot expand {array}: no statement accesses it as an array")
    tops = {p[0].loop_id for p in prefixes.values()}
    path = find(seq, next(iter(tops)))
    if len(tops) != 1 or len(path) != 1:
        raise PolyoptError(f"cannot expand {array}: its loop is not in one top-level nest")
    if any(p[-1].expr(n).as_name() is None for n, p in prefixes.items()):
        raise PolyoptError(f"cannot expand {array}: the loop is not one of its iterators")
    return path[0], prefixes


def _written(scop: Scop, array: str, prefixes: dict[str, tuple[LoopDim, ...]]) -> isl.Map:
    """Iterations of the loops down to the expanded one -> the elements of ``array`` they
    write; the same elements for every iteration, or PolyoptError."""
    written = None
    for name, prefix in prefixes.items():
        s = scop.statement(name)
        if s.target != array:
            continue
        at = isl_text.make_map(scop.params, s.name, s.iterators, "P",
                               tuple(d.expr(s.name) for d in prefix))
        m = at.intersect_domain(s.domain).reverse().apply_range(s.write.relation)
        written = m if written is None else written.union(m)
    if written is None or not names.is_product(written.coalesce()):
        raise PolyoptError(f"cannot expand {array}: iterations of the loop write different "
                           f"elements of it")
    return written


def _rewritten(scop: Scop, s: Statement, array: str, buf: str, counter: str) -> Statement:
    """``s`` with each access of ``array`` an access of ``buf``'s row ``counter``."""
    def moved(indices: tuple[Lin, ...]) -> tuple[Lin, ...]:
        return (Lin.var(counter), *indices)

    def access(a: Access) -> Access:
        if a.target != array:
            return a
        new = moved(a.indices)
        rel = isl_text.make_map(scop.params, s.name, s.iterators, buf, new)
        return replace(a, target=buf, indices=new, relation=rel.intersect_domain(s.domain))

    value = map_leaves(s.value, lambda x: replace(x, array=buf, indices=moved(x.indices))
                       if isinstance(x, Load) and x.array == array else x)
    target, indices = (buf, moved(s.indices)) if s.target == array else (s.target, s.indices)
    return replace(s, target=target, indices=indices, value=value, write=access(s.write),
                   reads=tuple(access(r) for r in s.reads))


def _last_row(scop: Scop, stmts: list[Statement], array: str, buf: str, elements: isl.Set,
              row: Lin) -> Statement:
    """``array[e] = buf[row, e]`` for every element ``e`` the loop writes."""
    found = [x for s in stmts for x in loads(s.value) if x.array == buf]
    if not found:
        raise PolyoptError(f"cannot expand {array}: the loop never reads it")
    name = fresh(f"{array}_last", {s.name for s in stmts})
    avoid = set(scop.arrays) | set(scop.scalars) | set(scop.params) | {
        v for s in stmts for v in s.iterators}
    iters = tuple(fresh(f"{array}_e{d}", avoid) for d in range(scop.arrays[array].rank))
    domain = names.name_dims(names.rename_set(elements, name), iters)
    elems = tuple(Lin.var(v) for v in iters)
    src = (row, *elems)
    write = Access(f"{name}.w", name, array, elems, True, isl_text.make_map(
        scop.params, name, iters, array, elems).intersect_domain(domain))
    source = Access(f"{name}.r0", name, buf, src, False, isl_text.make_map(
        scop.params, name, iters, buf, src).intersect_domain(domain))
    last = next(s for s in reversed(stmts) if s.target == buf or any(
        r.target == buf for r in s.reads))
    where = replace(last.location, text=f"the last values of {array}")
    return Statement(name, iters, domain, array, elems, Load(buf, src, found[0].type), None, (),
                     where, write, (source,))


def _row_shape(elements: isl.Set, declared: tuple[Lin, ...]) -> tuple[Lin, ...]:
    """A row's extents: one past the largest index the loop writes, or the declared
    extent where that is not one affine bound.  C's declared extent may be a macro's
    value (``double sum[NP]`` is ``sum[30]``); the bound is in the sizes (``np``), so
    ``polyopt opt``'s output stays right when compiled with another ``-DNP``."""
    out = []
    for k, extent in enumerate(declared):
        top = names.dim_max_affine(elements, k)
        out.append(_lin(top) + Lin.constant(1) if top is not None else extent)
    return tuple(out)


def _lin(terms: tuple[dict[str, int], int]) -> Lin:
    coeffs, const = terms
    out = Lin.constant(const)
    for name, c in sorted(coeffs.items()):
        out = out + Lin.var(name).scale(c)
    return out
