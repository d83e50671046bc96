"""A kernel whose own subscript constants leave no room for 64-bit arithmetic says so:
``x[i * 2**62]`` refused an array of 4 elements as "size 'x_shape0' = 4 is too large
... exact only for |x_shape0| <= 0", which blamed the size."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def huge_stride(x, n):
    for i in range(n):
        x[i * 4611686018427387904] = 1.0


def huge_offset(x, n):
    for i in range(n):
        x[i + 9223372036854775000] = 1.0


def stride_three(x, n):
    for i in range(n):
        x[i * 3] = 1.0


@pytest.mark.parametrize("fn", [huge_stride, huge_offset])
def test_the_kernels_constants_are_named(fn) -> None:
    with pytest.raises(OverflowError, match="near 2\\^63 themselves"):
        polyopt.jit(fn)(np.zeros(4), 1)


def test_a_size_past_an_ordinary_limit_blames_the_size() -> None:
    with pytest.raises(OverflowError) as info:
        polyopt.jit(stride_three)(np.zeros(4), 2**62)
    assert "themselves" not in str(info.value) and "argument 'n'" in str(info.value)
