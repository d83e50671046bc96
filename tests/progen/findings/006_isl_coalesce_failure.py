"""Finding 006: isl's ``coalesce`` fails on a dependence relation.

Found by the program generator (``make fuzz``): for the kernel below, isl raises "call to
isl_map_coalesce failed: cannot relax redundant constraint" while polyopt coalesces a
memory dependence, and the call failed with "isl failed during the dependence analysis".
Coalescing only simplifies how a set is written, so polyopt now keeps the relation as it
is when isl cannot coalesce it (``isl_budget.coalesce``).
"""

from __future__ import annotations

import math

import numpy as np

import polyopt


def kernel(A, alpha):
    n = A.shape[0]
    s7 = 0.0
    s8 = 0.0
    for i in range(1, n - 2):
        for j in range(max(0, (i - 1)), min(n, (i + 2))):
            for k in range(max(0, (j - 2)), min(n, (j + 3))):
                if i > 0:
                    A[i] += math.tanh((1.25 - A[((n - 1) - k)]) + (0.1 ** 2))
                else:
                    A[k] = math.tanh(A[k])
                    A[((n - 1) - k)] = math.tanh(A[k] + float(i))
                A[k] -= math.tanh(s7)
                s7 = max(s7, math.tanh(math.exp(math.tanh(A[i])) + (alpha if (A[((n - 1) - k)] > 0.37) else s8)))
                s8 -= math.tanh(np.log(1.0 + abs(A[k] if (s8 < 0.37) else s7)))
            if i >= (i + 1):
                A[5] += math.tanh(A[((n - 1) - j)] + A[(j + 1)])
            else:
                A[((n - 1) - j)] += math.tanh(np.cos(1.25 * A[(j + 1)]))


def test_a_relation_isl_cannot_coalesce_still_compiles():
    A = np.array([-0.761220676997028, -1.585342135832537, -0.2784509435171003,
                  -1.4101565244997465, 0.7269467834946046, -1.896581983914249,
                  -1.9731162321321682])
    expected, got = A.copy(), A.copy()
    kernel(expected, -0.25)
    polyopt.jit(kernel, strict_fp=True)(got, -0.25)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
