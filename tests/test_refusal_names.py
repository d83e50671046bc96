"""A refusal names the user's construct, never a name polyopt made: ``return x.copy()``
was refused first as "`result1`: unknown name" (the temporary the array lowering
made for the returned value), the method call only second."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def returns_copy(x):
    return x.copy()


def returns_astype(x):
    return x.astype(np.float32)


def returns_ndim(x):
    return x.ndim


@pytest.mark.parametrize("fn,construct", [
    (returns_copy, "x.copy"),
    (returns_astype, "x.astype"),
    (returns_ndim, "x.ndim"),
])
def test_a_refused_return_names_the_construct(fn, construct) -> None:
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(np.ones(3))
    message = str(info.value)
    assert construct in message and "result" not in message and "more problem" not in message
    assert info.value.offset == 12  # the caret is on the returned expression
