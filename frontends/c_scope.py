"""What a name or array element means inside a ``#pragma scop`` region.

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
"""

from __future__ import annotations

from polyopt.frontends.c_affine import AffineConverter, describe
from polyopt.frontends.c_names import RegionNames
from polyopt.frontends.c_source import RegionSource
from polyopt.frontends.c_types import CType, Symbol
from polyopt.frontends.c_values import INT, ValueConverter, ValueScope
from polyopt.frontends.refusal import NotAffine
from pycparser import c_ast

from polyopt.model.aff import Formula, Lin, MinMax
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.expr import Expr, Load, Name

# (the hostile session's `x[p < n ? p : n - 1]` was sent to the min form, refused too)
_NO_CHOICE_IN_SUBSCRIPTS = (
    "subscripts must be affine: no min/max, nor `?:`; split the loop where the choice "
    "changes, so that each part indexes affinely (`for (p = 0; p < n; p++) y[p] = x[p];` "
    "then `for (p = n; p < m; p++) y[p] = x[n - 1];`)")

class RegionScope:
    """The names of one region as its statements use them; ``iters`` are the loop
    iterators around the statement being converted.  What it learns (parameters,
    arrays, read-only and local scalars) makes the region's declarations."""

    def __init__(self, src: RegionSource) -> None:
        self.src = src
        self.names = RegionNames.scan(src.items, src.types)
        self.iters: tuple[str, ...] = ()
        self.params: dict[str, str] = {}  # name: C type
        self.arrays: dict[str, Symbol] = {}
        self.readonly: dict[str, CType | None] = {}
        self.locals: dict[str, CType] = {}
        self.affine = AffineConverter(self._affine_name, src.opaque_calls)
        self.values = ValueConverter(ValueScope(self._value_name, self.load, self._affine_test,
                                                 src.types))

    def ctype_of(self, name: str) -> CType | None:
        decl = self.names.decls.get(name)
        if decl is not None:
            return self.src.types.of(decl.type)
        sym = self.src.scope.get(name)
        return sym.type if sym is not None else None

    def iterator_type(self, name: str) -> CType | None:
        t = self.names.iterators.get(name)
        return t if t is not None else self.ctype_of(name)

    def param(self, name: str, t: CType | None) -> Lin:
        self.params.setdefault(name, t.base if t is not None else "int")
        return Lin.var(name)

    def _affine_name(self, node: c_ast.ID) -> Lin:
        n = node.name
        if n in self.iters:
            return Lin.var(n)
        if n in self.names.iterators:
            raise NotAffine(node, f"`{n}`", "is a loop iterator used outside its loop")
        if n in self.names.written or n in self.names.decls:
            raise NotAffine(node, f"`{n}`", "is assigned in the region; loop bounds, subscripts "
                            "and `if` conditions must be affine in loop iterators and parameters")
        t = self.ctype_of(n)
        if t is not None:
            _not_volatile(node, n, t)
            if t.rank:
                raise NotAffine(node, f"`{n}`", "is an array, not an integer")
            if t.dtype is None:
                raise NotAffine(node, f"`{n}`", t.unsupported)
            if t.dtype.is_float:
                raise NotAffine(node, f"`{n}`", "is a floating-point variable; loop bounds, "
                                "subscripts and `if` conditions must be integers")
            if t.dtype.is_unsigned or t.dtype.is_bool:  # C's arithmetic on them wraps
                raise NotAffine(node, f"`{n}`", f"is `{t.base}`; loop bounds, subscripts and "
                                "`if` conditions must be signed integers (copy it before "
                                f"the region: `long {n}_ = {n};`, and use `{n}_`)")
        return self.param(n, t)

    def _affine_test(self, node: c_ast.Node) -> Formula | None:
        """The formula of a test in a value (``i > 0 ? A[i - 1] : 0``) that is affine in
        the iterators and the parameters the region has so far; None for another test (a
        value's test adds no parameter: ``x > 0 ? ...`` keeps ``x`` a read-only scalar)."""
        known = set(self.params)
        try:
            test: Formula | None = self.affine.formula(node)
        except NotAffine:
            test = None
        added = [p for p in self.params if p not in known]
        for p in added:
            del self.params[p]
        return None if added else test

    def _value_name(self, node: c_ast.ID) -> Expr:
        n = node.name
        if n in self.iters:
            return Name(n, self.value_type(node, self.iterator_type(n)))
        if n in self.names.iterators:
            raise NotAffine(node, f"`{n}`", "is a loop iterator used outside its loop (its value "
                            "after the loop is not modelled)")
        t = self.ctype_of(n)
        if t is not None and t.rank:
            raise NotAffine(node, f"`{n}`", "is an array or pointer; index it")
        vt = self.value_type(node, t)
        if n in self.names.written or n in self.names.decls:
            self.locals[n] = t if t is not None else CType("int", (), DType.INT32)
            return Load(n, (), vt) if self.is_live(n) else Name(n, vt)
        self.readonly[n] = t
        return Name(n, vt)

    def value_type(self, node: c_ast.Node, t: CType | None) -> ValueType:
        if t is None:
            return INT
        if t.dtype is None:
            raise NotAffine(node, f"`{getattr(node, 'name', '?')}`", t.unsupported)
        _not_volatile(node, getattr(node, "name", "?"), t)
        return ValueType(t.dtype)

    def is_live(self, name: str) -> bool:
        """Whether a scalar's value may flow into or out of the region."""
        if name in self.names.decls:
            return name in self.names.top_level and name in self.src.after_uses
        sym = self.src.scope.get(name)
        # a static local keeps its value from one call to the next, as a global does
        return sym is None or sym.scope in ("file", "param") or _static(sym.decl) or \
            name in self.src.outside_uses

    # --- array elements -----------------------------------------------------------------

    def element(self, node: c_ast.Node) -> tuple[str, tuple[Lin, ...], CType]:
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
        _not_volatile(cur, name, sym.type)
        indices: list[Lin] = []
        if offset is not None:
            indices.append(offset)
        for sub in subs:
            try:
                a = self.affine.aff(sub)
            except NotAffine as e:
                if isinstance(e.node, c_ast.TernaryOp):  # not the bounds' "min or max" hint
                    raise NotAffine(e.node, e.construct, _NO_CHOICE_IN_SUBSCRIPTS) from None
                if e.construct == "product" and len(subs) == 1:  # a flattened 2-D subscript
                    raise NotAffine(e.node, e.construct, f"{e.reason}; for a flattened "
                                    f"`{name}[i * n + j]`, declare `{name}` with its rows "
                                    f"(`{sym.type.base} (*{name})[n]`, or a parameter "
                                    f"`{sym.type.base} {name}[m][n]`) and write `{name}[i][j]`") from None
                raise
            if isinstance(a, MinMax):
                raise NotAffine(sub, "min/max subscript", _NO_CHOICE_IN_SUBSCRIPTS)
            indices.append(a)
        if len(indices) != sym.type.rank:
            rows = ""
            if len(indices) < sym.type.rank and sym.type.pointer_levels[len(indices)]:
                rows = (f"; {describe(node)} is a row pointer, and a region reads and writes "
                        "elements only (assign row pointers outside `#pragma scop`)")
            raise NotAffine(node, describe(node), f"`{name}` has {sym.type.rank} dimension(s) but "
                            f"is indexed with {len(indices)}{rows}")
        self.arrays[name] = sym
        return name, tuple(indices), sym.type

    def _deref(self, node: c_ast.UnaryOp) -> tuple[c_ast.Node, Lin]:
        """``*p`` is ``p[0]``, ``*(p + e)`` is ``p[e]``."""
        inner = node.expr
        if isinstance(inner, c_ast.ID):
            return inner, Lin.constant(0)
        if isinstance(inner, c_ast.BinaryOp) and inner.op in ("+", "-"):
            # `*(p + i - 1)` is `*((p + i) - 1)`: the terms of the sum, one the pointer
            terms = _signed_terms(inner, 1)
            ptrs = [(t, sign) for t, sign in terms if isinstance(t, c_ast.ID)
                    and (self.ctype_of(t.name) or CType("", (), None)).rank]
            if len(ptrs) == 1 and ptrs[0][1] == 1:
                off = Lin.constant(0)
                for t, sign in terms:
                    if t is ptrs[0][0]:
                        continue
                    part = self.affine.aff(t)
                    if not isinstance(part, Lin):
                        break
                    off = off + part if sign == 1 else off - part
                else:
                    return ptrs[0][0], off
        raise NotAffine(node, describe(node), "only `*p` and `*(p + offset)` dereferences "
                        "are supported")

    def load(self, node: c_ast.Node) -> Load:
        name, indices, t = self.element(node)
        assert t.dtype is not None
        return Load(name, indices, ValueType(t.dtype))


def _static(decl: c_ast.Decl) -> bool:
    return "static" in (decl.storage or []) or "extern" in (decl.storage or [])


def _not_volatile(node: c_ast.Node, name: str, t: CType) -> None:
    if t.volatile:  # the optimized code reorders, parallelizes and vectorizes accesses
        raise NotAffine(node, f"`{name}`", f"is {t.volatile}: each access is a side effect "
                        "that must happen as and when the file writes it, which polyopt would "
                        "reorder; copy it to or from a plain variable outside the region")


def _signed_terms(node: c_ast.Node, sign: int) -> list[tuple[c_ast.Node, int]]:
    """The terms of a sum of ``+`` and ``-``, each with its sign: ``p + i - 1`` gives
    ``[(p, 1), (i, 1), (1, -1)]``."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        return [*_signed_terms(node.left, sign),
                *_signed_terms(node.right, sign if node.op == "+" else -sign)]
    return [(node, sign)]
