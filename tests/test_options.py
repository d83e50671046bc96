"""Options of @polyopt.jit that change how code is built, not what it computes."""

import os

import numpy as np
import pytest

import polyopt


def fused(x, y, c, out):
    for i in range(len(out)):
        out[i] = x[i] * y[i] - c[i]


def variadic(*xs):
    for i in range(3):
        xs[0][i] = 1.0


def test_strict_fp_rounds_like_python():
    # with FMA contraction x*y - c where c == x*y would be the rounding error of x*y
    rng = np.random.default_rng(3)
    x, y = rng.random(257), rng.random(257)
    c = x * y
    out = np.ones(257)
    polyopt.jit(fused, strict_fp=True)(x, y, c, out)
    np.testing.assert_array_equal(out, np.zeros(257))


def test_cache_false_neither_reads_nor_writes_the_cache():
    root = os.environ["POLYOPT_CACHE_DIR"]
    before = set(os.listdir(os.path.join(root, "lib"))) if os.path.isdir(
        os.path.join(root, "lib")) else set()
    x = np.arange(5.0)
    out = np.empty(5)
    polyopt.jit(fused, cache=False)(x, x, x, out)
    np.testing.assert_array_equal(out, x * x - x)
    after = set(os.listdir(os.path.join(root, "lib"))) if os.path.isdir(
        os.path.join(root, "lib")) else set()
    assert after == before


def test_star_args_are_reported_at_the_def():
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(variadic)(np.zeros(3))
    assert "*args" in str(info.value)
    assert info.value.lineno == variadic.__code__.co_firstlineno
