"""float16 sums, means, dot and matrix products, as NumPy computes them.

A hostile user's finding: ``np.sum`` of 3000 float16 ones gave 2048 (a float16
accumulator stops where adding 1 no longer changes it), ``x.mean()`` 0.68, and
``np.dot`` of 4096 float16 0.1s 32.0 where NumPy gives 40.94.  NumPy sums float16 in
float32 (its pairwise sum's and its dot's accumulators), multiplies the operands of a
dot in float32, and rounds the result once (``prod`` too); so does polyopt now.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def total(x):
    return np.sum(x)


def average(x):
    return x.mean()


def row_sums(A):
    return A.sum(axis=1)


def dot(x, y):
    return np.dot(x, y)


def matmul(A, B):
    return A @ B


def matvec(A, x):
    return A @ x


R = np.random.default_rng(0)
CASES = {
    "sum of ones": (total, (np.ones(3000, np.float16),)),
    "mean of ones": (average, (np.ones(3000, np.float16),)),
    "sum of tenths": (total, (np.full(64, 0.1, np.float16),)),
    "row sums": (row_sums, (R.random((5, 700)).astype(np.float16),)),
    "dot": (dot, (np.full(4096, 0.1, np.float16), np.full(4096, 0.1, np.float16))),
    "matmul": (matmul, (R.random((37, 29)).astype(np.float16),
                        R.random((29, 41)).astype(np.float16))),
    "matvec": (matvec, (R.random((37, 29)).astype(np.float16), R.random(29).astype(np.float16))),
}


@pytest.mark.parametrize("case", CASES)
def test_float16_reductions_round_once_like_numpy(case: str) -> None:
    fn, args = CASES[case]
    want = np.asarray(fn(*args))
    got = np.asarray(polyopt.jit(fn)(*args))
    assert got.dtype == want.dtype == np.float16
    # one rounding of a float32 total: NumPy's pairwise order may round the float32
    # partial sums differently, by far less than a float16 ulp
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=2.0**-10)


def product(x):
    return np.prod(x)


def test_float16_products_also_accumulate_in_float32() -> None:
    """NumPy's float16 ``prod`` keeps its running product in float32 too: 44.62 for
    forty 1.1s, where rounding each step to float16 gives 44.6."""
    x = np.full(40, 1.1, np.float16)
    assert polyopt.jit(product)(x) == product(x) == np.float16(44.62)
