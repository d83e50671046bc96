"""Helpers as Numba users write them: a value helper that subscripts its array
parameter (``def at(a, i): return a[i] * 2``) was lowered as an elementwise call on the
whole array ("assigns a 1-D value to one element `y[i]`"), and a statement helper's
scalar parameter used as a loop bound (``for i in range(n)``, called with
``x.shape[0]`` or ``3``) was a fresh variable, "a value computed at run time".  Both
compile and agree with CPython; an argument the helper could change (an array element
it writes) is still evaluated once, at the call."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt import prange


def twice_at(a, i):
    return a[i] * 2


def squared(v):
    return v * v


def ends(x, y):
    for i in prange(x.shape[0]):
        y[i] = twice_at(x, i) + twice_at(x, x.shape[0] - 1 - i)


def squares_plus_one(x, y):
    y[:] = squared(x) + 1.0


def add_one(a, b, n):
    for i in range(n):
        b[i] = a[i] + 1


def whole(x, y):
    add_one(x, y, x.shape[0])


def first_three(x, y):
    add_one(x, y, 3)


def named_size(x, y):
    n = len(x) - 1
    add_one(x, y, n)


def scale_by(a, s, n):
    for i in range(n):
        a[i] *= s


def scale_by_first(x):
    scale_by(x, x[0], x.shape[0])  # x[0] read once, before x[0] changes


def shifted(a, k):
    k += 1
    for i in range(3):
        a[i] = k * 1.5


def rebinds_its_parameter(x, k):
    shifted(x, k)
    return k


def odd(i):
    return i % 2


def mirrored(n, i):
    return n - 1 - i


def above(i, k):
    return i > k + 1


def affine_helpers(x, y):
    """A value helper of loop variables and sizes is affine where it is used (helper
    session 39, finding 03: `if odd(i):` was refused as a data-dependent `if`)."""
    n = x.shape[0]
    for i in range(mirrored(n, 0)):
        if odd(i):
            y[i] += x[mirrored(n, i)]
        if odd(i) == 0 and not above(i, 3):
            y[mirrored(n, i)] -= 1.0


def ident(x):
    return x


def first(a, b):
    return a


def bare_parameters(A, B):
    """A helper that returns a parameter as it is (helper session 39b, finding 08): the
    argument was not put in its place, and the caller's own `x` was read instead."""
    n = B.shape[0]
    x = 100.0
    for i in range(ident(n)):
        B[i] = A[ident(n) - 1 - i] + ident(A[i]) + x
        if first(i, n) % 2:
            B[first(i, x)] += 1.0


@pytest.mark.parametrize(("fn", "make"), [
    (bare_parameters, lambda r: (r.random(9), np.zeros(9))),
    (affine_helpers, lambda r: (r.random(9), np.zeros(9))),
    (ends, lambda r: (r.random(9), np.zeros(9))),
    (squares_plus_one, lambda r: (r.random(6), np.zeros(6))),
    (whole, lambda r: (r.random(7), np.zeros(7))),
    (first_three, lambda r: (r.random(7), np.zeros(7))),
    (named_size, lambda r: (r.random(7), np.zeros(7))),
    (scale_by_first, lambda r: (r.random(5) + 1.0,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_helpers_agree_with_python(fn, make, check, rng) -> None:
    check(polyopt.jit(fn), *make(rng))


def test_a_parameter_the_helper_rebinds_keeps_a_variable(rng) -> None:
    want, got = np.zeros(8), np.zeros(8)
    assert rebinds_its_parameter(want, 2) == polyopt.jit(rebinds_its_parameter)(got, 2)
    assert np.array_equal(want, got)


def reversed_copy(x, y):
    for i in range(x.shape[0]):
        y[i] = x[x.shape[0] - 1 - i]


def plus_last(x, y):
    y[:] = x + x[x.shape[0] - 1]


@pytest.mark.parametrize("fn", [reversed_copy, plus_last])
def test_a_size_in_a_subscript_is_affine(fn, check, rng) -> None:
    """``x[x.shape[0] - 1 - i]`` was refused as an indirect subscript ("reads an
    array"): ``x.shape[0]`` is a size, as it is in a loop bound."""
    check(polyopt.jit(fn), rng.random(6), np.zeros(6))


def fill(a, v):
    for i in range(a.shape[0]):
        a[i] = v


def fill_tail(x):
    fill(x[1:], 5.0)


def fill_row(A):
    fill(A[1], 2.0)


@pytest.mark.parametrize(("fn", "arg"), [(fill_tail, np.arange(4.0)),
                                         (fill_row, np.arange(6.0).reshape(2, 3))])
def test_a_view_passed_to_a_statement_helper_is_refused_at_the_call(fn, arg) -> None:
    """NumPy's helper writes through the view; the message named the helper's renamed
    parameter (``new array `_fill_a`: ... assigned ... only once``, ```_fill_a.shape`:
    '_fill_a' is not an array``)."""
    with pytest.raises(polyopt.UnsupportedError, match="a view of an array") as info:
        polyopt.jit(fn)(arg)
    assert "_fill_a" not in str(info.value)



HELPERS = """
def parity(i):
    return i % 2


def picks(i):
    return parity(i) == 1


def by_helpers(B):
    for i in range(B.shape[0]):
        if picks(i):
            B[i] = 1.0
"""


def test_a_helper_defined_again_is_the_one_a_call_inlines(tmp_path, monkeypatch) -> None:
    """Python calls the helper a name holds at call time (helper session 39b, finding 07:
    the kernel kept the first one).  Its helpers are watched as its global numbers are,
    by their code, a helper's helpers too."""
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "first_helpers.py").write_text(HELPERS)
    (tmp_path / "other_helpers.py").write_text(
        "def parity(i):\n    return 1 - i % 2\n\n\ndef picks(i):\n    return i > 3\n")
    import first_helpers as mod
    import other_helpers as other

    kernel = polyopt.jit(mod.by_helpers)

    def run() -> list[float]:
        want, got = np.zeros(6), np.zeros(6)
        mod.by_helpers(want)
        kernel(got)
        assert np.array_equal(want, got)
        return got.tolist()

    assert run() == [0, 1, 0, 1, 0, 1]
    first_parity, first_picks = mod.parity, mod.picks
    mod.parity = other.parity  # the helper's helper
    assert run() == [1, 0, 1, 0, 1, 0]
    mod.picks = other.picks
    assert run() == [0, 0, 0, 0, 1, 1]
    mod.parity, mod.picks = first_parity, first_picks
    assert run() == [0, 1, 0, 1, 0, 1]
