"""The warm call path (backend_c/fastcall.py): every check of the slow path, on every
call, after a call that passed them.

The generated wrapper lets cffi's ``from_buffer`` refuse non-C-contiguous and (for a
written array) read-only arrays, compares buffer pointers for overlap, and runs the
compiled bounds check only when the sizes differ from the last ones it accepted.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.backend_c.fastcall import make_fast_call

import polyopt


def add3(a, b, c):
    for i in range(c.shape[0]):
        c[i] = a[i] + b[i]


def _warm():
    kernel = polyopt.jit(add3)
    a, b, c = np.ones(4), np.full(4, 2.0), np.zeros(4)
    kernel(a, b, c)
    assert kernel._fast is not None  # the next calls go through the generated wrapper
    return kernel


def test_sizes_are_checked_again_when_they_change():
    kernel = _warm()
    with pytest.raises(IndexError, match="reads b"):
        kernel(np.ones(5), np.ones(4), np.zeros(5))  # b one short
    check_against_python(kernel, np.ones(3), np.ones(3), np.zeros(3))
    with pytest.raises(IndexError, match="reads a"):
        kernel(np.ones(2), np.ones(3), np.zeros(3))  # after a passing call of other sizes
    check_against_python(kernel, np.ones(4), np.ones(4), np.zeros(4))


def test_layout_writability_and_overlap_on_the_warm_path():
    kernel = _warm()
    with pytest.raises(ValueError, match="'a' is not C-contiguous"):
        kernel(np.ones(8)[::2], np.ones(4), np.zeros(4))
    readonly = np.zeros(4)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="'c' is read-only"):
        kernel(np.ones(4), np.ones(4), readonly)
    kernel(np.ones(4), np.ones(4), np.zeros(4))
    buf = np.zeros(10)
    with pytest.raises(ValueError, match="'a' and 'c' overlap"):
        kernel(buf[:4], np.ones(4), buf[3:7])  # one shared element
    check_against_python(kernel, buf[:4], np.ones(4), buf[4:8])  # adjacent, none shared
    ro = np.ones(4)
    ro.flags.writeable = False
    check_against_python(kernel, ro, ro, np.zeros(4))  # read-only arguments may alias


def test_bounds_check_runs_once_per_new_sizes():
    kernel = _warm()
    key, compiled = next(iter(kernel._specializations.items()))
    calls = []
    check = compiled.check

    def counting(*sizes):
        calls.append(sizes)
        return check(*sizes)

    compiled.check = counting
    fast = make_fast_call(compiled, key)
    a, b, c = np.ones(4), np.full(4, 2.0), np.zeros(4)
    for _ in range(3):
        fast((a, b, c))
    fast((np.ones(6), np.ones(6), np.zeros(6)))
    fast((a, b, c))
    assert calls == [(4, 4, 4), (6, 6, 6), (4, 4, 4)]
    np.testing.assert_array_equal(c, 3.0)
