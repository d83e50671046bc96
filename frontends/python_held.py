"""The uses of a narrow-int local that also holds Python ints (:meth:`Symbols.held_wide`).

Such a local holds a NumPy narrow int or a Python int, whichever assignment ran last,
and CPython computes with each in its own type: after ``s = i16[0]`` and ``s = 1000``,
``s * 100`` is the Python int 100000, while a held int16 would wrap.  Its storage is
int64 and a read converts the held value to the narrow type, checked as NumPy converts
a Python int; that is right only where the value meets that same type.  Each use is
therefore checked:

- ``s + u8[i]`` (uint8 ``s``) and a store into a uint8 array: NumPy converts a Python
  int to uint8, checked, and a uint8 stays one: the read as it is;
- a store into another int array: the held value converted as a Python int, checked
  (where CPython held a NumPy int that does not fit, NumPy would wrap it: that raises);
- arithmetic with an int64 or float64 value (``s * f64[i]``; the Python float in
  ``s * 0.5`` only in a value stored into an array, with no float32 or float16 in it:
  the result is a Python float or a NumPy float64, which a float32 meets differently),
  a comparison (NumPy compares a
  Python int by value), ``float(s)``, ``int(s)``, a store into a float64 array, and a
  ``min``/``max``/choice of ints assigned straight back to such a local: the held value,
  unconverted::

      min((uint16)fit(s, 0, 65535), -2)   ->   min(s, -2)

- anything else (``s * 100``, ``s * s``, ``-s``, ``abs(s)``, ``s + i32[i]``,
  ``t = s``): refused, since its result would depend on the path the program took.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from polyopt.frontends.python_symbols import WIDE_LOCAL, Symbols
from polyopt.frontends.refusal import NotAffine

from polyopt.model.dtypes import DType, ValueType
from polyopt.model.expr import COMPARISONS, Binary, Call, Cast, Expr, Name, Select, map_nodes, walk

#: types a held int converts to exactly as CPython converts either value (a held read
#: widened to one needs no narrow check); not float32, where a Python int past 2**24
#: may round twice in NumPy (through a double) and once in C
_TAKES_ANY_INT = frozenset({DType.INT64, DType.FLOAT64})


class HeldReads:
    """Checks and rewrites the held-wide reads of one statement's value."""

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols
        self.python_float_ok = False

    def read_of(self, e: Expr) -> str | None:
        """The local whose held-wide read ``e`` is (``Cast(Name(s, int64), narrow)``)."""
        sym = self.symbols
        if (isinstance(e, Cast) and isinstance(e.operand, Name)
                and e.operand.type == WIDE_LOCAL and sym.is_local(e.operand.name)
                and sym.held_wide(e.operand.name)):
            return e.operand.name
        return None

    def _held(self, e: Expr) -> Expr:
        return e.operand if isinstance(e, Cast) and self.read_of(e) is not None else e

    def value(self, value: Expr, st: ast.stmt, store: ValueType | None,
              into_held: bool) -> Expr:
        """``value`` with the reads that take the held value unconverted; NotAffine at a
        read in a use that depends on the type held.  ``store``: the element type of the
        array assigned (None for a local); ``into_held``: a held-wide local is assigned."""
        if not any(self.read_of(n) for n in walk(value)):
            return value
        kept: set[int] = set()  # reads whose narrow conversion is NumPy's
        # a Python float meets either held value in float64, a Python float or a NumPy
        # float64: the same number, and the same type where nothing narrower meets it
        self.python_float_ok = store is not None and not any(
            n.type.dtype in (DType.FLOAT32, DType.FLOAT16) for n in walk(value))
        out = map_nodes(value, lambda e: self._visit(e, kept))
        if into_held:
            out = self._choice_into_held(out)
        if self.read_of(out) is not None and store is not None and out.type == store:
            kept.add(id(out))
        elif (store is not None and store.dtype.is_int and isinstance(out, Cast)
              and out.type == store and self.read_of(out.operand) is not None):
            # into another int array: the held value converted as NumPy converts a Python
            # int, checked; it raises where a held NumPy int out of range would wrap
            out = Cast(self._held(out.operand), store)
            kept.add(id(out))
        for n in walk(out):
            name = self.read_of(n)
            if name is not None and id(n) not in kept:
                raise self._refusal(st, name)
        return out

    def _choice_into_held(self, value: Expr) -> Expr:
        """A ``min``/``max``/choice of ints assigned straight back to a held local, with
        its held operands unconverted: the local then holds the operand chosen, compared
        by value (``m = max(m, u8[i])`` after ``m = -1`` holds the Python int -1 or the
        uint8 as it is, in the wide storage)."""
        inner = value.operand if isinstance(value, Cast) and value.type == WIDE_LOCAL else value
        if inner.type.dtype.is_float or not (
                isinstance(inner, Select) or isinstance(inner, Call) and inner.fn in ("min", "max")):
            return value
        if isinstance(inner, Call):
            args = tuple(self._held(a) for a in inner.args)
            if any(a.type.dtype.is_float for a in args):
                return value
            return replace(inner, args=args, type=WIDE_LOCAL)
        then, otherwise = self._held(inner.then), self._held(inner.otherwise)
        if then.type.dtype.is_float or otherwise.type.dtype.is_float:
            return value
        return replace(inner, then=then, otherwise=otherwise, type=WIDE_LOCAL)

    def _visit(self, e: Expr, kept: set[int]) -> Expr:
        if isinstance(e, Binary) and e.op in COMPARISONS:
            return replace(e, lhs=self._held(e.lhs), rhs=self._held(e.rhs))
        if isinstance(e, Binary):
            for x, y in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                if self.read_of(x) is None or self.read_of(y) is not None:
                    continue  # (s * s meets no NumPy value)
                if y.type == x.type:
                    kept.add(id(x))
                elif (not y.type.weak and y.type.dtype in _TAKES_ANY_INT and e.type == y.type
                      or self.python_float_ok and y.type.weak and y.type.dtype.is_float
                      and e.type.dtype is DType.FLOAT64):
                    # s + f64[i], s * i64[i]: y's type either way, the held value exact in it
                    held = self._held(x)
                    return replace(e, lhs=held) if x is e.lhs else replace(e, rhs=held)
            return e
        if isinstance(e, Cast) and self.read_of(e.operand) is not None \
                and e.type.dtype in _TAKES_ANY_INT:
            inner = self._held(e.operand)
            return inner if inner.type == e.type else replace(e, operand=inner)
        return e

    def _refusal(self, st: ast.stmt, name: str) -> NotAffine:
        where = next((x for x in ast.walk(st) if isinstance(x, ast.Name) and x.id == name
                      and isinstance(x.ctx, ast.Load)), st)
        t = self.symbols.local_type(name).dtype.value
        return NotAffine(where, f"`{name}` holding a NumPy {t} or a Python int", (
            f"it is assigned both, and CPython computes with whichever it holds in that "
            f"one's own type, so this use would depend on the path taken; give it one "
            f"type: `int(...)` where the {t} is assigned, or `np.{t}(...)` where the Python "
            f"int is (comparisons, float(), int(), arithmetic with a {t}, int64 or float64 "
            f"value and a store into an int or float64 array take either as it is)"))
