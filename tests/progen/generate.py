"""Random programs in polyopt's accepted Python subset, in bounds by construction.

A program is drawn for concrete sizes (3 to 12): every loop variable's range is
over-approximated by interval arithmetic over its bounds, and a subscript is kept only
when its whole interval lies inside the array's extent (a loop that never runs accepts
any subscript).  Integer divisors are nonzero constants; ``/``, ``log``, ``sqrt`` and
``pow`` take arguments kept away from their poles.  Magnitudes are kept tame afterwards
(:func:`progen.oracle.tame`): the program is run by CPython and, when a value grows too
large or overflows, every stored value is squashed through ``tanh`` (floats) or ``% 97``
(integers).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from progen.draw import Draw
from progen.expressions import Expressions, Interval, Loop, Scope
from progen.nodes import (
    Alloc,
    ArrayArg,
    Assign,
    Bin,
    Call,
    Expr,
    For,
    If,
    IfExp,
    Index,
    Name,
    Num,
    Program,
    ScalarArg,
    SizeDef,
    Stmt,
)
from progen.parallel import with_prange
from progen.slices import with_slices

SIZE_NAMES = ("n", "m", "p")
LOOP_NAMES = ("i", "j", "k")
ARRAY_NAMES = ("A", "B", "C")
DTYPES = (("float64", 6), ("float32", 2), ("int64", 2), ("int32", 1), ("int16", 1), ("uint8", 1),
          ("int8", 1), ("uint16", 1), ("uint32", 1))



@dataclass(frozen=True)
class Features:
    """What the generator may use.  Everything is on by default; the bounded test turns a
    feature off only to keep a known, separately tested failure out of its assertions."""

    np_forms: bool = True  # np.sin & co. beside math.sin
    prange: bool = True  # loops that may run in parallel written `prange`
    slices: bool = True  # loops that mean the same as a slice statement written as one
    helpers: bool = True  # math functions called through helper functions
    float32: bool = True
    temps: int = 4  # scalar temporaries per body, at most
    accumulators: int = 3  # per nest, at most
    nests: int = 3
    depth: int = 3
    statements: int = 4  # per body, at most


class Gen(Expressions):
    def __init__(self, d: Draw, features: Features | None = None) -> None:
        self.d = d
        self.f = features or Features()
        self.np_forms = self.f.np_forms
        self.temps_left = 0
        self.sizes: dict[str, int] = {}
        self.arrays: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.readable: set[str] = set()
        self.written: set[str] = set()
        self.int_args: dict[str, int] = {}
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # --- the program -------------------------------------------------------------------

    def program(self) -> Program:
        d = self.d
        nsizes = d.int(1, 3)
        sizes = {SIZE_NAMES[k]: d.int(3, 12) for k in range(nsizes)}
        arrays: list[ArrayArg] = []
        for a in range(d.int(1, 3)):
            rank = d.int(1, 3)
            if a == 0:  # the first array takes the sizes in order, so most are used
                dims = tuple(SIZE_NAMES[min(x, nsizes - 1)] for x in range(rank))
            else:
                dims = tuple(d.choice(list(sizes)) for _ in range(rank))
            dtypes = [(t, w) for t, w in DTYPES if self.f.float32 or t != "float32"]
            arrays.append(ArrayArg(ARRAY_NAMES[a], d.weighted(dtypes), dims))
        used = [s for s in sizes if any(s in a.dims for a in arrays)]
        self.sizes = {s: sizes[s] for s in used}
        size_defs = []
        for s in used:
            a = next(a for a in arrays if s in a.dims)
            dim = a.dims.index(s)
            size_defs.append(SizeDef(s, a.name, dim, via_len=dim == 0 and d.chance(25)))
        scalars: list[ScalarArg] = []
        scope = Scope()
        if d.chance(50):
            scalars.append(ScalarArg("q", "int", d.int(1, 3)))
            self.int_args["q"] = scalars[-1].value
            scope = scope.with_scalar("q", "int")
        if d.chance(50):
            scalars.append(ScalarArg("alpha", "float", d.choice((0.5, 1.5, -0.25, 2.0))))
            scope = scope.with_scalar("alpha", "float")
        for a in arrays:
            self.arrays[a.name] = (a.dtype, a.dims)
            self.readable.add(a.name)
        allocs: list[Alloc] = []
        body: list[Stmt] = []
        if d.chance(40):
            dims = tuple(d.choice(used) for _ in range(d.int(1, 2)))
            dtype = d.weighted((("float64", 4), ("float32", 1 if self.f.float32 else 0),
                                ("int64", 1)))
            fill = d.weighted((("zeros", 2), ("empty", 2), ("ones", 1)))
            allocs.append(Alloc("T", dtype, dims, fill))
            self.arrays["T"] = (dtype, dims)
            if fill == "empty":  # written whole before anything reads it
                body.append(self.fill_nest("T", scope))
            self.readable.add("T")
        live = scope
        for _ in range(self.d.int(1, self.f.nests)):
            stmts, live = self.top_nest(live)
            body += stmts
        ret = self.final_return(live, allocs)
        program = Program(tuple(arrays), tuple(scalars), dict(self.sizes), tuple(size_defs),
                          tuple(allocs), tuple(body), ret, seed=d.int(0, 2**16))
        # drawn last, so that a seed's program is the same but for its prange loops and
        # helpers
        if self.f.prange:
            program = with_prange(program, d)
        program = replace(program, helpers=self.f.helpers and d.chance(40))
        return with_slices(program, d) if self.f.slices else program

    def fill_nest(self, name: str, scope: Scope) -> Stmt:
        dtype, dims = self.arrays[name]
        loops = [Loop(LOOP_NAMES[k], (0, self.sizes[s] - 1), 1) for k, s in enumerate(dims)]
        inner = replace(scope, loops=tuple(loops))
        value = self.expr(self.kind_of(dtype), inner, 2)
        stmt: Stmt = Assign(Index(name, tuple(Name(lp.var) for lp in loops)), "", value)
        for lp, s in reversed(list(zip(loops, dims, strict=True))):
            stmt = For(lp.var, Num(0), Name(s), 1, (stmt,))
        self.written.add(name)
        return stmt

    def final_return(self, live: Scope, allocs: list[Alloc]) -> Expr | None:
        d = self.d
        accs = [n for n, _ in live.scalars if n.startswith("s")]
        if accs and d.chance(70):
            e: Expr = Name(d.choice(accs))
            if len(accs) > 1 and d.chance(50):
                e = Bin(d.choice(("+", "-", "*")), e, Name(d.choice(accs)))
            return e
        if allocs and d.chance(60):
            return Name(allocs[0].name)
        if d.chance(50):
            return None
        return self.expr(d.choice(("int", "float")), live, 1)


    # --- nests -------------------------------------------------------------------------

    def top_nest(self, live: Scope) -> tuple[list[Stmt], Scope]:
        """Accumulator initializations, one nest, and uses of the accumulators after it."""
        d = self.d
        out: list[Stmt] = []
        accs = []
        for _ in range(d.weighted(((0, 3), (1, 3), (2, 2), (3, 1))[:self.f.accumulators + 1])):
            kind = d.weighted((("float", 3), ("int", 1)))
            how = d.weighted((("+", 4), ("-", 1), ("*", 1), ("min", 2), ("max", 2), ("rec", 2)))
            name = self.fresh("s")
            if how == "*":
                init: Expr = Num(1.0 if kind == "float" else 1)
            elif how in ("min", "max") and d.chance(50):
                init = self.expr(kind, live, 0)
            else:
                init = Num(0.0 if kind == "float" else 0)
            out.append(Assign(Name(name), "", init))
            accs.append((name, kind, how))
        # the nest may also read its float accumulators (running totals, prefix sums); an
        # integer one read in its own update could grow as a Python int past 64 bits
        scope = replace(live, accs=tuple(accs),
                        scalars=(*live.scalars, *((n, k) for n, k, _ in accs if k == "float")))
        out.append(self.loop(scope, d.int(1, self.f.depth)))
        after = live
        for name, kind, _ in accs:
            after = after.with_scalar(name, kind)
            if d.chance(30):  # the total lands in an array element
                target = self.store_target(after)
                if target is not None:
                    out.append(Assign(target, d.choice(("", "+")), Name(name)))
        return out, after

    def bounds(self, scope: Scope, var: str) -> tuple[Expr, Expr, int]:
        d = self.d
        size = Name(d.choice(list(self.sizes)))
        outer = [lp for lp in scope.loops]
        forms = [("full", 6), ("offset", 2), ("rev", 2), ("stride", 2), ("revstride", 1),
                 ("div", 1), ("min2", 1 if len(self.sizes) > 1 or self.int_args else 0),
                 ("param", 1 if self.int_args else 0)]
        if outer:
            forms += [("tri_lo", 3), ("tri_hi", 3), ("window", 2), ("tri_rev", 1)]
        form = d.weighted(forms)
        u = Name(d.choice(outer).var) if outer else None
        if form == "offset":
            return Num(d.int(1, 2)), Bin("-", size, Num(d.int(0, 2))), 1
        if form == "rev":
            return Bin("-", size, Num(1 + d.int(0, 1))), Num(d.int(-1, 0)), -1
        if form == "stride":
            return Num(d.int(0, 1)), size, d.int(2, 3)
        if form == "revstride":
            return Bin("-", size, Num(1)), Num(-1), -d.int(2, 3)
        if form == "div":
            return Num(0), Bin("//", Bin("+", size, Num(d.int(0, 1))), Num(2)), 1
        if form == "min2":
            other = [Name(x) for x in (*self.sizes, *self.int_args) if x != size.id]
            return Num(0), Call("min", (size, d.choice(other))), 1
        if form == "param":
            return Name(d.choice(list(self.int_args))), size, 1
        if form == "tri_lo":
            assert u is not None
            return Num(0), (u if d.chance(50) else Bin("+", u, Num(1))), 1
        if form == "tri_hi":
            assert u is not None
            return (u if d.chance(50) else Bin("+", u, Num(1))), size, 1
        if form == "window":
            assert u is not None
            w = d.int(1, 2)
            return (Call("max", (Num(0), Bin("-", u, Num(w)))),
                    Call("min", (size, Bin("+", u, Num(w + 1)))), 1)
        if form == "tri_rev":
            assert u is not None
            return u, Num(-1), -1
        return Num(0), size, 1

    def loop(self, scope: Scope, depth: int) -> For:
        var = LOOP_NAMES[len(scope.loops)]
        start, stop, step = self.bounds(scope, var)
        env = self.env(scope)
        a, b = self.interval(start, env), self.interval(stop, env)
        span: Interval = None
        if a is not None and b is not None:
            span = (a[0], b[1] - 1) if step > 0 else (b[0] + 1, a[1])
            if span[0] > span[1]:
                span = None
        inner = replace(scope, loops=(*scope.loops, Loop(var, span, step)))
        return For(var, start, stop, step, self.body(inner, depth - 1))

    def body(self, scope: Scope, depth: int) -> tuple[Stmt, ...]:
        d = self.d
        n = d.weighted(((1, 2), (2, 3), (3, 2), (4, 1))[:self.f.statements])
        self.temps_left = self.f.temps
        loop_at = d.int(0, n) if depth > 0 else -1
        out: list[Stmt] = []
        for k in range(n + 1):
            if k == loop_at:
                out.append(self.loop(scope, depth))
                if d.chance(15):  # a second, sibling loop: an imperfect nest
                    out.append(self.loop(scope, depth))
                continue
            if k == n:
                break
            stmt, scope = self.statement(scope, allow_if=True)
            if stmt is not None:
                out.append(stmt)
        # accumulators must be updated somewhere: the innermost body takes the rest
        if depth == 0:
            for acc in scope.accs:
                if d.chance(70):
                    out.append(self.acc_update(scope, acc))
        if not out:
            target = self.store_target(scope)
            if target is not None:
                tk = self.kind_of(self.arrays[target.array][0])
                out.append(Assign(target, "", self.expr(tk, scope, 1)))
        return tuple(out)

    # --- statements --------------------------------------------------------------------

    def statement(self, scope: Scope, allow_if: bool) -> tuple[Stmt | None, Scope]:
        d = self.d
        kind = d.weighted((("store", 6), ("temp", 4 if self.temps_left > 0 else 0), ("aug", 4),
                           ("acc", 4 if scope.accs else 0),
                           ("rec", 2), ("if", 3 if allow_if else 0),
                           ("slice", 2 if self.f.slices and len(scope.loops) < len(LOOP_NAMES)
                            else 0)))
        if kind == "slice":
            return self.slice_loop(scope), scope
        if kind == "temp":
            self.temps_left -= 1
            k = d.weighted((("float", 3), ("int", 1)))
            name = self.fresh("t")
            return Assign(Name(name), "", self.expr(k, scope, 3)), scope.with_scalar(name, k)
        if kind == "acc":
            return self.acc_update(scope, d.choice(scope.accs)), scope
        if kind == "rec":
            return self.recurrence(scope), scope
        if kind == "if":
            return self.if_block(scope), scope
        target = self.store_target(scope)
        if target is None:
            return None, scope
        tk = self.kind_of(self.arrays[target.array][0])
        if kind == "store":
            return Assign(target, "", self.expr(tk, scope, 3)), scope
        return self.aug(target, tk, scope), scope

    def slice_loop(self, scope: Scope) -> For | None:
        """A loop of one store to a float array over a range in sizes only, reading other
        arrays at the same, shifted, position: written as a NumPy slice statement when it
        means the same (:mod:`progen.slices`), else as the loop."""
        d = self.d
        var = LOOP_NAMES[len(scope.loops)]
        floats = [(x, k) for x in sorted(self.readable) if self.kind_of(self.arrays[x][0]) == "float"
                  for k in range(len(self.arrays[x][1]))]
        if not floats:
            return None
        name, k = d.choice(floats)
        size = self.arrays[name][1][k]
        lo, cut = d.int(0, 2), d.int(0, 2)
        stop: Expr = Bin("-", Name(size), Num(cut)) if cut else Name(size)
        span = (lo, self.sizes[size] - cut - 1)
        inner = replace(scope, loops=(*scope.loops, Loop(var, span if span[0] <= span[1] else None, 1)))
        self.written.add(name)
        target = self._sliced_index(name, k, Name(var), scope)
        reads: list[Expr] = []
        for _ in range(d.int(1, 2)):
            other, j = d.choice([(x, j) for x, j in floats if self.arrays[x][1][j] == size])
            shifts = [c for c in (0, 0, 1, -1) if -lo <= c <= cut]  # in bounds: same size
            shift = d.choice(shifts) if other != name else 0
            at = Bin("+", Name(var), Num(shift)) if shift > 0 else \
                Bin("-", Name(var), Num(-shift)) if shift < 0 else Name(var)
            reads.append(target if other == name else self._sliced_index(other, j, at, scope))
        value = reads[0]
        for r in reads[1:]:
            value = Bin(d.choice(("+", "-")), value, r)
        value = Bin(d.choice(("*", "+", "-")), value, self.leaf("float", inner))
        return For(var, Num(lo), stop, 1, (Assign(target, d.choice(("", "", "+")), value),))

    def _sliced_index(self, name: str, k: int, at: Expr, scope: Scope) -> Index:
        """``name`` at the outer loops' subscripts, but ``at`` in dimension ``k``."""
        idx = list(self.subscripts(name, scope))
        idx[k] = at
        return Index(name, tuple(idx))

    def aug(self, target: Name | Index, tk: str, scope: Scope) -> Assign:
        d = self.d
        if tk == "float":
            op = d.weighted((("+", 4), ("-", 2), ("*", 2), ("/", 1)))
            if op == "*":
                return Assign(target, op, self.factor(scope))
            if op == "/":
                return Assign(target, op, self.divisor(scope))
            return Assign(target, op, self.expr(tk, scope, 2))
        op = d.weighted((("+", 4), ("-", 2), ("*", 1), ("//", 1), ("%", 1)))
        if op == "*":
            return Assign(target, op, self.unit_int(scope))
        if op in ("//", "%"):
            return Assign(target, op, Num(d.choice((2, 3, 7, -3))))
        return Assign(target, op, self.expr(tk, scope, 2))

    def factor(self, scope: Scope) -> Expr:
        """A float factor of magnitude at most 1 (a product of many stays finite)."""
        d = self.d
        form = d.weighted((("const", 2), ("cos", 2), ("near1", 2)))
        if form == "const":
            return Num(d.choice((0.5, -1.0, 0.75)))
        inner = self.expr("float", scope, 2)
        if form == "cos":
            return Call("cos", (inner,), d.choice(("math", "np")))
        return Bin("+", Num(0.99), Bin("*", Num(0.01), Call("tanh", (inner,), "math")))

    def unit_int(self, scope: Scope) -> Expr:
        d = self.d
        if d.chance(50):
            return Num(d.choice((-1, 1)))
        return IfExp(self.cond(scope), Num(1), Num(-1))

    def acc_update(self, scope: Scope, acc: tuple[str, str, str]) -> Stmt:
        name, kind, how = acc
        me = Name(name)
        if how == "*":
            if kind == "float":
                return Assign(me, "*", self.factor(scope))
            return Assign(me, "*", self.unit_int(scope))
        if how in ("min", "max"):
            return Assign(me, "", Call(how, (me, self.expr(kind, scope, 2))))
        if how == "rec":  # a loop-carried scalar recurrence that stays bounded
            if kind == "float":
                return Assign(me, "", Bin("+", Bin("*", Num(0.5), me), self.expr(kind, scope, 2)))
            return Assign(me, "", Bin("%", Bin("+", Bin("*", me, Num(3)), self.expr(kind, scope, 2)),
                                      Num(17)))
        return Assign(me, how, self.expr(kind, scope, 2))

    def recurrence(self, scope: Scope) -> Stmt | None:
        """``X[.., v, ..] = c * X[.., v - step, ..] + e``: a loop-carried dependence."""
        d = self.d
        live = [lp for lp in scope.loops if lp.span is not None]
        if not live:
            return None
        lp = d.choice(live)
        target = self.store_target(scope)
        if target is None or not isinstance(target, Index):
            return None
        dims = self.arrays[target.array][1]
        k = d.int(0, len(dims) - 1)
        env = self.env(scope)
        extent = self.sizes[dims[k]]
        w = list(target.idx)
        w[k] = Name(lp.var)
        r = list(w)
        r[k] = Bin("-", Name(lp.var), Num(lp.step)) if lp.step > 0 else Bin(
            "+", Name(lp.var), Num(-lp.step))
        if not (self.in_bounds(w[k], extent, env) and self.in_bounds(r[k], extent, env)):
            return None
        read = Index(target.array, tuple(r))
        tk = self.kind_of(self.arrays[target.array][0])
        e = self.expr(tk, scope, 2)
        if tk == "float":
            value: Expr = Bin("+", Bin("*", Num(d.choice((0.5, -0.5, 0.25))), read), e)
        else:
            value = Bin("%", Bin("+", Bin("*", read, Num(3)), e), Num(d.choice((17, 31))))
        self.written.add(target.array)
        return Assign(Index(target.array, tuple(w)), "", value)

    def if_block(self, scope: Scope) -> Stmt | None:
        d = self.d
        body = self.branch(scope)
        if not body:
            return None
        orelse: tuple[Stmt, ...] = ()
        form = d.weighted((("if", 3), ("else", 2), ("elif", 2)))
        if form == "else":
            orelse = self.branch(scope)
        elif form == "elif":
            inner = self.branch(scope)
            if inner:
                orelse = (If(self.cond(scope), inner, self.branch(scope) if d.chance(50) else ()),)
        return If(self.cond(scope), body, orelse)

    def branch(self, scope: Scope) -> tuple[Stmt, ...]:
        out = []
        for _ in range(self.d.int(1, 2)):
            stmt, scope = self.statement(scope, allow_if=False)
            if stmt is not None:
                out.append(stmt)
        return tuple(out)



def generate(d: Draw, features: Features | None = None) -> Program:
    return Gen(d, features).program()
