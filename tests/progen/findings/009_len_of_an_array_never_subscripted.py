"""Finding 009: ``polyopt.schedule`` on a function that takes an array only for its
``len()``.

Found by the program generator (``make fuzz``, random user schedules): ::

    def only_len(A, B):
        m = len(B)                 # B is never subscripted
        for i in range(A.shape[0]):
            A[i] = A[i] * m

``polyopt.schedule(fn)`` infers argument kinds from use before any call.  A name
subscripted or read through ``.shape`` was an array, but ``len(B)`` was not counted, so
``B`` became a float scalar and the schedule was refused ("'B' is not an array") although
``@polyopt.jit`` compiled the same function.  ``len(B)`` now shows ``B`` is an array.
"""

from __future__ import annotations

import numpy as np

import polyopt


def only_len(A, B):
    m = len(B)
    for i in range(A.shape[0]):
        A[i] = A[i] * m


def test_a_schedule_infers_an_array_used_only_through_len():
    A = np.arange(5.0)
    B = np.zeros((3, 2, 4), np.int64)
    expected, got = A.copy(), A.copy()
    only_len(expected, B)
    kernel = polyopt.schedule(only_len).parallelize("i").compile()
    kernel(got, B)
    assert np.array_equal(got, expected)
