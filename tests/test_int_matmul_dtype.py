"""A matrix product of int32 arrays is an int32, wrapping as NumPy's does: ``k @ k``,
``np.dot`` and ``A.T @ A`` on int32 operands gave int64 results (the widening that
``np.sum`` of int32 does, to int64, was applied to the product's sum too)."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def vector_dot(k, m):
    return k @ m


def np_dot(k, m):
    return np.dot(k, m)


def gram(A):
    return A.T @ A


def matvec_into(A, k, out):
    out[:] = A @ k


def int_sum(k):
    return np.sum(k)


@pytest.mark.parametrize("fn", [vector_dot, np_dot])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_vector_products_keep_the_int_type(check, fn, dtype) -> None:
    k = np.array([2**30, 2**30, 3, -7], dtype=dtype)  # int32: the sum wraps
    got = check(polyopt.jit(fn), k, np.array([2, 2, 5, 1], dtype=dtype))
    assert isinstance(got, np.generic) and got.dtype == dtype


def test_mixed_int_widths_promote_as_numpy(check) -> None:
    got = check(polyopt.jit(vector_dot), np.arange(4, dtype=np.int32), np.arange(4))
    assert got.dtype == np.int64


def test_matrix_products_of_int32(check) -> None:
    A = (np.arange(12, dtype=np.int32).reshape(4, 3) - 5) * 40000
    got = check(polyopt.jit(gram), A)
    assert got.dtype == np.int32
    check(polyopt.jit(matvec_into), A, np.arange(3, dtype=np.int32), np.zeros(4, np.int32))


def test_np_sum_of_int32_still_widens(check) -> None:
    got = check(polyopt.jit(int_sum), np.array([2**30] * 4, dtype=np.int32))
    assert got.dtype == np.int64
