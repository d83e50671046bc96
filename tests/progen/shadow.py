"""Running error bounds: how far a reordered evaluation may move each float result.

The program is run a second time by CPython with every float replaced by an
:class:`EF`, a value with ``err``: a bound, in units of the unit roundoff, on the
absolute error that rounding anywhere in its computation may cause.  Sums count the
magnitudes of their terms (not only of the result), so a reassociated or contracted
(FMA) sum whose terms cancel is allowed the error its terms can carry.  Integers and
comparisons are exact.  An int of a float that rounding may move across an integer is
noted (:func:`tracking_ints`), and then nothing is bounded.  So is a comparison of floats
that rounding may move across each other (:func:`tracking_branches`): a branch is assumed
to go the same way in both runs, so a difference then is not sure to be an error.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

#: values on this grid, with terms of magnitudes summing to at most :data:`SPAN`, are
#: computed exactly by +, - and * in any order and any float type (23 bits)
GRID, SPAN = 2.0**-8, 2.0**15


def _on_grid(v: float, m: float) -> bool:
    return m <= SPAN and (v / GRID).is_integer()


class EF:
    """``v`` with ``e``, a bound on its rounding error; ``m``, where it is not None, says
    ``v`` is exact in every order of evaluation (the sum of its terms' magnitudes, on
    :data:`GRID` within :data:`SPAN`): ``3.0 * 0.5 + i``, not ``0.1 + i``."""

    __slots__ = ("v", "e", "m")
    __array_ufunc__ = None  # NumPy scalars defer to our reflected operators

    def __init__(self, v: float, e: float = 0.0, m: float | None = None) -> None:
        # an unbounded error times an exact 0 is NaN: still unbounded
        self.v, self.e = float(v), (math.inf if e != e else e)
        if m is None and e == 0:
            m = abs(self.v)
        self.m = m if m is not None and _on_grid(self.v, m) else None

    def _exact(self, o: EF, m: float) -> float | None:
        return m if self.m is not None and o.m is not None else None

    # arithmetic ---------------------------------------------------------------------------
    def __add__(self, o: Any) -> EF:
        o = lift(o)
        r = self.v + o.v
        return EF(r, self.e + o.e + abs(self.v) + abs(o.v),
                  self._exact(o, (self.m or 0.0) + (o.m or 0.0)))

    __radd__ = __add__

    def __sub__(self, o: Any) -> EF:
        o = lift(o)
        return EF(self.v - o.v, self.e + o.e + abs(self.v) + abs(o.v),
                  self._exact(o, (self.m or 0.0) + (o.m or 0.0)))

    def __rsub__(self, o: Any) -> EF:
        return lift(o) - self

    def __mul__(self, o: Any) -> EF:
        o = lift(o)
        r = self.v * o.v
        return EF(r, self.e * abs(o.v) + abs(self.v) * o.e + abs(r), self._exact(o, abs(r)))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> EF:
        o = lift(o)
        r = self.v / o.v
        return EF(r, self.e / abs(o.v) + abs(self.v) * o.e / (o.v * o.v) + abs(r))

    def __rtruediv__(self, o: Any) -> EF:
        return lift(o) / self

    def __floordiv__(self, o: Any) -> EF:
        o = lift(o)
        q = self.v // o.v
        err = _past_jump(self, o, self.e / abs(o.v) + abs(self.v) * o.e / (o.v * o.v)
                         + abs(q))
        return EF(q, err, abs(q) if err < ANY else None)  # not near a jump: the same q

    def __rfloordiv__(self, o: Any) -> EF:
        return lift(o) // self

    def __mod__(self, o: Any) -> EF:
        o = lift(o)
        r = self.v % o.v
        return EF(r, _past_jump(self, o, self.e + o.e * abs(self.v / o.v) + abs(r) + abs(o.v)),
                  self._exact(o, max(abs(r), abs(o.v))))

    def __rmod__(self, o: Any) -> EF:
        return lift(o) % self

    def __pow__(self, o: Any) -> EF:
        o = lift(o)
        r = self.v ** o.v
        d = abs(o.v * self.v ** (o.v - 1)) if self.v != 0 else 0.0
        small = o.v in (0.0, 1.0, 2.0, 3.0, 4.0)  # a product of exact factors
        return EF(r, d * self.e + abs(r), self._exact(o, abs(r)) if small else None)

    def __neg__(self) -> EF:
        return EF(-self.v, self.e, self.m)

    def __pos__(self) -> EF:
        return self

    def __abs__(self) -> EF:
        return EF(abs(self.v), self.e, self.m)

    # comparisons: on values, noting one that rounding may turn the other way ------------
    def __lt__(self, o: Any) -> bool:
        o = _compared(self, o)
        return self.v < o.v

    def __le__(self, o: Any) -> bool:
        o = _compared(self, o)
        return self.v <= o.v

    def __gt__(self, o: Any) -> bool:
        o = _compared(self, o)
        return self.v > o.v

    def __ge__(self, o: Any) -> bool:
        o = _compared(self, o)
        return self.v >= o.v

    def __eq__(self, o: object) -> bool:  # type: ignore[override]
        o = _compared(self, o)
        return self.v == o.v

    def __ne__(self, o: object) -> bool:  # type: ignore[override]
        o = _compared(self, o)
        return self.v != o.v

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        return self.v

    def __int__(self) -> int:
        """``int(x)``, also NumPy's store of ``x`` into an int array: exact, but a jump of
        one at every integer but 0, which rounding may move ``x`` across (finding 021)."""
        v = abs(self.v)
        jump = 1.0 - v if v < 1.0 else abs(v - round(v)) if math.isfinite(v) else 0.0
        if self.e > 0 and self.m is None and _near_jump(jump, self.e):
            _INT_FLAGS[-1][0] = True
        return int(self.v)

    def __repr__(self) -> str:
        return f"EF({self.v!r}, {self.e!r}, {self.m!r})"


#: the flags of the shadow runs in progress (:func:`tracking_ints`), innermost last
_INT_FLAGS: list[list[bool]] = [[False]]


@contextlib.contextmanager
def tracking_ints() -> Iterator[list[bool]]:
    """Within: a one-element flag, set once an int is taken of a float that rounding may
    move across an integer.  The shadow's ints carry no error bound, so every result of
    such a run may differ: floats by any amount, ints by more than rounding."""
    flag = [False]
    _INT_FLAGS.append(flag)
    try:
        yield flag
    finally:
        _INT_FLAGS.pop()


#: the flags of :func:`tracking_branches`, innermost last
_BRANCH_FLAGS: list[list[bool]] = [[False]]


@contextlib.contextmanager
def tracking_branches() -> Iterator[list[bool]]:
    """Within: a one-element flag, set once two floats are compared that rounding may
    move across each other (a branch on them may go the other way in a rounded run)."""
    flag = [False]
    _BRANCH_FLAGS.append(flag)
    try:
        yield flag
    finally:
        _BRANCH_FLAGS.pop()


def lift(x: Any) -> EF:
    return x if isinstance(x, EF) else EF(float(x), 0.0)


def _compared(a: EF, o: Any) -> EF:
    """``o`` as an EF, noting a comparison of ``a`` with it that rounding may turn the
    other way: a branch on it then runs the other arm (a chaotic ``s += cos(s * s + x)``
    that a contracted multiply-add moves across ``t < 0.37``)."""
    b = lift(o)
    if ((a.e > 0 or b.e > 0) and (a.m is None or b.m is None)
            and _near_jump(abs(a.v - b.v), a.e + b.e)):
        _BRANCH_FLAGS[-1][0] = True
    return b


def _unary(f, deriv):
    def g(x: Any) -> EF:
        x = lift(x)
        r = f(x.v)
        return EF(r, abs(deriv(x.v, r)) * x.e + abs(r))
    return g


#: an error bound that allows any difference: a result past a jump (floor, a sign) that
#: rounding elsewhere may move it across
ANY = 2.0**80


def _near_jump(distance: float, err: float) -> bool:
    """Whether rounding errors of ``err`` units may move a value ``distance`` away onto a
    discontinuity (a unit roundoff is at most 2**-24, and the comparison allows 64 of them
    per unit of bound: 2**-18 covers both)."""
    return distance <= err * 2.0**-18


def _past_jump(a: EF, b: EF, err: float) -> float:
    """``err``, or :data:`ANY` where ``a / b`` is so near an integer that rounding may move
    it across: ``a // b`` then jumps by one, and ``a % b`` by ``b`` (finding 015: a sum
    reassociated by a parallel reduction, then ``s // 1.5``)."""
    if b.v == 0.0 or not math.isfinite(a.v / b.v):
        return err
    exact = a.v / b.v
    quotient_err = a.e / abs(b.v) + abs(a.v) * b.e / (b.v * b.v) + abs(exact)
    if (a.e > 0 or b.e > 0) and _near_jump(abs(exact - round(exact)), quotient_err):
        return ANY
    return err


