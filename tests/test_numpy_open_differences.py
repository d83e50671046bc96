"""Differences from NumPy found by the hostile-user sessions, each tested against
NumPy's answer."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def bool_power(b):
    return b ** 2


def max_of(x):
    return np.max(x, axis=0)


def test_bool_array_power_is_int8() -> None:
    b = np.array([True, False, True])
    got = polyopt.jit(bool_power)(b)
    assert got.dtype == bool_power(b).dtype == np.int8


def test_max_of_an_empty_axis_raises_value_error() -> None:
    x = np.zeros((0, 3))
    with pytest.raises(ValueError):
        max_of(x)
    with pytest.raises(ValueError):
        polyopt.jit(max_of)(x)



def square_sum(b, x):
    return b ** 2 + (x > 0.5) ** 2


def cube(b):
    return b ** 3


def element_square(b, out):
    for i in range(b.shape[0]):
        out[i] = b[i] ** 2 * 200  # int64 for the element: 200, not an int8 wrap


@pytest.mark.parametrize("fn", [square_sum, cube, element_square])
def test_only_the_array_square_of_bools_is_int8(fn) -> None:
    """NumPy computes ``bool_array ** 2`` as ``np.square`` (int8), but ``** 3`` and the
    element's ``np.True_ ** 2`` in int64."""
    b, x = np.array([True, False, True]), np.array([0.1, 0.7, 0.9])
    args = (b, np.zeros(3, np.int64)) if fn is element_square else (b, x)[:fn.__code__.co_argcount]
    want_args = tuple(a.copy() for a in args)
    want = fn(*want_args)
    got_args = tuple(a.copy() for a in args)
    got = polyopt.jit(fn)(*got_args)
    if want is None:
        want, got = want_args[-1], got_args[-1]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def max_of_row_prefix(A, out):
    for i in range(A.shape[0]):
        out[i] = np.max(A[i, :i])


def min_of_row_tail(A, out):
    for i in range(A.shape[0]):
        out[i] = np.min(A[i, i + 1:], axis=0)


def min_of_all(x):
    return np.min(x)


def max_along_rows(x):
    return np.max(x, axis=1)


def max_of_strided_rows(A):
    return np.max(A[::2], axis=0)


def max_of_strided_row_tails(A, out):
    for i in range(A.shape[0]):
        out[i] = np.max(A[i, i::2])


@pytest.mark.parametrize("fn, args", [
    (max_of_row_prefix, (np.arange(9.0).reshape(3, 3), np.zeros(3))),  # empty at i = 0
    (min_of_row_tail, (np.arange(9.0).reshape(3, 3), np.zeros(3))),  # empty at the last i
    (min_of_all, (np.zeros(0, np.int32),)),
    (max_of, (np.zeros((0, 0)),)),
    (max_along_rows, (np.zeros((3, 0)),)),
    (max_of_strided_rows, (np.zeros((0, 3)),)),
    (max_of_strided_row_tails, (np.ones((5, 4)), np.zeros(5))),  # A[4, 4::2] is empty
])
def test_a_reduction_without_identity_over_an_empty_slice_raises(fn, args) -> None:
    """NumPy raises ValueError where np.max/np.min reduce nothing, also for a slice that
    is empty on some iteration only: polyopt read the element before the slice's start."""
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        fn(*[a.copy() for a in args])
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        polyopt.jit(fn)(*args)


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (3, 0)])
def test_a_reduction_without_identity_over_a_nonempty_axis_is_numpys(shape) -> None:
    x = np.random.default_rng(1).random(shape)
    want = max_of(x)
    got = polyopt.jit(max_of)(x)
    assert got.shape == want.shape and np.array_equal(got, want)
    A = np.random.default_rng(2).random((4, 4))
    out, ref = np.zeros(4), np.zeros(4)
    for i in range(1, 4):
        ref[i] = A[i, :i].max()
    polyopt.jit(shifted_prefix_max)(A, out)
    assert np.array_equal(out, ref)


def shifted_prefix_max(A, out):
    for i in range(1, A.shape[0]):
        out[i] = np.max(A[i, :i])
