"""Accumulator promotion: a local scalar that carries one array element's value through a
loop becomes that element, so the loops around can be reordered and tiled.

The way most people write a matrix product keeps the sum in a scalar::

    for i in range(n):                       for i in range(n):
        for j in range(m):                       for j in range(m):
            acc = 0.0               ==>              C[i, j] = 0.0
            for k in range(p):                       for k in range(p):
                acc += A[i, k] * B[k, j]                 C[i, j] += A[i, k] * B[k, j]
            C[i, j] = acc                            C[i, j] = C[i, j]   (dropped)

The scalar makes every loop order but ``i, j, k`` illegal (one ``acc`` for all ``j``);
the element does not.  LICM later keeps ``C[i, j]`` in a register where the order allows.

A *chain* is, in one sequence of statements under the same loops: a definition ``D``
(``w = e0``, ``e0`` not reading ``w``), statements between that read or update ``w``,
and a store ``T`` (``X[f] = g(w, ...)``).  It is promoted when

- ``w`` has ``X``'s element type (the same rounding), and its values never leave the
  chain (value-based flow);
- every statement instance of the chain lies in an iteration where ``D`` and ``T`` run;
- no access of any statement touches ``X[f]`` strictly between ``D`` and ``T`` of the
  same iteration, and ``T`` reads no other value of ``X[f]`` than through ``w`` (isl
  proves both from the access relations and the source order).

Then ``X[f]`` holds ``w``'s value from ``D`` to ``T`` in the promoted program, which is
how the rewrite reads it.  These conditions hold of one chain in the program it is
rewritten in: a chain's rewrite adds accesses to ``X``, so two chains storing to one
array (``a = ...; b = ...; y[i] = a - b``) are never rewritten together; the second is
checked again after the first (here ``y[i]`` then holds ``a``, and ``b`` stays a scalar).

A chain that cannot be promoted (symm's store reads the element's old value) may still
be *expanded*: its scalar becomes a new temporary array indexed by the loops around the
chain, one element per iteration, which needs only the first two conditions.  ``T`` becomes ``X[f] = g(X[f], ...)``; ``D`` becomes
``X[f] = e0``; either disappears when it becomes ``X[f] = X[f]`` (ludcmp's ``w = A[i, j]``
and ``y[i] = w``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.expr import Expr, Load, Name, map_leaves, walk
from polyopt.model.schedule_tree import Band, Leaf, Node, Sequence, statements
from polyopt.model.scop import Access, Array, ArrayKind, Scop, Statement
from polyopt.transforms.tree import normalize, sequences


@dataclass(frozen=True)
class Chain:
    scalar: str
    define: str  # D: w = e0
    inner: tuple[str, ...]  # statements between D and T that use w
    store: str  # T: X[f] = g(w, ...)
    between: tuple[str, ...] = ()  # every statement of the sequence between D and T


def promote(scop: Scop, deps: Dependences, expand: bool = True) -> Scop:
    """``scop`` with every promotable chain's scalar replaced by its element, and with
    ``expand`` every expandable one's by a new temporary array; ``scop`` itself when
    there is none.  The result's source order is the original one.

    Each chain's conditions are proven on the program it is rewritten in: a round
    rewrites only chains that cannot invalidate one another (promoted chains store to
    distinct arrays), then the dependences are recomputed and the remaining chains
    checked again.  Two scalars feeding one store (``y[i] = a - b``) would otherwise
    both become ``y[i]``; after ``a`` is promoted, ``b``'s store reads ``y[i]``'s old
    value and ``b`` stays a scalar (or is expanded)."""
    out = scop
    # every round rewrites at least one scalar definition into an array write
    for _ in range(len(scop.statements) + 1):
        chosen, deferred = _round(out, deps, expand)
        if not chosen:
            break
        again = deferred or _may_start_chains(out, chosen)
        out = _apply(out, chosen)
        if not again:
            break
        deps = analyze(out)
    return out


Chosen = list[tuple[Chain, tuple[Lin, ...] | None]]


def _round(scop: Scop, deps: Dependences, expand: bool) -> tuple[Chosen, bool]:
    """Chains to rewrite together: at most one promoted chain per array (a chain's
    rewrite adds accesses only to its own array, so chains of distinct arrays keep each
    other's conditions), and the expandable chains that cannot be promoted; and whether
    a promotable chain was left for a later round."""
    chosen: Chosen = []
    stored: set[str] = set()
    deferred = False
    for c, promotable in _candidates(scop, deps):
        if promotable:
            x = scop.statement(c.store).target
            deferred |= x in stored
            if x not in stored:
                stored.add(x)
                chosen.append((c, None))
        elif expand and (shape := _expansion(scop, deps, c)) is not None:
            chosen.append((c, shape))
    return chosen, deferred


def _may_start_chains(scop: Scop, chosen: Chosen) -> bool:
    """A rewritten statement reads another local scalar: as an array store now, it may
    end a chain of that scalar (``a = b * 2; y[i] = a`` becomes ``y[i] = b * 2``).  The
    rest of the program keeps its chains and their verdicts: a rewrite only moves one
    scalar's accesses to an array no other chain of the round stores to."""
    for c, _ in chosen:
        for name in (c.define, *c.inner, c.store):
            if any(isinstance(n, Name) and n.name != c.scalar and n.name in scop.local_scalars
                   for n in walk(scop.statement(name).value)):
                return True
    return False


def _apply(scop: Scop, chains: list[tuple[Chain, tuple[Lin, ...] | None]]) -> Scop:
    """``scop`` with each chain's scalar replaced by its store's element (shape None) or
    by a new temporary array of that shape indexed by the loops around the chain."""
    stmts = {s.name: s for s in scop.statements}
    arrays = dict(scop.arrays)
    taken = set(scop.arrays) | set(scop.scalars) | set(scop.params)
    dropped: set[str] = set()
    for c, shape in chains:
        if shape is None:
            t = stmts[c.store]
            elem = (t.target, t.indices)
        else:
            name = f"{c.scalar}_x"
            while name in taken:
                name += "_"
            taken.add(name)
            arrays[name] = Array(name, scop.scalars[c.scalar].type.dtype, shape,
                                 ArrayKind.TEMPORARY)
            d = stmts[c.define]
            elem = (name, tuple(Lin.var(v) for v in d.iterators))
        for name in (c.define, *c.inner, c.store):
            new = _rewrite(scop, stmts[name], c.scalar, elem)
            if new is None:
                dropped.add(name)
            else:
                stmts[name] = new
    kept = tuple(stmts[s.name] for s in scop.statements if s.name not in dropped)
    used = {n.name for s in kept for n in walk(s.value) if isinstance(n, Name)}
    used |= {s.target for s in kept}
    scalars = {n: v for n, v in scop.scalars.items()
               if n not in {c.scalar for c, _ in chains} or n in used}
    tree = scop.schedule
    for name in dropped:
        tree = _drop(tree, name)
    return replace(scop, arrays=arrays, statements=kept, scalars=scalars,
                   schedule=normalize(tree))


def find_chains(scop: Scop, deps: Dependences) -> list[Chain]:
    """The chains whose scalar can live in the element its store writes, each checked
    alone in ``scop`` (:func:`promote` rewrites them over rounds)."""
    return [c for c, promotable in _candidates(scop, deps) if promotable]


def expandable(scop: Scop, deps: Dependences) -> list[tuple[Chain, tuple[Lin, ...]]]:
    """The chains that cannot be promoted but whose scalar can become a temporary array
    over the loops around the chain (scalar expansion), with that array's shape.

    Only chains that reduce in a deeper loop around at least two loops qualify: there the
    scalar is what pins the loop order (symm's ``temp2``).  When the scheduler finds no
    better order, contraction turns the array back into a scalar."""
    return [(c, shape) for c, promotable in _candidates(scop, deps) if not promotable
            for shape in [_expansion(scop, deps, c)] if shape is not None]


def _expansion(scop: Scop, deps: Dependences, c: Chain) -> tuple[Lin, ...] | None:
    """The shape of ``c``'s scalar expanded, or None when it does not qualify."""
    d = scop.statement(c.define)
    deeper = any(len(scop.statement(n).iterators) > len(d.iterators) for n in c.inner)
    if len(d.iterators) < 2 or not deeper or not _self_contained(scop, deps, c):
        return None
    return _box(scop, d)


def _candidates(scop: Scop, deps: Dependences) -> list[tuple[Chain, bool]]:
    out: list[tuple[Chain, bool]] = []
    for seq in sequences(scop.schedule):
        kids = seq.children
        for a, first in enumerate(kids):
            if not isinstance(first, Leaf):
                continue
            chain = _chain_from(scop, kids, a)
            if chain is not None:
                out.append((chain, _promotable(scop, deps, chain)))
    return out


def _box(scop: Scop, d: Statement) -> tuple[Lin, ...] | None:
    """Extents ``max + 1`` of D's iterators, affine in the parameters (lower bounds >= 0)."""
    shape = []
    for k in range(len(d.iterators)):
        lo, _ = names.dim_bounds(d.domain, k)
        pieces = names.pw_aff_pieces(d.domain.dim_max(k))
        if lo is None or lo < 0 or len(pieces) != 1:
            return None
        terms = names.aff_terms(pieces[0], ())
        if terms is None or not set(terms[0]) <= set(scop.params):
            return None
        coeffs, const = terms
        e = Lin.constant(const + 1)
        for name, c in coeffs.items():
            e = e + Lin.var(name).scale(c)
        shape.append(e)
    return tuple(shape)


def _chain_from(scop: Scop, kids: tuple[Node, ...], a: int) -> Chain | None:
    d = scop.statement(kids[a].stmt)  # type: ignore[union-attr]
    w = d.target
    if d.indices or w not in scop.local_scalars or _reads(d.value, w):
        return None
    if scop.returns is not None and scop.returns.name == w:
        return None
    inner: list[str] = []
    between: list[str] = []
    for kid in kids[a + 1:]:
        for name in statements(kid):
            s = scop.statement(name)
            writes_w = s.target == w and not s.indices
            reads_w = _reads(s.value, w)
            if writes_w and not reads_w:
                return None  # redefined before any store
            if isinstance(kid, Leaf) and reads_w and not writes_w:
                # the store: a statement at D's level that reads w into an array element
                ok = bool(s.indices) and s.target in scop.arrays
                return Chain(w, d.name, tuple(inner), s.name, tuple(between)) if ok else None
            if writes_w or reads_w:
                inner.append(name)
            between.append(name)
    return None


def _self_contained(scop: Scop, deps: Dependences, c: Chain) -> bool:
    """The chain's statements run only in iterations where D does, and the scalar's
    values never leave the chain."""
    d = scop.statement(c.define)
    members = {c.define, *c.inner, c.store}
    for name in (*c.inner, c.store):
        s = scop.statement(name)
        if s.iterators[:len(d.iterators)] != d.iterators:
            return False
        at = isl_text.make_map(scop.params, s.name, s.iterators, d.name,
                               tuple(Lin.var(v) for v in d.iterators))
        if not s.domain.apply(at).is_subset(d.domain):
            return False
    for dep in deps.flow_on(c.scalar):
        if dep.source.statement in members \
                and dep.sink.statement not in members:
            return False  # the scalar's value is used after the chain
    return True


def _promotable(scop: Scop, deps: Dependences, c: Chain) -> bool:
    d, t = scop.statement(c.define), scop.statement(c.store)
    x, f = t.target, t.indices
    if scop.scalars[c.scalar].type.dtype != scop.arrays[x].dtype:
        return False
    if t.iterators != d.iterators or not t.domain.is_equal(names.rename_set(d.domain, t.name)):
        return False
    if any(isinstance(n, Load) and n.array == x and n.indices == f for n in walk(t.value)):
        return False  # T also reads the element's old value
    if not _self_contained(scop, deps, c):
        return False
    if not _untouched_between(scop, c, x, f):
        return False
    own = isl_text.make_map(scop.params, t.name, t.iterators, x, f).intersect_domain(t.domain)
    return all(r.relation.intersect(own).is_empty() for r in t.reads if r.target == x)


def _untouched_between(scop: Scop, c: Chain, x: str, f: tuple[Lin, ...]) -> bool:
    """No access touches ``X[f]`` strictly between D and T of one iteration.

    D and T are children of one sequence, inside the same loops: what runs between them
    is the statements of the children in between, in the same iteration of those loops
    (D's iterators), which isl relates to D's instances exactly."""
    d = scop.statement(c.define)
    k = len(d.iterators)
    element = isl_text.make_map(scop.params, d.name, d.iterators, x, f).intersect_domain(d.domain)
    for name in c.between:
        s = scop.statement(name)
        if s.iterators[:k] != d.iterators:
            return False  # not named after the loops around D: no proof
        same_iteration = isl_text.make_map(
            scop.params, s.name, s.iterators, d.name,
            tuple(Lin.var(v) for v in d.iterators)).intersect_domain(s.domain).reverse()
        for acc in s.accesses:
            if acc.target == x and not same_iteration.apply_range(acc.relation).intersect(
                    element).is_empty():
                return False
    return True


def _rewrite(scop: Scop, s: Statement, w: str, elem: tuple[str, tuple[Lin, ...]]
             ) -> Statement | None:
    x, f = elem
    load = Load(x, f, scop.scalars[w].type)
    value = map_leaves(s.value, lambda e: load if isinstance(e, Name) and e.name == w else e)
    target, indices = s.target, s.indices
    if target == w and not indices:
        target, indices = x, f
    if (target, indices) == (x, f) and isinstance(value, Load) and (
            value.array, value.indices) == (x, f):
        return None  # X[f] = X[f]: D was `w = X[f]`, or T `X[f] = w`
    write = s.write if target == s.target else _access(scop, s, f"{s.name}.w", x, f, True)
    reads = [r for r in s.reads if r.target != w]
    n = len(s.reads)
    for ld in (e for e in walk(value) if isinstance(e, Load) and e == load):
        reads.append(_access(scop, s, f"{s.name}.r{n}", ld.array, ld.indices, False))
        n += 1
    read_at = tuple((k, v) for k, v in s.read_at if k != w)
    return replace(s, target=target, indices=indices, value=value, write=write,
                   reads=tuple(reads), read_at=read_at)


def _access(scop: Scop, s: Statement, tag: str, x: str, f: tuple[Lin, ...],
            is_write: bool) -> Access:
    rel = isl_text.make_map(scop.params, s.name, s.iterators, x, f).intersect_domain(s.domain)
    return Access(tag, s.name, x, f, is_write, rel)


def _reads(e: Expr, w: str) -> bool:
    return any(isinstance(n, Name) and n.name == w for n in walk(e))


def _drop(node: Node, stmt: str) -> Node:
    if isinstance(node, Sequence):
        return Sequence(tuple(_drop(c, stmt) for c in node.children
                              if not (isinstance(c, Leaf) and c.stmt == stmt)))
    if isinstance(node, Band):
        dims = tuple(replace(d, exprs=tuple((s, e) for s, e in d.exprs if s != stmt))
                     for d in node.dims)
        return replace(node, dims=dims, child=_drop(node.child, stmt))
    return node