def _stepped(f):
    """floor, ceil, trunc: exact, but one unit apart on either side of an integer."""
    def g(x: Any) -> EF:
        x = lift(x)
        r = float(f(x.v))
        near = x.e > 0 and _near_jump(abs(x.v - round(x.v)), x.e)
        return EF(r, ANY if near else 0.0)
    return g


def _atan2(y: Any, x: Any) -> EF:
    y, x = lift(y), lift(x)
    r = math.atan2(y.v, x.v)
    r2 = x.v * x.v + y.v * y.v
    if r2 == 0.0 or (x.v < 0 and _near_jump(abs(y.v), y.e)):  # the branch cut at y = 0
        return EF(r, ANY)
    return EF(r, (abs(x.v) * y.e + abs(y.v) * x.e) / r2 + abs(r))


def _hypot(x: Any, y: Any) -> EF:
    x, y = lift(x), lift(y)
    r = math.hypot(x.v, y.v)
    return EF(r, x.e + y.e + abs(r))


def _copysign(x: Any, y: Any) -> EF:
    x, y = lift(x), lift(y)
    r = math.copysign(x.v, y.v)
    if y.v == 0.0 or _near_jump(abs(y.v), y.e):  # the sign of a zero may differ too
        return EF(r, ANY)
    return EF(r, x.e)


