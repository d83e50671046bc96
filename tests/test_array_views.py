"""A new local bound to a view (``t = x[1:]``, ``t = A.T``, ``r = A[0]``, ``t = x``) shares
memory with its array in NumPy; polyopt gave it a copy, so a write to either after the
binding was not seen through the other: ``t = x[1:]; x[:] = 0.0; return t * 1`` returned
the old values where NumPy returns zeros, and ``t = x; t[0] = 3.0`` left ``x`` unchanged.
Such a binding is now refused when the function writes the array or the local; a view
nobody writes, or an explicit ``.copy()``, compiles as before."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def view_then_write(x):
    t = x[1:]  # slice
    x[:] = 0.0
    return t * 1


def write_through_view(x):
    t = x[1:]  # through
    t[0] = 5.0
    return np.sum(x)


def transposed_then_write(A):
    t = A.T  # transposed
    A[0, 1] = 9.0
    return t * 1


def row_then_write(A):
    r = A[0]  # row
    A[0, 0] = 7.0
    return r + 0


def renamed(x):
    t = x  # renamed
    t[0] = 3.0
    return np.sum(x)


def copied_then_write(x):
    t = x[1:].copy()
    x[:] = 0.0
    return t * 1


def view_read_only(x, y):
    t = x[::-1]
    y[:] = t * 2.0
    return np.sum(t)


THIS_FILE = __file__


def _line(marker: str) -> int:
    lines = open(THIS_FILE).read().splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.endswith(f"# {marker}"))


@pytest.mark.parametrize(("fn", "make", "marker"), [
    (view_then_write, lambda: (np.arange(4.0),), "slice"),
    (write_through_view, lambda: (np.arange(4.0),), "through"),
    (transposed_then_write, lambda: (np.arange(4.0).reshape(2, 2),), "transposed"),
    (row_then_write, lambda: (np.arange(4.0).reshape(2, 2),), "row"),
    (renamed, lambda: (np.arange(4.0),), "renamed"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_written_view_is_refused_at_its_binding(fn, make, marker) -> None:
    with pytest.raises(polyopt.UnsupportedError, match="is a view of .* share memory") as info:
        polyopt.jit(fn)(*make())
    e = info.value
    assert (e.filename, e.lineno) == (THIS_FILE, _line(marker)) and ".copy()" in str(e)


@pytest.mark.parametrize(("fn", "make"), [
    (copied_then_write, lambda: (np.arange(4.0),)),
    (view_read_only, lambda: (np.arange(5.0), np.zeros(5))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_copies_and_unwritten_views_compile(fn, make) -> None:
    want_args, got_args = make(), make()
    want, got = fn(*want_args), polyopt.jit(fn)(*got_args)
    assert np.array_equal(want, got)
    for w, g in zip(want_args, got_args, strict=True):
        assert np.array_equal(w, g)


def view_then_update_in_place(x):
    t = x[1:]  # in place
    x += 1.0
    return t * 1


def update_the_view_in_place(x):
    t = x[::2]  # view updated
    t += 1.0
    return np.sum(x)


@pytest.mark.parametrize(("fn", "marker", "words"), [
    (view_then_update_in_place, "in place", "is a view of"),
    # a view updated in place (``t += 1.0`` writes x's elements through it)
    (update_the_view_in_place, "view updated", "is a view of"),
])
def test_an_in_place_update_counts_as_a_write(fn, marker, words) -> None:
    with pytest.raises(polyopt.UnsupportedError, match=words) as info:
        polyopt.jit(fn)(np.arange(4.0))
    assert info.value.lineno == _line(marker)
