"""A slice whose stop lies before its start is empty, as in NumPy (hostile session 43a,
findings 01 and 02).  Its extent was taken as ``stop - start``, negative: ``x[5:3].mean()``
was -0.0 (NumPy: nan), ``t = x[5:3].copy()`` raised "negative shape", and ``x[3:1] =
x[5:5]`` was refused as a shape mismatch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyopt


def mean_backwards(x):
    return x[5:3].mean()


def mean_rows_backwards(A):
    return A[3:1, :].mean(axis=0)


def mean_run_time(x, k):
    return x[k:3].mean()


def copy_backwards(x):
    t = x[5:3].copy()
    return t


def scaled_run_time(x, k):
    return x[k:3] * 2.0


def product_backwards(A):
    return A[3:1, :] @ A.T


def store_empty(x):
    x[3:1] = x[5:5]


def stepped(x):
    return x[0:20:-3].mean() + x[19:0:3].sum()


X = np.arange(8.0)
A = np.arange(20.0).reshape(4, 5)


@pytest.mark.parametrize(("kernel", "args"), [
    (mean_backwards, (X,)), (mean_rows_backwards, (A,)), (mean_run_time, (X, 5)),
    (mean_run_time, (X, 1)), (copy_backwards, (X,)), (scaled_run_time, (X, 5)),
    (scaled_run_time, (X, 0)), (product_backwards, (A,)), (store_empty, (X,)), (stepped, (X,)),
])
def test_an_empty_backwards_slice_is_as_numpy_gives_it(kernel, args) -> None:
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's "Mean of empty slice"
        want = kernel(*want_args)
        got = polyopt.jit(kernel)(*got_args)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.asarray(got).shape == np.asarray(want).shape
    for w, g in zip(want_args, got_args, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
