"""One ``#pragma scop`` region of a C function as a :class:`~polyopt.model.scop.Scop`.

Names in a region are classified from the region itself and the declarations
visible at it:

* a *loop iterator* is a variable a ``for`` header assigns;
* an *array* is a declared array or pointer, used with subscripts (``A[i][j]``,
  ``p[i]``, ``*(p + i)``);
* a *scalar* assigned in the region is a local temporary when nothing outside
  the region reads or writes it (then OpenMP may privatize it); otherwise its
  value flows into or out of the region and it is modelled as a zero-dimensional
  array, which is never privatized;
* any other name used in a bound, subscript or condition is an integer
  *parameter* (``n``, or ``_PB_N`` when it is not a macro), and any other name
  read in a value is a read-only scalar.

Statements and loops follow the Python frontend's model: each assignment is a
statement with its domain, accesses and typed body; loops become bands of the
original schedule tree (a decreasing loop is scheduled by ``-i``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from polyopt.frontends.c_affine import AffineConverter, NotAffine, describe, text
from polyopt.frontends.c_loops import loop_bound, loop_init, loop_step
from polyopt.frontends.c_preprocess import LineMap
from polyopt.frontends.c_types import CType, Symbol, TypeTable
from polyopt.frontends.c_values import INT, ValueConverter, ValueScope, arith, cast
from pycparser import c_ast

from polyopt.model import isl_text
from polyopt.model.aff import TRUE, Cmp, Divisible, Formula, Lin, MinMax, Not, Or, conj, pieces
from polyopt.model.c_region import CArray, CRegion, CScalar
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import Problem, SourceLocation
from polyopt.model.expr import Expr, Literal, Load, Name, names_read, walk
from polyopt.model.schedule_tree import Band, Leaf, LoopDim, Node, Sequence, statements
from polyopt.model.scop import Access, Array, Loop, Scalar, ScalarKind, Scop, Statement

_COMPOUND_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%"}
_UNSUPPORTED = {
    c_ast.While: "`while` loop", c_ast.DoWhile: "`do` loop", c_ast.Switch: "`switch`",
    c_ast.Goto: "`goto`", c_ast.Label: "label", c_ast.Break: "`break`",
    c_ast.Continue: "`continue`", c_ast.Return: "`return`", c_ast.Pragma: "pragma",
    c_ast.FuncCall: "function call statement",
}


@dataclass(frozen=True)
class RegionSource:
    """Where a region sits and what surrounds it."""

    filename: str
    lines: tuple[str, ...]  # the original file's lines
    linemap: LineMap
    types: TypeTable
    function: c_ast.FuncDef
    items: tuple[c_ast.Node, ...]  # the block items between the pragmas
    scope: dict[str, Symbol]  # declarations visible at the region
    outside_uses: frozenset[str]  # names the function or file uses outside the region
    after_uses: frozenset[str]  # names used after the region in its block
    names_in_file: frozenset[str]
    typedefs: tuple[str, ...]
    index: int
    start_line: int
    end_line: int


@dataclass(frozen=True)
class _Ctx:
    iters: tuple[str, ...] = ()
    conds: tuple[Formula, ...] = ()
    loops: tuple[str, ...] = ()


@dataclass
class _Pending:
    name: str
    iters: tuple[str, ...]
    cond: Formula
    target: str
    indices: tuple[Lin, ...]
    value: Expr
    update_op: str | None
    loops: tuple[str, ...]
    node: c_ast.Node


@dataclass
class _Names:
    """What the region does with each name (filled before statements are converted)."""

    iterators: dict[str, CType | None] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    decls: dict[str, c_ast.Decl] = field(default_factory=dict)  # declared in the region
    top_level: set[str] = field(default_factory=set)  # declared at the region's top level


class RegionBuilder:
    """Builds the :class:`CRegion` of one region; problems are collected, not raised."""

    def __init__(self, src: RegionSource) -> None:
        self.src = src
        self.problems: list[Problem] = []
        self.names = _Names()
        self.params: dict[str, str] = {}
        self.extent_params: list[str] = []
        self.arrays: dict[str, Symbol] = {}
        self.readonly: dict[str, CType | None] = {}
        self.locals: dict[str, CType] = {}
        self.stmts: list[_Pending] = []
        self.loops: dict[str, Loop] = {}
        self.ctx = _Ctx()
        self.affine = AffineConverter(self._affine_name)
        self.values = ValueConverter(ValueScope(self._value_name, self._load))

    # --- entry --------------------------------------------------------------------------

    def build(self) -> CRegion | None:
        for item in self.src.items:
            self._prescan(item, top=True)
        nodes = self._block(list(self.src.items), _Ctx())
        if self.problems:
            return None
        return self._finish(nodes)

    def location(self, node: c_ast.Node) -> SourceLocation:
        coord = node.coord
        line = coord.line if coord is not None else self.src.start_line
        original = self.src.lines[line - 1] if 0 < line <= len(self.src.lines) else ""
        col = coord.column if coord is not None and coord.column else 1
        col = self.src.linemap.column(coord.file if coord else "", line, col, original)
        return SourceLocation(self.src.filename, line, col, original)

    def problem(self, node: c_ast.Node, construct: str, reason: str) -> None:
        self.problems.append(Problem(self.location(node), construct, reason))

    # --- what each name is --------------------------------------------------------------

    def _prescan(self, node: c_ast.Node, top: bool = False) -> None:
        if isinstance(node, c_ast.For):
            for name, ctype in self._header_names(node):
                self.names.iterators.setdefault(name, ctype)
            self._prescan(node.stmt)
            return
        if isinstance(node, c_ast.Decl):
            self.names.decls.setdefault(node.name, node)
            if top:
                self.names.top_level.add(node.name)
            if node.init is not None:
                self.names.written.add(node.name)
            return
        if isinstance(node, c_ast.Assignment):
            if isinstance(node.lvalue, c_ast.ID):
                self.names.written.add(node.lvalue.name)
            self._prescan(node.rvalue)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            if isinstance(node.expr, c_ast.ID):
                self.names.written.add(node.expr.name)
            return
        for _, child in node.children():
            self._prescan(child)

    def _header_names(self, node: c_ast.For) -> list[tuple[str, CType | None]]:
        out: list[tuple[str, CType | None]] = []
        if isinstance(node.init, c_ast.DeclList):
            out += [(d.name, self.src.types.of(d.type)) for d in node.init.decls]
        elif isinstance(node.init, c_ast.Assignment) and isinstance(node.init.lvalue, c_ast.ID):
            out.append((node.init.lvalue.name, None))
        nxt = node.next
        if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID):
            out.append((nxt.expr.name, None))
        elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID):
            out.append((nxt.lvalue.name, None))
        return out

    def ctype_of(self, name: str) -> CType | None:
        decl = self.names.decls.get(name)
        if decl is not None:
            return self.src.types.of(decl.type)
        sym = self.src.scope.get(name)
        return sym.type if sym is not None else None

    def iterator_type(self, name: str) -> CType | None:
        t = self.names.iterators.get(name)
        return t if t is not None else self.ctype_of(name)

    def _param(self, name: str, t: CType | None) -> Lin:
        self.params.setdefault(name, t.base if t is not None else "int")
        return Lin.var(name)

    def _affine_name(self, node: c_ast.ID) -> Lin:
        n = node.name
        if n in self.ctx.iters:
            return Lin.var(n)
        if n in self.names.iterators:
            raise NotAffine(node, f"`{n}`", "is a loop iterator used outside its loop")
        if n in self.names.written or n in self.names.decls:
            raise NotAffine(node, f"`{n}`", "is assigned in the region; loop bounds, subscripts "
                            "and `if` conditions must be affine in loop iterators and parameters")
        t = self.ctype_of(n)
        if t is not None:
            if t.rank:
                raise NotAffine(node, f"`{n}`", "is an array, not an integer")
            if t.dtype is None:
                raise NotAffine(node, f"`{n}`", t.unsupported)
            if t.dtype.is_float:
                raise NotAffine(node, f"`{n}`", "is a floating-point variable; loop bounds, "
                                "subscripts and `if` conditions must be integers")
        return self._param(n, t)

    def _value_name(self, node: c_ast.ID) -> Expr:
        n = node.name
        if n in self.ctx.iters:
            return Name(n, self._value_type(node, self.iterator_type(n)))
        if n in self.names.iterators:
            raise NotAffine(node, f"`{n}`", "is a loop iterator used outside its loop (its value "
                            "after the loop is not modelled)")
        t = self.ctype_of(n)
        if t is not None and t.rank:
            raise NotAffine(node, f"`{n}`", "is an array or pointer; index it")
        vt = self._value_type(node, t)
        if n in self.names.written or n in self.names.decls:
            self.locals[n] = t if t is not None else CType("int", (), DType.INT32)
            return Load(n, (), vt) if self._is_live(n) else Name(n, vt)
        self.readonly[n] = t
        return Name(n, vt)

    def _value_type(self, node: c_ast.Node, t: CType | None) -> ValueType:
        if t is None:
            return INT
        if t.dtype is None:
            raise NotAffine(node, f"`{getattr(node, 'name', '?')}`", t.unsupported)
        return ValueType(t.dtype)

    def _is_live(self, name: str) -> bool:
        """Whether a scalar's value may flow into or out of the region."""
        if name in self.names.decls:
            return name in self.names.top_level and name in self.src.after_uses
        sym = self.src.scope.get(name)
        return sym is None or sym.scope in ("file", "param") or name in self.src.outside_uses

    # --- array elements -----------------------------------------------------------------

    def _element(self, node: c_ast.Node) -> tuple[str, tuple[Lin, ...], CType]:
        subs: list[c_ast.Node] = []
        cur = node
        while isinstance(cur, c_ast.ArrayRef):
            subs.insert(0, cur.subscript)
            cur = cur.name
        offset: Lin | None = None
        if isinstance(cur, c_ast.UnaryOp) and cur.op == "*":
            base, offset = self._deref(cur)
            cur = base
        if not isinstance(cur, c_ast.ID):
            raise NotAffine(node, describe(node), "only subscripts of array and pointer names "
                            "are supported")
        name = cur.name
        if name in self.names.decls:
            raise NotAffine(node, f"`{name}`", "arrays declared inside a scop region are not "
                            "supported; declare them before `#pragma scop`")
        sym = self.src.scope.get(name)
        if sym is None:
            raise NotAffine(cur, f"`{name}`", "is not declared before the region")
        if sym.type.dtype is None:
            raise NotAffine(cur, f"`{name}`", sym.type.unsupported)
        indices: list[Lin] = []
        if offset is not None:
            indices.append(offset)
        for sub in subs:
            a = self.affine.aff(sub)
            if isinstance(a, MinMax):
                raise NotAffine(sub, "min/max subscript", "subscripts must be affine (no min/max)")
            indices.append(a)
        if len(indices) != sym.type.rank:
            raise NotAffine(node, describe(node), f"`{name}` has {sym.type.rank} dimension(s) but "
                            f"is indexed with {len(indices)}")
        self.arrays[name] = sym
        return name, tuple(indices), sym.type

    def _deref(self, node: c_ast.UnaryOp) -> tuple[c_ast.Node, Lin]:
        """``*p`` is ``p[0]``, ``*(p + e)`` is ``p[e]``."""
        inner = node.expr
        if isinstance(inner, c_ast.ID):
            return inner, Lin.constant(0)
        if isinstance(inner, c_ast.BinaryOp) and inner.op in ("+", "-"):
            ptr, other = inner.left, inner.right
            if inner.op == "+" and not isinstance(ptr, c_ast.ID):
                ptr, other = other, ptr
            if isinstance(ptr, c_ast.ID) and (self.ctype_of(ptr.name) or CType("", (), None)).rank:
                off = self.affine.aff(other)
                if isinstance(off, Lin):
                    return ptr, off if inner.op == "+" else -off
        raise NotAffine(node, describe(node), "only `*p` and `*(p + offset)` dereferences "
                        "are supported")

    def _load(self, node: c_ast.Node) -> Load:
        name, indices, t = self._element(node)
        assert t.dtype is not None
        return Load(name, indices, ValueType(t.dtype))

    # --- statements ---------------------------------------------------------------------

    def _block(self, items: list[c_ast.Node], ctx: _Ctx) -> list[Node]:
        nodes: list[Node] = []
        for item in items:
            self.ctx = ctx
            try:
                nodes += self._statement(item, ctx)
            except NotAffine as e:
                self.problem(e.node, e.construct, e.reason)
        self.ctx = ctx
        return nodes

    def _statement(self, st: c_ast.Node, ctx: _Ctx) -> list[Node]:
        if isinstance(st, c_ast.Compound):
            return self._block(list(st.block_items or []), ctx)
        if isinstance(st, c_ast.EmptyStatement):
            return []
        if isinstance(st, c_ast.For):
            return self._for(st, ctx)
        if isinstance(st, c_ast.If):
            return self._if(st, ctx)
        if isinstance(st, c_ast.Assignment):
            return self._assign(st, ctx)
        if isinstance(st, c_ast.UnaryOp) and st.op in ("++", "--", "p++", "p--"):
            one = Literal(1, INT)
            return self._update(st, st.expr, "+" if "+" in st.op else "-", one, ctx)
        if isinstance(st, c_ast.Decl):
            return self._decl(st, ctx)
        if isinstance(st, c_ast.DeclList):
            return [n for d in st.decls for n in self._decl(d, ctx)]
        construct = _UNSUPPORTED.get(type(st), describe(st))
        reason = ("pragmas inside a scop region are not supported" if isinstance(st, c_ast.Pragma)
                  else "is not supported in a scop region (only for loops, affine ifs and "
                  "assignments)")
        raise NotAffine(st, construct, reason)

    def _decl(self, d: c_ast.Decl, ctx: _Ctx) -> list[Node]:
        t = self.src.types.of(d.type)
        if t.rank:
            raise NotAffine(d, f"array `{d.name}`", "arrays declared inside a scop region are not "
                            "supported; declare them before `#pragma scop`")
        if t.dtype is None:
            raise NotAffine(d, f"`{d.name}`", t.unsupported)
        if "static" in (d.storage or []) or "extern" in (d.storage or []):
            raise NotAffine(d, f"`{d.name}`", "static and extern declarations are not supported "
                            "inside a scop region")
        self.locals[d.name] = t
        if d.init is None:
            return []
        if isinstance(d.init, c_ast.InitList):
            raise NotAffine(d.init, "initializer list", "is not supported")
        value = self.values.convert(d.init)
        return [self._add(d, ctx, d.name, (), cast(value, ValueType(t.dtype)), None)]

    def _target(self, lvalue: c_ast.Node) -> tuple[str, tuple[Lin, ...], ValueType]:
        if isinstance(lvalue, c_ast.ID):
            n = lvalue.name
            if n in self.ctx.iters or n in self.names.iterators:
                raise NotAffine(lvalue, f"assignment to loop iterator `{n}`",
                                "loop iterators may only change in their `for` header")
            t = self.ctype_of(n)
            if t is not None and t.rank:
                raise NotAffine(lvalue, f"assignment to `{n}`", "assign to its elements")
            vt = self._value_type(lvalue, t)
            self.locals[n] = t if t is not None else CType("int", (), DType.INT32)
            return n, (), vt
        if isinstance(lvalue, (c_ast.ArrayRef, c_ast.UnaryOp)):
            name, indices, t = self._element(lvalue)
            assert t.dtype is not None
            return name, indices, ValueType(t.dtype)
        raise NotAffine(lvalue, f"assignment to {describe(lvalue)}",
                        "only array elements and scalar variables can be assigned")

    def _assign(self, st: c_ast.Assignment, ctx: _Ctx) -> list[Node]:
        if st.op == "=":
            if isinstance(st.rvalue, c_ast.Assignment):  # `a = b = e`: b = e, then a = b
                first = self._assign(st.rvalue, ctx)
                target, indices, t = self._target(st.lvalue)
                value = cast(self.values.convert(st.rvalue.lvalue), t)
                return [*first, self._add(st, ctx, target, indices, value, None)]
            target, indices, t = self._target(st.lvalue)
            value = cast(self.values.convert(st.rvalue), t)
            return [self._add(st, ctx, target, indices, value, None)]
        op = _COMPOUND_OPS.get(st.op)
        if op is None:
            raise NotAffine(st, f"`{st.op}`", "only = += -= *= /= %= are supported")
        return self._update(st, st.lvalue, op, self.values.convert(st.rvalue), ctx)

    def _update(self, st: c_ast.Node, lvalue: c_ast.Node, op: str, rhs: Expr,
                ctx: _Ctx) -> list[Node]:
        target, indices, t = self._target(lvalue)
        current = self.values.convert(lvalue)
        self.values.check_unsigned(st, current, rhs)  # `x /= 2u` divides unsigned in C
        value = cast(arith(op, current, rhs, st), t)
        return [self._add(st, ctx, target, indices, value, op)]

    def _add(self, st: c_ast.Node, ctx: _Ctx, target: str, indices: tuple[Lin, ...],
             value: Expr, update: str | None) -> Node:
        name = f"S{len(self.stmts)}"
        self.stmts.append(_Pending(name, ctx.iters, conj(*ctx.conds), target, indices, value,
                                   update, ctx.loops, st))
        return Leaf(name)

    def _if(self, st: c_ast.If, ctx: _Ctx) -> list[Node]:
        try:
            cond = self.affine.formula(st.cond)
        except NotAffine as e:
            raise NotAffine(st.cond, "data-dependent `if`", f"{e.construct} {e.reason}; write a "
                            "conditional expression `c ? a : b` instead") from None
        then = self._block([st.iftrue], _Ctx(ctx.iters, (*ctx.conds, cond), ctx.loops))
        other = self._block([st.iffalse], _Ctx(ctx.iters, (*ctx.conds, Not(cond)), ctx.loops)) \
            if st.iffalse is not None else []
        return then + other

    # --- loops --------------------------------------------------------------------------

    def _for(self, st: c_ast.For, ctx: _Ctx) -> list[Node]:
        var, start = loop_init(st, self.affine, self.src.types, self.ctype_of)
        if var in ctx.iters:
            raise NotAffine(st, f"loop iterator `{var}`", "is already the iterator of an "
                            "enclosing loop")
        step = loop_step(st, var, self.affine)
        self.ctx = _Ctx((*ctx.iters, var), ctx.conds, ctx.loops)
        bound = loop_bound(st, var, step, self.affine)
        self.ctx = ctx
        v = Lin.var(var)
        lower = Cmp(">=", v, start) if step > 0 else Cmp("<=", v, start)
        domain = conj(lower, bound)
        if abs(step) != 1:
            cases = [conj(*g, Divisible(v - lin, abs(step))) for g, lin in pieces(start)]
            domain = conj(domain, cases[0] if len(cases) == 1 else Or(tuple(cases)))
        loop_id = f"L{len(self.loops)}"
        parent = ctx.loops[-1] if ctx.loops else None
        self.loops[loop_id] = Loop(loop_id, var, self.location(st), len(ctx.loops), parent)
        inner = _Ctx((*ctx.iters, var), (*ctx.conds, domain), (*ctx.loops, loop_id))
        children = self._block([st.stmt], inner)
        if not children:
            return []
        child = children[0] if len(children) == 1 else Sequence(tuple(children))
        expr = v if step > 0 else -v
        return [Band((LoopDim(loop_id, var, tuple((s, expr) for s in statements(child))),), child)]

    # --- assembling ---------------------------------------------------------------------

    def _finish(self, nodes: list[Node]) -> CRegion:
        arrays_c: dict[str, CArray] = {}
        arrays: dict[str, Array] = {}
        for n, sym in self.arrays.items():
            shape, dims = self._shape(n, sym)
            assert sym.type.dtype is not None
            arrays[n] = Array(n, sym.type.dtype, shape)
            arrays_c[n] = CArray(n, sym.type.base, dims, sym.scope)
        scalars: dict[str, Scalar] = {}
        scalars_c: dict[str, CScalar] = {}
        for n, t in self.locals.items():
            assert t.dtype is not None
            live = self._is_live(n)
            in_region = n in self.names.decls
            scalars_c[n] = CScalar(n, t.base, True, live, in_region, n in self.names.top_level)
            if live:
                arrays[n] = Array(n, t.dtype, ())
            else:
                scalars[n] = Scalar(n, ValueType(t.dtype), ScalarKind.LOCAL)
        for n, t in self.readonly.items():
            if n in self.locals:
                continue
            dtype = t.dtype if t is not None and t.dtype is not None else DType.INT32
            scalars[n] = Scalar(n, ValueType(dtype), ScalarKind.ARGUMENT)
            scalars_c[n] = CScalar(n, t.base if t is not None else "int", False, False, False)
        params = tuple(self.params)
        context = isl_text.make_param_set(params, TRUE)
        stmts = tuple(self._statement_model(p, params, arrays) for p in self.stmts)
        schedule: Node = Sequence(()) if not nodes else (
            nodes[0] if len(nodes) == 1 else Sequence(tuple(nodes)))
        scop = Scop(
            name=self.src.function.decl.name, filename=self.src.filename, params=params,
            context=context, arrays=arrays, scalars=scalars, statements=stmts,
            loops=dict(self.loops), schedule=schedule,
        )
        iter_types = {n: (self.iterator_type(n) or CType("int", (), DType.INT32)).base
                      for n in self.names.iterators}
        line = self.src.lines[self.src.start_line - 1]
        return CRegion(
            scop=scop, function=self.src.function.decl.name, index=self.src.index,
            start_line=self.src.start_line, end_line=self.src.end_line,
            indent=line[: len(line) - len(line.lstrip())], iterator_types=iter_types,
            arrays=arrays_c, scalars=scalars_c, params=dict(self.params),
            original=text(c_ast.Compound(list(self.src.items))),
            names_in_file=self.src.names_in_file, typedefs=self.src.typedefs,
            extent_params=tuple(self.extent_params),
        )

    def _shape(self, name: str, sym: Symbol) -> tuple[tuple[Lin, ...], tuple[str | None, ...]]:
        """Extents as affine expressions (a fresh parameter where C gives none)."""
        shape: list[Lin] = []
        dims: list[str | None] = []
        for k, dim in enumerate(sym.type.dims):
            extent: Lin | None = None
            if dim is not None and not sym.type.pointer_levels[k]:
                try:
                    a = AffineConverter(lambda node: self._param(node.name, None)).aff(dim)
                    extent = a if isinstance(a, Lin) else None
                except NotAffine:
                    extent = None
            dims.append(text(dim) if dim is not None and not sym.type.pointer_levels[k] else None)
            if extent is None:
                extra = f"{name}_extent{k}"
                while extra in self.src.names_in_file or extra in self.params:
                    extra += "_"
                self.params[extra] = "long"
                self.extent_params.append(extra)
                extent = Lin.var(extra)
            shape.append(extent)
        return tuple(shape), tuple(dims)

    def _statement_model(self, p: _Pending, params: tuple[str, ...],
                         arrays: dict[str, Array]) -> Statement:
        domain = isl_text.make_set(params, p.name, p.iters, p.cond)
        write_rel = isl_text.make_map(params, p.name, p.iters, p.target, p.indices)
        write = Access(f"{p.name}.w", p.name, p.target, p.indices, True,
                       write_rel.intersect_domain(domain))
        reads: list[Access] = []
        seen: set[tuple[str, tuple[Lin, ...]]] = set()
        refs = [(n.array, n.indices) for n in walk(p.value) if isinstance(n, Load)]
        refs += [(n, ()) for n in sorted(names_read(p.value)) if n in self.locals]
        for target, indices in refs:
            if (target, indices) in seen:
                continue
            seen.add((target, indices))
            rel = isl_text.make_map(params, p.name, p.iters, target, indices)
            reads.append(Access(f"{p.name}.r{len(reads)}", p.name, target, indices, False,
                                rel.intersect_domain(domain)))
        return Statement(
            name=p.name, iterators=p.iters, domain=domain, target=p.target, indices=p.indices,
            value=p.value, update_op=p.update_op, loops=p.loops,
            location=_without_comments(self.location(p.node)),
            write=write, reads=tuple(reads),
        )


def _without_comments(loc: SourceLocation) -> SourceLocation:
    """The location with comments dropped from its line (reports show the statement)."""
    text = re.sub(r"/\*.*?\*/", " ", loc.text)
    text = re.sub(r"//.*$", "", text).rstrip()
    return replace(loc, text=text)
