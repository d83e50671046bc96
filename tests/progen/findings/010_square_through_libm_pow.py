"""Finding 010: ``x ** 2`` under ``strict_fp`` rounded differently from CPython.

Found by the program generator (``make fuzz``, option set ``strict_fp``, bit-exact): a
float ``x ** 2`` was compiled as ``x * x``, the exactly rounded square.  CPython (and a
NumPy scalar) computes ``x ** 2`` with libm's ``pow``, and glibc's ``pow`` misses the
exact square by one ulp for about one double in a thousand (``-6.230138501582829 ** 2``
is one); later ``%`` and ``sqrt`` made that ulp a relative error of 1e-10.  Under
``strict_fp`` a float ``** 2`` now calls ``pow`` (``powf`` for float32), built with
``-fno-builtin-pow`` so that gcc does not fold it back into ``x * x``.
"""

from __future__ import annotations

import numpy as np

import polyopt

#: doubles (and floats) whose square glibc's pow rounds away from x * x
HARD64 = [-6.230138501582829, -79.37056123876155, 91.0411039236696, 11.183751893279464,
          -41.4393071936765]
HARD32 = [-0.4328923523426056, -5.951702117919922, -4.264882564544678, 5.625003814697266,
          6.064260482788086]


def squares(A, B):
    for i in range(A.shape[0]):
        t = A[i] + 0.0
        B[i] = A[i] ** 2 + t ** 2


def test_strict_fp_squares_like_cpython() -> None:
    for dtype, hard in ((np.float64, HARD64), (np.float32, HARD32)):
        A = np.array(hard, dtype)
        expected, got = np.zeros_like(A), np.zeros_like(A)
        squares(A, expected)
        assert not np.array_equal(A * A + A * A, expected)  # the inputs are hard ones
        polyopt.jit(squares, strict_fp=True)(A, got)
        assert np.array_equal(got, expected), (dtype, got - expected)
