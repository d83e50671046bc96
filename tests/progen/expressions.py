"""Expressions of random programs: subscripts kept in bounds by interval arithmetic,
affine conditions, and float and int expressions of every form the generator draws
(the part of :class:`progen.generate.Gen` below statements)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from progen.draw import Draw
from progen.nodes import (
    LIBM,
    MATH1,
    Bin,
    BoolOp,
    Call,
    Cmp,
    Expr,
    IfExp,
    Index,
    Name,
    Neg,
    Not,
    Num,
    is_float_dtype,
)

Interval = tuple[int, int] | None  # None: the loop never runs
FLOAT_CONSTS = (0.5, 1.25, 2.0, -0.75, 3.0, 0.1)


@dataclass(frozen=True)
class Loop:
    var: str
    span: Interval
    step: int


@dataclass(frozen=True)
class Scope:
    loops: tuple[Loop, ...] = ()
    scalars: tuple[tuple[str, str], ...] = ()  # readable scalars: (name, "int" | "float")
    accs: tuple[tuple[str, str, str], ...] = ()  # updatable accumulators: (name, kind, how)

    def with_scalar(self, name: str, kind: str) -> Scope:
        return replace(self, scalars=(*self.scalars, (name, kind)))


class Expressions:
    """Subscripts, conditions and expressions, in bounds by construction (the part of
    :class:`progen.generate.Gen` below statements)."""

    # what Gen.__init__ sets: the draw, and what the program has so far
    d: Draw
    np_forms: bool  # np.sin & co. beside math.sin
    sizes: dict[str, int]  # size symbol -> its value
    int_args: dict[str, int]
    arrays: dict[str, tuple[str, tuple[str, ...]]]  # name -> (dtype, size symbols)
    readable: set[str]  # arrays that may be read
    written: set[str]  # arrays stored to so far

    # --- intervals ---------------------------------------------------------------------

    def env(self, scope: Scope) -> dict[str, Interval]:
        out: dict[str, Interval] = {k: (v, v) for k, v in self.sizes.items()}
        out.update({k: (v, v) for k, v in self.int_args.items()})
        for lp in scope.loops:
            out[lp.var] = lp.span
        return out

    def interval(self, e: Expr, env: dict[str, Interval]) -> Interval:
        """Bounds of an affine int expression; None when a dead loop variable occurs."""
        if isinstance(e, Num):
            return (int(e.value), int(e.value))
        if isinstance(e, Name):
            return env[e.id]
        if isinstance(e, Neg):
            x = self.interval(e.operand, env)
            return None if x is None else (-x[1], -x[0])
        if isinstance(e, Bin):
            a, b = self.interval(e.left, env), self.interval(e.right, env)
            if a is None or b is None:
                return None
            if e.op == "+":
                return (a[0] + b[0], a[1] + b[1])
            if e.op == "-":
                return (a[0] - b[1], a[1] - b[0])
            if e.op == "*":
                c = [x * y for x in a for y in b]
                return (min(c), max(c))
            if e.op == "//":
                c = [x // y for x in a for y in b]
                return (min(c), max(c))
        if isinstance(e, Call) and e.fn in ("min", "max"):
            xs = [self.interval(x, env) for x in e.args]
            if any(x is None for x in xs):
                return None
            f = min if e.fn == "min" else max
            return (f(x[0] for x in xs), f(x[1] for x in xs))
        raise TypeError(e)

    def in_bounds(self, idx: Expr, extent: int, env: dict[str, Interval]) -> bool:
        if isinstance(idx, Num) and idx.value < 0:
            return -extent <= idx.value
        iv = self.interval(idx, env)
        return iv is None or (0 <= iv[0] and iv[1] <= extent - 1)

    @staticmethod
    def kind_of(dtype: str) -> str:
        return "float" if is_float_dtype(dtype) else "int"

    # --- expressions -------------------------------------------------------------------

    def divisor(self, scope: Scope) -> Expr:
        d = self.d
        if d.chance(40):
            return Num(d.choice((2.0, -4.0, 0.5)))
        return Bin("+", Num(1.5), Call("abs", (self.expr("float", scope, 2),)))

    def store_target(self, scope: Scope) -> Index | None:
        d = self.d
        names = sorted(self.readable)
        if not names:
            return None
        weights = [(x, 3 if x in self.written else 2) for x in names]
        name = d.weighted(weights)
        self.written.add(name)
        return Index(name, self.subscripts(name, scope))

    def subscripts(self, name: str, scope: Scope) -> tuple[Expr, ...]:
        d = self.d
        dims = self.arrays[name][1]
        env = self.env(scope)
        out: list[Expr] = []
        live = [lp for lp in scope.loops]
        for k, sym in enumerate(dims):
            extent = self.sizes[sym]
            chosen: Expr | None = None
            for _ in range(3):
                cand = self.subscript(k, len(dims), sym, live)
                if self.in_bounds(cand, extent, env):
                    chosen = cand
                    break
            if chosen is None:
                c = d.int(0, extent - 1)
                chosen = Num(c - extent if d.chance(20) else c)
            out.append(chosen)
        return tuple(out)

    def subscript(self, k: int, rank: int, sym: str, loops: list[Loop]) -> Expr:
        d = self.d
        if not loops:
            return Num(d.int(0, 2))
        # the natural loop for this dimension: the one as deep in the nest as k is in the array
        natural = loops[max(0, len(loops) - rank + k)] if len(loops) >= rank else loops[
            min(k, len(loops) - 1)]
        v = Name(natural.var if d.chance(70) else d.choice(loops).var)
        form = d.weighted((("v", 8), ("shift", 3), ("flip", 2), ("const", 1), ("twice", 1),
                           ("sum", 1 if len(loops) > 1 else 0)))
        if form == "shift":
            c = d.choice((1, -1, 2, -2))
            return Bin("+", v, Num(c)) if c > 0 else Bin("-", v, Num(-c))
        if form == "flip":
            return Bin("-", Bin("-", Name(sym), Num(1)), v)
        if form == "const":
            return Num(d.int(0, 2))
        if form == "twice":
            return Bin("*", Num(2), v)
        if form == "sum":
            a, b = d.choice(loops), d.choice(loops)
            return Bin("+", Name(a.var), Name(b.var))
        return v

    # --- expressions -------------------------------------------------------------------

    def cond(self, scope: Scope) -> Expr:
        """An affine condition on loop variables and sizes."""
        d = self.d
        form = d.weighted((("cmp", 6), ("and", 1), ("or", 1), ("not", 1), ("mod", 1)))
        if form in ("and", "or"):
            return BoolOp(form, (self.simple_cond(scope), self.simple_cond(scope)))
        if form == "not":
            return Not(self.simple_cond(scope))
        if form == "mod" and scope.loops:
            v = Name(d.choice(scope.loops).var)
            return Cmp("==", Bin("%", v, Num(2)), Num(d.int(0, 1)))
        return self.simple_cond(scope)

    def simple_cond(self, scope: Scope) -> Expr:
        d = self.d
        op = d.choice(("<", "<=", ">", ">=", "==", "!="))
        return Cmp(op, self.affine(scope), self.affine(scope))

    def affine(self, scope: Scope) -> Expr:
        d = self.d
        atoms: list[Expr] = [Name(lp.var) for lp in scope.loops] + [Name(s) for s in self.sizes]
        form = d.weighted((("atom", 4), ("const", 2), ("plus", 2), ("minus", 1)))
        if form == "const" or not atoms:
            return Num(d.int(0, 4))
        a = d.choice(atoms)
        if form == "plus":
            return Bin("+", a, d.choice([*atoms, Num(1)]))
        if form == "minus":
            return Bin("-", a, Num(d.int(1, 2)))
        return a

    def leaf(self, kind: str, scope: Scope) -> Expr:
        d = self.d
        arrays = [x for x in sorted(self.readable) if self.kind_of(self.arrays[x][0]) == kind]
        scalars = [n for n, k in scope.scalars if k == kind]
        choices = [("const", 2), ("array", 6 if arrays else 0), ("scalar", 3 if scalars else 0)]
        if kind == "int":
            choices += [("loop", 3 if scope.loops else 0), ("size", 1)]
        else:
            choices += [("conv", 1)]
        form = d.weighted(choices)
        if form == "array":
            name = d.choice(arrays)
            return Index(name, self.subscripts(name, scope))
        if form == "scalar":
            return Name(d.choice(scalars))
        if form == "loop":
            return Name(d.choice(scope.loops).var)
        if form == "size":
            return Name(d.choice(list(self.sizes)))
        if form == "conv":
            i = self.leaf("int", scope)
            return Call("float", (i,)) if d.chance(50) else Bin("*", i, Num(0.25))
        if kind == "int":
            return Num(d.choice((1, 2, 3, -2, 5)))
        return Num(d.choice(FLOAT_CONSTS))

    def expr(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        if depth <= 0:
            return self.leaf(kind, scope)
        if kind == "float":
            form = d.weighted((("leaf", 4), ("arith", 8), ("div", 1), ("neg", 1), ("math", 3),
                               ("pow", 1), ("minmax", 2), ("abs", 1), ("ifexp", 2), ("ifdata", 1),
                               ("floordiv", 1), ("square", 1), ("libm", 2)))
        else:
            form = d.weighted((("leaf", 4), ("arith", 8), ("neg", 1), ("intdiv", 2), ("minmax", 1),
                               ("abs", 1), ("ifexp", 2), ("toint", 1), ("ipow", 1),
                               ("bitwise", 1)))
        return getattr(self, f"_x_{form}")(kind, scope, depth)

    # one method per expression form: (kind, scope, depth) -> Expr

    def _x_leaf(self, kind: str, scope: Scope, depth: int) -> Expr:
        return self.leaf(kind, scope)

    def _x_arith(self, kind: str, scope: Scope, depth: int) -> Expr:
        sub = self.expr
        return Bin(self.d.choice(("+", "-", "*")), sub(kind, scope, depth - 1),
                   sub(kind, scope, depth - 1))

    def _x_div(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Bin("/", self.expr(kind, scope, depth - 1), self.divisor(scope))

    def _x_neg(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Neg(self.expr(kind, scope, depth - 1))

    def _x_math(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        fn = d.choice(MATH1)
        arg = self.expr(kind, scope, depth - 1)
        if fn == "sqrt":
            arg = Call("abs", (arg,))
        elif fn == "exp":
            arg = Call("tanh", (arg,), "math")
        elif fn == "log":
            arg = Bin("+", Num(1.0), Call("abs", (arg,)))
        return Call(fn, (arg,), d.choice(("math", "math", "np") if self.np_forms else ("math",)))

    def _x_libm(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        fn = d.choice(sorted(LIBM))
        f = LIBM[fn]
        arg = self.expr(kind, scope, depth - 1)
        if f.domain == "bounded":
            arg = Call("tanh", (arg,), "math")
        elif f.domain == "positive":
            arg = Call("abs", (arg,))
        elif f.domain == "above1":
            arg = Bin("+", Num(1.0), Call("abs", (arg,)))
        if fn == "fmod":  # a constant divisor, never 0
            args: tuple[Expr, ...] = (arg, Num(d.choice((1.5, 2.5, -2.0))))
        elif f.arity == 2:
            args = (arg, self.expr(kind, scope, depth - 1))
        else:
            args = (arg,)
        module = d.choice(("math", "np")) if f.numpy and self.np_forms else "math"
        return Call(fn, args, module)

    def _x_pow(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        base = Bin("+", Call("fabs", (self.expr(kind, scope, depth - 1),), "math"), Num(0.5))
        if d.chance(50):
            return Call("pow", (base, Num(d.choice((0.5, 1.5, 2.0)))), "math")
        return Bin("**", base, Num(d.choice((2, 0.5))))

    def _x_ipow(self, kind: str, scope: Scope, depth: int) -> Expr:
        """An int's power by a small constant: ``k ** 3``, or NumPy's ``np.power(k, 3)``
        (a NumPy int, wrapping in the operand's dtype)."""
        d = self.d
        base, exponent = self.expr(kind, scope, depth - 1), Num(d.choice((0, 1, 2, 3)))
        if self.np_forms and d.chance(50):
            return Call("power", (base, exponent), "np")
        return Bin("**", base, exponent)

    def _x_square(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Bin("**", self.expr(kind, scope, depth - 1), Num(2))

    def _x_minmax(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Call(self.d.choice(("min", "max")), (self.expr(kind, scope, depth - 1),
                                                    self.expr(kind, scope, depth - 1)))

    def _x_abs(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Call("abs", (self.expr(kind, scope, depth - 1),))

    def _x_ifexp(self, kind: str, scope: Scope, depth: int) -> Expr:
        return IfExp(self.cond(scope), self.expr(kind, scope, depth - 1),
                     self.expr(kind, scope, depth - 1))

    def _x_ifdata(self, kind: str, scope: Scope, depth: int) -> Expr:
        cmp = Cmp(self.d.choice((">", "<")), self.leaf("float", scope), Num(0.37))
        return IfExp(cmp, self.expr(kind, scope, depth - 1), self.expr(kind, scope, depth - 1))

    def _x_floordiv(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        return Bin(d.choice(("//", "%")), self.expr(kind, scope, depth - 1),
                   Num(d.choice((1.5, 2.5, -2.0))))

    def _x_intdiv(self, kind: str, scope: Scope, depth: int) -> Expr:
        d = self.d
        return Bin(d.choice(("//", "%")), self.expr(kind, scope, depth - 1),
                   Num(d.choice((2, 3, 5, -3))))

    def _x_bitwise(self, kind: str, scope: Scope, depth: int) -> Expr:
        """``a & b``, ``a | b``, ``a ^ b`` of ints (the C region's frontend refuses them,
        so such a program is refused there)."""
        return Bin(self.d.choice(("&", "|", "^")), self.expr(kind, scope, depth - 1),
                   self.expr(kind, scope, depth - 1))

    def _x_toint(self, kind: str, scope: Scope, depth: int) -> Expr:
        return Call("int", (self.expr("float", scope, depth - 1),))
