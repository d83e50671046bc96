"""Finding 013: ``math.expm1(1.0)`` under ``strict_fp`` was an ulp off CPython's.

Found by the long fuzz run H (seed 25, program 345)::

    for i in range(n):
        s1 = math.expm1(1.0)
    return s1

CPython calls glibc's ``expm1``: 1.718281828459045.  gcc folded the call with a constant
argument at compile time, correctly rounded through MPFR: 1.7182818284590453, the
nearest double to e - 1, one ulp away.  ``strict_fp`` promises CPython's bits, so its
build now passes ``-fno-builtin-<f>`` for every transcendental function
(``build.STRICT_FP_FLAGS``, as it did for ``pow`` since finding 010): the call stays a
call of the C library CPython's ``math`` module calls.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyopt


def constant_calls(out):
    for i in range(out.shape[0]):
        out[i, 0] = math.expm1(1.0)
        out[i, 1] = math.exp(0.1)
        out[i, 2] = math.sin(2.5)
        out[i, 3] = math.log1p(0.3)
        out[i, 4] = math.atan2(1.0, 3.0)
        out[i, 5] = math.cosh(0.7)


def test_libm_calls_with_constant_arguments_are_cpythons_under_strict_fp():
    want, got = np.zeros((4, 6)), np.zeros((4, 6))
    constant_calls(want)
    polyopt.jit(constant_calls, strict_fp=True)(got)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("fn", ["exp", "expm1", "log", "sin", "atan2", "pow", "erf"])
def test_strict_fp_builds_keep_the_calls(fn):
    from polyopt.backend_c.build import STRICT_FP_FLAGS

    assert f"-fno-builtin-{fn}" in STRICT_FP_FLAGS and f"-fno-builtin-{fn}f" in STRICT_FP_FLAGS
