"""A refusal names the user's construct, never a name polyopt made: ``return x.copy()``
was refused first as "`result1`: unknown name" (the temporary the array lowering
made for the returned value), the method call only second.  (``copy`` and ``astype``
compile now; ``reshape`` and ``cumsum`` are still refused.)"""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def returns_reshape(x):
    return x.reshape(3)


def returns_cumsum(x):
    return x.cumsum()


def returns_ndim(x):
    return x.ndim


@pytest.mark.parametrize("fn,construct", [
    (returns_reshape, "x.reshape"),
    (returns_cumsum, "x.cumsum"),
    (returns_ndim, "x.ndim"),
])
def test_a_refused_return_names_the_construct(fn, construct) -> None:
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(np.ones(3))
    message = str(info.value)
    assert construct in message and "result" not in message and "more problem" not in message
    assert info.value.offset == 12  # the caret is on the returned expression
