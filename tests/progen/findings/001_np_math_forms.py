"""Finding 001: the ``np.`` forms of the math calls are compiled as the ``math.`` ones.

Found by the program generator under ``strict_fp=True`` (bit-exact against CPython):

* ``np.tanh``, ``np.exp``... on float64 use NumPy's own (SIMD) implementations, which are
  not libm's: for a third of the arguments ``np.tanh(x) != math.tanh(x)`` in the last bit,
  and polyopt calls libm's ``tanh``;
* ``np.cos(-0.75)`` of a Python float is an ``np.float64`` (a strong type), so
  ``B[j] *= np.cos(-0.75)`` on a float32 ``B`` multiplies in float64 and rounds once;
  polyopt types it as a weak Python float and multiplies in float32
  (``B_acc * (float)cos(-0.75)``).

Resolved: ``np.`` calls are typed as NumPy scalars (strong), and the README promises
2 ulp against NumPy's own kernels for ``exp log sin cos tanh power`` (the fuzzer compares
programs that call them within its error bound, not bit-exactly, under ``strict_fp``).
"""

from __future__ import annotations

import numpy as np

import polyopt


def np_tanh(A, B):
    for i in range(A.shape[0]):
        B[i] = np.tanh(A[i])


def np_cos_constant(B):
    n = B.shape[0]
    for _i in range(n):
        for j in range(n):
            B[j] *= np.cos(-0.75)


def test_np_tanh_is_within_two_ulp_under_strict_fp():
    """polyopt calls libm's tanh; NumPy's SIMD tanh is not always correctly rounded, so
    the README promises 2 ulp for the `np.` forms, not bit-exactness."""
    A = np.random.default_rng(0).uniform(-2.0, 2.0, 200)
    expected, got = np.zeros(200), np.zeros(200)
    np_tanh(A, expected)
    polyopt.jit(np_tanh, strict_fp=True)(A, got)
    ulps = np.abs(got - expected) / np.spacing(np.abs(expected))
    assert ulps.max() <= 2


def test_np_function_of_a_python_float_is_float64():
    B = np.linspace(-1.0, 1.0, 7).astype(np.float32)
    expected, got = B.copy(), B.copy()
    np_cos_constant(expected)
    polyopt.jit(np_cos_constant, strict_fp=True)(got)
    assert np.array_equal(got, expected)
