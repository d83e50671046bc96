"""Running a kernel on copies of the user's arguments: its outputs, how long it took, and
whether the outputs agree with the untuned kernel's.

Outputs are the array arguments after the call and the returned value.  Ints must be
equal; floats agree within a tight relative tolerance (``RTOL``, scaled by the largest
magnitude of the reference), since a candidate may legally reassociate a reduction
(parallel or SIMD partial sums) where the untuned kernel does not.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Call = Callable[[tuple[Any, ...]], object]
Outputs = tuple[object, ...]

#: relative tolerance of a float result, by dtype
#: (float16 as polyopt opt --verify has it: with 1e-9, every reassociated float16
#: reduction was "wrong", and discarded with a warning)
RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2}


def fresh(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments with every array copied (C-contiguous, as the user's are)."""
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def run(call: Call, args: tuple[Any, ...]) -> tuple[Outputs, float]:
    """One call on fresh copies of ``args``: the outputs, and the seconds it took (the
    copies made before the clock starts)."""
    mine = fresh(args)
    start = time.perf_counter()
    returned = call(mine)
    seconds = time.perf_counter() - start
    return (*(a for a in mine if isinstance(a, np.ndarray)), returned), seconds


def difference(expected: Outputs, got: Outputs, names: Sequence[str]) -> str | None:
    """Where ``got`` differs from ``expected`` (None when they agree); ``names`` names
    the outputs (the array arguments, then the returned value)."""
    for name, a, b in zip(names, expected, got, strict=True):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"{name}: {y.dtype}{list(y.shape)} instead of {x.dtype}{list(x.shape)}"
        if x.dtype.kind == "f":
            rtol = RTOL.get(x.dtype, 1e-9)
            scale = float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0))
            bad = ~np.isclose(y, x, rtol=rtol, atol=rtol * scale, equal_nan=True)
        else:
            bad = x != y
        if np.any(bad):
            where = tuple(int(i) for i in np.argwhere(bad)[0]) if x.ndim else ()
            return (f"{name}{list(where) if where else ''} is {y[where]!r}, the untuned "
                    f"kernel's {x[where]!r} ({int(np.count_nonzero(bad))} elements differ)")
    return None


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))
