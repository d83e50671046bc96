"""NumPy integers of fixed width (``np.uint8(10)``) in bounds, subscripts and tests,
and as the fill of ``np.full``, against CPython running the same function.

Hostile session 47a, findings 01 and 02: ``range(n - 20)`` with ``n = np.uint8(10)`` ran
no iteration where CPython computes ``n - 20`` in uint8 (246 iterations), and
``np.full(n, np.int64(300), np.int8)`` raised where NumPy's fill casts (44)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyopt
from polyopt import UnsupportedError

G8 = np.uint8(10)


def bound(y, n):
    for i in range(n - 20):
        y[i] = 1


def in_a_test(y, n):
    for i in range(y.shape[0]):
        if n + 100 > 50:
            y[i] = 1


def subscript(y, n):
    for i in range(5):
        y[n - 20 + i] = 1


def negated(y, n):
    for i in range(-n, 0):
        y[i] = 1


def global_bound(y, n):
    for i in range(G8 - 20):
        y[i] = 1


@pytest.mark.parametrize("fn", [bound, in_a_test, subscript, negated, global_bound])
@pytest.mark.parametrize("n", [np.uint8(10), np.int8(100), np.uint64(5), np.int32(7)])
def test_arithmetic_on_a_fixed_width_int_in_affine_position_is_refused(fn, n):
    with pytest.raises(UnsupportedError, match=r"NumPy's arithmetic wraps.*write `int\("):
        polyopt.jit(fn)(np.zeros(300, np.int64), n)


def bare(y, n):
    for i in range(n):
        y[i] = 1
    if n > 5:
        y[0] = 7


def converted(y, n):
    for i in range(int(n) - 5):
        y[i + int(n) - 9] = 1


def bound_through_a_local(y, n):
    m = n
    for i in range(3):
        y[i] = m - 20  # in uint8, as CPython: 246


@pytest.mark.parametrize("fn", [bare, converted, bound_through_a_local])
@pytest.mark.parametrize("n", [np.uint8(10), np.int16(12), np.int64(11), 10])
def test_fixed_width_ints_agree_with_cpython(fn, n):
    want, got = np.zeros(300, np.int64), np.zeros(300, np.int64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        fn(want, n)
    polyopt.jit(fn)(got, n)
    assert np.array_equal(want, got)


def test_a_local_copy_is_a_value_not_a_size():
    """``m = n`` keeps n's type, so ``range(m - 20)`` is not a bound of sizes."""
    def copy_bound(y, n):
        m = n
        for i in range(m - 20):
            y[i] = 1

    with pytest.raises(UnsupportedError, match="`m`: is a value computed at run time"):
        polyopt.jit(copy_bound)(np.zeros(300, np.int64), np.uint8(10))


def full_i8(x, v):
    t = np.full(x.shape[0], v, np.int8)
    return t


def full_u8(x, v):
    t = np.full(x.shape[0], v, np.uint8)
    return t


def full_u8_literal(x):
    t = np.full(x.shape[0], -1.5, np.uint8)
    return t


@pytest.mark.parametrize("fn,args", [
    (full_i8, (np.int64(300),)), (full_u8, (np.int64(-1),)), (full_u8, (-1.5,)),
    (full_u8, (np.float32(-1.5),)), (full_i8, (np.int8(-3),)), (full_u8_literal, ()),
])
def test_np_full_casts_its_fill_as_numpy_does(fn, args):
    x = np.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(x, *args)
    got = polyopt.jit(fn)(x, *args)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_np_full_of_a_python_int_that_does_not_fit_raises_as_numpy_does():
    with pytest.raises(OverflowError):
        full_i8(np.ones(3), 300)
    with pytest.raises(OverflowError):
        polyopt.jit(full_i8)(np.ones(3), 300)
