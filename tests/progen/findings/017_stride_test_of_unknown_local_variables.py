"""Finding 017: tiling's lattice test failed on a domain with unnamed local variables.

Found by fuzz run Q (seed 33, program 74), under ``fuse_max`` only::

    T = np.zeros((p, n))
    for i in range((p + 1) // 2):
        for j in range(min(m, q)):
            for k in range(2, n - 2):
                T[i, k] = T[i, k] + 0.5

The call raised "isl failed during scheduling kernel(); this is a polyopt bug":
``names.has_iterator_stride`` (which keeps lattice loops from being tiled, since isl's
AST generator loses instances of them) asked isl for each local variable's expression,
and after fusion the domain had local variables that isl had not named
(``isl_basic_set_get_div``: "some divs are unknown").  The test now names them first
(``compute_divs``).
"""

from __future__ import annotations

import numpy as np

import polyopt


def kernel(A, B, C, q):
    n = A.shape[0]
    m = C.shape[1]
    p = len(B)
    T = np.zeros((p, n))
    for i in range((p + 1) // 2):
        for _j in range(min(m, q)):
            for k in range(2, n - 2):
                T[i, k] = T[i, k] + 0.5
    return T


def test_fused_nest_with_a_halved_bound_compiles_and_matches() -> None:
    args = (np.zeros(5), np.zeros(11), np.zeros((3, 3)), 3)
    for options in ({"fuse": "max"}, {}, {"tile": (2, 3), "unroll_jam": False}):
        assert np.array_equal(polyopt.jit(kernel, **options)(*args), kernel(*args)), options