def _fmod(x: Any, y: Any) -> EF:
    x, y = lift(x), lift(y)
    r = math.fmod(x.v, y.v)
    q = x.v / y.v
    if _near_jump(abs(q - round(q)) * abs(y.v), x.e + y.e * abs(q)):
        return EF(r, ANY)
    return EF(r, x.e + y.e * abs(q) + abs(r))


class _S:
    """What the shadow program calls instead of math/np functions and conversions."""

    sin = staticmethod(_unary(math.sin, lambda x, r: 1.0))
    cos = staticmethod(_unary(math.cos, lambda x, r: 1.0))
    tanh = staticmethod(_unary(math.tanh, lambda x, r: 1.0))
    exp = staticmethod(_unary(math.exp, lambda x, r: r))
    log = staticmethod(_unary(math.log, lambda x, r: 1.0 / x))
    fabs = staticmethod(lambda x: abs(lift(x)))
    floor = staticmethod(_stepped(math.floor))
    ceil = staticmethod(_stepped(math.ceil))
    trunc = staticmethod(_stepped(math.trunc))
    atan = staticmethod(_unary(math.atan, lambda x, r: 1.0 / (1.0 + x * x)))
    sinh = staticmethod(_unary(math.sinh, lambda x, r: math.cosh(x)))
    cosh = staticmethod(_unary(math.cosh, lambda x, r: math.sinh(x)))
    asinh = staticmethod(_unary(math.asinh, lambda x, r: 1.0 / math.sqrt(1.0 + x * x)))
    erf = staticmethod(_unary(math.erf, lambda x, r: 1.13 * math.exp(-x * x)))
    erfc = staticmethod(_unary(math.erfc, lambda x, r: 1.13 * math.exp(-x * x)))
    expm1 = staticmethod(_unary(math.expm1, lambda x, r: math.exp(x)))
    log1p = staticmethod(_unary(math.log1p, lambda x, r: 1.0 / (1.0 + x)))
    log2 = staticmethod(_unary(math.log2, lambda x, r: 1.0 / (x * math.log(2.0))))
    log10 = staticmethod(_unary(math.log10, lambda x, r: 1.0 / (x * math.log(10.0))))
    atan2 = staticmethod(_atan2)
    hypot = staticmethod(_hypot)
    copysign = staticmethod(_copysign)
    fmod = staticmethod(_fmod)

    @staticmethod
    def sqrt(x: Any) -> EF:
        x = lift(x)
        r = math.sqrt(x.v)
        if x.v <= x.e * 1e-10:  # near the pole of the derivative: error ~ sqrt(eps * err)
            return EF(r, math.sqrt(x.e) * 2**27 + abs(r))
        return EF(r, x.e / (2 * r) + abs(r))

    @staticmethod
    def pow(x: Any, y: Any) -> EF:
        return lift(x) ** lift(y)

    @staticmethod
    def power(x: Any, y: Any) -> Any:
        """``np.power`` of ints (the generator's ``ipow``): NumPy's, exact."""
        return lift(x) ** y if isinstance(x, EF) else np.power(x, y)

    @staticmethod
    def round32(x: Any) -> Any:
        """A value assigned to a local the README types float32 (finding 033): CPython
        keeps a Python float as it is, the compiled program rounds it once."""
        if not isinstance(x, EF) or (x.e == 0 and float(np.float32(x.v)) == x.v):
            return x  # exact, and a float32 holds it
        return EF(x.v, x.e + abs(x.v))

    @staticmethod
    def int(x: Any) -> int:
        return int(x)  # an EF's __int__ notes a value near a jump

    @staticmethod
    def float(x: Any) -> EF:
        return lift(x)

    @staticmethod
    def alloc(shape: tuple[int, ...], dtype: str, fill: str) -> np.ndarray:
        value = 1 if fill == "ones" else 0
        if dtype.startswith("float"):
            out = np.empty(shape, dtype=object)
            for idx in np.ndindex(*shape):
                out[idx] = EF(float(value))
            return out
        return np.full(shape, value, dtype=dtype)


