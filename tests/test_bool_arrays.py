"""A new local array of bools (``m = x > 0.5``) is a bool array, as NumPy's: it once
became an int32 array, so ``m + m`` added (NumPy's bools ``or``: ``np.sum(m + m)`` gave 4
where NumPy gives 2) and ``return m`` gave int32 where NumPy gives bool."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def doubled_mask(x):
    m = x > 0.5
    c = m + m
    return np.sum(c)


def returned_mask(x):
    m = x > 0.5
    return m


def mask_in_place(x, out):
    out[:] = (x > 0.5) * 2.0


def mask_as_ints(x):
    m = np.where(x > 0.5, 1, 0)
    return np.sum(m + m)


X = np.array([0.2, 0.7, 0.9])


@pytest.mark.parametrize("fn", [doubled_mask, returned_mask])
def test_a_new_bool_array_is_numpys(fn) -> None:
    expected, got = np.asarray(fn(X.copy())), np.asarray(polyopt.jit(fn)(X.copy()))
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_comparisons_where_they_are_used(check) -> None:
    check(polyopt.jit(mask_in_place), X, np.zeros(3))
    check(polyopt.jit(mask_as_ints), X)


def bool_matmul(a, b):
    return a @ b


def bool_dot(a, b):
    return np.dot(a, b)


@pytest.mark.parametrize("fn", [bool_matmul, bool_dot])
def test_a_bool_matrix_product_is_a_bool(fn) -> None:
    """NumPy's product of bools ors the ands; the vector-vector one counted the pairs
    (``v @ w`` was the int64 2 where NumPy gives ``True``)."""
    v = np.array([True, False, True, True])
    m = np.array([[True, False], [False, False], [True, True]])
    for a, b in ((v, v), (v, ~v), (m, v[:2]), (v[:3], m), (m, np.ascontiguousarray(m.T))):
        want, got = fn(a, b), polyopt.jit(fn)(a, b)
        assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want)


def any_by_max(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def all_by_min(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = min(m, x[i])
    return m


def all_by_product(x):
    m = x[0]
    for i in range(1, x.shape[0]):
        m *= x[i]
    return m


def any_by_max_prange(x):
    m = x[0]
    for i in polyopt.prange(x.shape[0]):
        m = max(m, x[i])
    return m


@pytest.mark.parametrize("fn", [any_by_max, all_by_min, all_by_product, any_by_max_prange])
def test_bool_min_max_and_product_are_parallel_reductions(fn):
    """Hostile session 47a, finding 06: a max over bools was sequential, and under prange
    refused for 'the output (write after write) on m'; max, min and * of bools stay 0 or
    1, so OpenMP's own reductions compute them (+ is NumPy's or, and stays in order)."""
    kernel = polyopt.jit(fn)
    assert "parallel as a reduction" in kernel.report(np.zeros(4, bool))
    rng = np.random.default_rng(3)
    for n in (1, 5, 3000):
        for p in (0.0, 0.001, 0.5, 1.0):
            x = rng.random(n) < p
            want, got = fn(x), kernel(x)
            assert want == got and type(want) is type(got), (n, p)
