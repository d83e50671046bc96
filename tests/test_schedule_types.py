"""``polyopt.schedule`` and ``report()`` of NumPy array code: the schedule analysed the
types inferred from the code (``B[:]`` a 1-D array, an unsubscripted ``x`` a float),
so ``y[:] = B @ x`` was refused ("matrix products take 1-D or 2-D arrays") even after
calls; it now analyses the last call's types, else the first declared signature's,
and a refusal under inferred types says so.  The loops ``B @ x`` becomes share an
iterator and a line; each now has a name that picks it (its id), not "i3@5" twice."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def scaled_matvec(A, B, x, y):
    B[:] = A * 2.0
    y[:] = B @ x


def _args(rng):
    return rng.random((12, 12)), np.zeros((12, 12)), rng.random(12), np.zeros(12)


def _same_as_python(compiled, rng) -> None:
    want = _args(rng)
    got = tuple(a.copy() for a in want)
    scaled_matvec(*want)
    compiled(*got)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_schedule_of_array_code_after_a_call(rng) -> None:
    kernel = polyopt.jit(scaled_matvec)
    kernel(*_args(rng))
    s = polyopt.schedule(kernel)
    names = s.loops()
    assert len(set(names)) == len(names), names
    for name in names:  # every listed name picks one loop
        try:
            s.parallelize(name)
        except polyopt.IllegalTransformationError:
            pass
    _same_as_python(s.parallelize(names[0]).compile(), rng)
    assert "B @ x" in kernel.report()


def test_schedule_of_array_code_with_a_declared_signature(rng) -> None:
    kernel = polyopt.jit("void(f8[:, :], f8[:, :], f8[:], f8[:])")(scaled_matvec)
    _same_as_python(polyopt.schedule(kernel).compile(), rng)


def test_inferred_types_are_named_in_the_refusal() -> None:
    with pytest.raises(polyopt.UnsupportedError, match="inferred from the code"):
        polyopt.schedule(scaled_matvec)
