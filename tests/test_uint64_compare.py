"""A uint64 compared with a signed NumPy int (hostile session 42a, finding 02).

NumPy 2 compares the two exactly; their promotion is float64, which rounds both past
2**53, and polyopt compared in it: ``u[i] == s[i]`` was True for 2**62 + 1 and 2**62.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def compare(u, s, out):
    for i in range(u.shape[0]):
        out[i, 0] = u[i] == s[i]
        out[i, 1] = u[i] < s[i]
        out[i, 2] = u[i] > s[i]
        out[i, 3] = s[i] != u[i]
        out[i, 4] = s[i] >= u[i]
        out[i, 5] = s[i] < u[i]


def whole_arrays(u, s, out):
    out[:] = u > s


def larger(u, s, out):
    for i in range(u.shape[0]):
        out[i] = 1 if u[i] > s[i] else 2


def count_equal(u, s):
    c = 0
    for i in range(u.shape[0]):
        c += u[i] == s[i]
    return c


U = np.array([2**62 + 1, 2**63 + 1, 2**64 - 1, 2**53 + 1, 5, 0, 7], dtype=np.uint64)
SIGNED = {
    np.int64: [2**62, 2**62, 2**63 - 1, 2**53, -1, 0, 7],
    np.int32: [1, -(2**31), 2**31 - 1, 3, -1, 0, 7],
    np.int8: [1, 2, -1, 3, -128, 0, 7],
}


@pytest.mark.parametrize("dtype", list(SIGNED))
@pytest.mark.parametrize("options", [{}, {"strict_fp": True}])
def test_a_uint64_and_a_signed_int_compare_exactly(dtype, options) -> None:
    s = np.array(SIGNED[dtype], dtype=dtype)
    for kernel, shape in ((compare, (7, 6)), (whole_arrays, (7,)), (larger, (7,))):
        want, got = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        kernel(U, s, want)
        polyopt.jit(kernel, **options)(U, s, got)
        np.testing.assert_array_equal(got, want)
    assert polyopt.jit(count_equal, **options)(U, s) == count_equal(U, s)


def test_the_exact_comparison_helper_is_emitted_only_where_used() -> None:
    s = np.array(SIGNED[np.int64], dtype=np.int64)
    assert "polyopt_cmp_u64_i64(" in polyopt.jit(whole_arrays).c_source(U, s, np.zeros(7, bool))
    assert "polyopt_cmp_u64_i64" not in polyopt.jit(whole_arrays).c_source(
        U, U, np.zeros(7, bool))
