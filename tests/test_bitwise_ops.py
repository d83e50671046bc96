"""``&``, ``|``, ``^`` and ``~`` against NumPy and CPython running the same function
(hostile session 48a, finding 10: NumPy's mask idiom ``np.where((x > 0) & (x < 1), x,
0.0)`` was refused as "bitwise and matrix operators are not supported")."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def mask_where(x):
    return np.where((x > 0) & (x < 1), x, 0.0)


def mask_ops(x, y):
    a = (x > 0) | (y < 0)
    b = ~(x > y) ^ (y > 0.5)
    return a & b


def int_ops(k, m, out):
    for i in range(k.shape[0]):
        out[i] = (k[i] & m[i]) + (k[i] | 6) - (k[i] ^ m[i]) + ~k[i]


def scalar_ops(n):
    s = 0
    for i in range(n):
        s += (i & 3) ^ (i | 1) + (~i & 7)
    return s


def python_bools(n):
    return (~True) + (True & (n > 2)) + (False | True)


def numpy_bool_and_int(x):
    return (x[0] > 0) & 3


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_bitwise_operators_on_ints_follow_numpy(dtype):
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    k = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    m = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    want, got = np.zeros(40, dtype), np.zeros(40, dtype)
    with np.errstate(all="ignore"):
        int_ops(k, m, want)
    polyopt.jit(int_ops)(k, m, got)
    assert np.array_equal(want, got)


def test_bool_masks_follow_numpy():
    rng = np.random.default_rng(5)
    x, y = rng.random(50) * 2 - 0.5, rng.random(50)
    assert np.array_equal(polyopt.jit(mask_where)(x), mask_where(x))
    want, got = mask_ops(x, y), polyopt.jit(mask_ops)(x, y)
    assert got.dtype == want.dtype == np.bool_ and np.array_equal(want, got)


def test_scalar_and_python_bool_operands_follow_cpython():
    assert polyopt.jit(scalar_ops)(37) == scalar_ops(37)
    assert polyopt.jit(python_bools)(5) == python_bools(5)
    x = np.array([0.5])
    want, got = numpy_bool_and_int(x), polyopt.jit(numpy_bool_and_int)(x)
    assert want == got and np.asarray(got).dtype == np.asarray(want).dtype


def float_and(x):
    return x & 1


def float_invert(x):
    return ~x[0]


def shift(k):
    return k[0] << 2


@pytest.mark.parametrize("fn,match", [(float_and, "`&` on a float"),
                                      (float_invert, "`~` on a float"),
                                      (shift, "shifts")])
def test_what_numpy_refuses_or_polyopt_does_not_compile_is_refused(fn, match):
    arg = np.array([1, 2], np.int64) if fn is shift else np.array([1.5, 2.5])
    with pytest.raises(polyopt.UnsupportedError, match=match):
        polyopt.jit(fn)(arg)


def in_place(k, m, flags, x):
    for i in range(k.shape[0]):
        k[i] &= 12
        k[i] |= m[i]
        k[i] ^= 5
    flags &= x > 0.5
    flags |= x < 0.1


def test_augmented_bitwise_assignments_follow_numpy():
    rng = np.random.default_rng(6)
    k, m = rng.integers(0, 100, 30), rng.integers(0, 100, 30)
    x = rng.random(30)
    flags = rng.random(30) < 0.5
    want = [a.copy() for a in (k, m, flags, x)]
    got = [a.copy() for a in (k, m, flags, x)]
    in_place(*want)
    polyopt.jit(in_place)(*got)
    for a, b in zip(want, got, strict=True):
        assert np.array_equal(a, b)
