"""``kernel.compile(x)`` with something that is no signature is a TypeError naming what
it takes: ``compile(3)`` raised "AttributeError: 'int' object has no attribute 'args'"."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def fill(x, n):
    for i in range(n):
        x[i] = 1.0


@pytest.mark.parametrize("bad", [3, None, ["f8[:], i8"], b"f8[:], i8"])
def test_compile_of_a_non_signature_is_a_type_error(bad) -> None:
    kernel = polyopt.jit(fill)
    with pytest.raises(TypeError, match="takes a signature string"):
        kernel.compile(bad)


def test_compile_of_a_string_still_compiles() -> None:
    kernel = polyopt.jit(fill)
    kernel.compile("f8[:], i8")
    x = np.zeros(4)
    kernel(x, 2)
    assert x.tolist() == [1.0, 1.0, 0.0, 0.0]
