"""Line numbers inside error messages are the file's, as the caret's are: the swap
refusal named "the loop at line 3", counting from the function's decorator."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import polyopt


def swapped_arguments(a, b, steps):
    for _t in range(steps):
        for i in range(1, a.shape[0] - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
        a, b = b, a
    return a


def swapped_then_read(steps):
    a = np.zeros(8)
    b = np.ones(8)
    for _t in range(steps):
        for i in range(1, 7):
            b[i] = a[i] + 1.0
        a, b = b, a
    return a[0] + b[0]


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn,args", [
    (swapped_arguments, (np.ones(8), np.ones(8), 3)),
    (swapped_then_read, (3,)),
])
def test_swap_refusal_names_the_file_line_of_the_loop(fn, args) -> None:
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(*args)
    loop_line = _line_of(fn, "for _t in range(steps)")
    assert f"the loop at line {loop_line}" in str(info.value)
    assert info.value.lineno is not None and info.value.lineno > loop_line
