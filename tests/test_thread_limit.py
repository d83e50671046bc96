"""A thread count the system cannot start is refused when it is set: with
``polyopt.set_num_threads(100000)`` (or ``num_threads=``) the next parallel call died
of a segmentation fault inside libgomp, which could not create the threads."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt.kernel.threads import max_threads


def axpy(a, x, y):
    for i in range(len(x)):
        y[i] += a * x[i]


@pytest.mark.parametrize("n", [100_000, 10**9, 2**40])
def test_too_many_threads_are_refused(n) -> None:
    before = polyopt.get_num_threads()
    with pytest.raises(ValueError, match="at most"):
        polyopt.set_num_threads(n)
    assert polyopt.get_num_threads() == before
    with pytest.raises(ValueError, match="at most"):
        polyopt.jit(num_threads=n)(axpy)


def test_the_limit_itself_is_accepted() -> None:
    assert max_threads() >= 1024
    kernel = polyopt.jit(num_threads=max_threads(), parallel=False)(axpy)  # no team of 1024
    assert kernel.num_threads == max_threads()
    y = np.zeros(8)
    kernel(2.0, np.ones(8), y)
    assert y.tolist() == [2.0] * 8