def shadow_array(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind != "f":
        return a.copy()
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(*a.shape):
        out[idx] = EF(float(a[idx]))
    return out


def errors_of(x: Any) -> Any:
    """The error bounds of a shadow result: an array of floats, a float, or None (exact)."""
    if isinstance(x, np.ndarray):
        if x.dtype != object:
            return None
        return np.vectorize(lambda v: v.e if isinstance(v, EF) else 0.0, otypes=[float])(x)
    if isinstance(x, EF):
        return x.e
    return None


def _extreme(pick):
    """``min`` or ``max`` over EFs: continuous, so no jump, whichever operand a rounded
    run picks; the result may be off by the larger of the operands' bounds."""
    def g(*xs: Any) -> Any:
        if len(xs) < 2 or not any(isinstance(x, EF) for x in xs):
            return (min if pick == "min" else max)(*xs)
        best = lift(xs[0])
        e, m = best.e, best.m
        for x in map(lift, xs[1:]):
            if (x.v < best.v) if pick == "min" else (x.v > best.v):  # as the builtin picks
                best = x
            e = max(e, x.e)
            m = None if m is None or x.m is None else max(m, x.m)
        return EF(best.v, e, m)
    return g


def namespace(allocated: list[np.ndarray] | None = None) -> dict[str, Any]:
    """The shadow program's globals; ``allocated`` collects its allocations, in order."""
    common = {"np": np, "math": math, "min": _extreme("min"), "max": _extreme("max")}
    if allocated is None:
        return {"_S": _S, **common}

    def alloc(shape: tuple[int, ...], dtype: str, fill: str) -> np.ndarray:
        out = _S.alloc(shape, dtype, fill)
        allocated.append(out)
        return out

    return {"_S": type("_S", (_S,), {"alloc": staticmethod(alloc)}), **common}
