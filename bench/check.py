"""Is a variant's result the right one?  Compare outputs with a reference.

The tolerances are looser than the test suite's (which compares polyopt with
CPython at MINI and SMALL) because here BLAS, Numba and larger datasets take
part: a legal reassociation of a long sum moves a result by many ulps.  They
still catch what a broken schedule does (a race, a skipped iteration, a wrong
order), which moves results by O(1):

- float64: ``|a - e| <= 1e-6 |e| + 1e-9 max|e|``
- float32: ``|a - e| <= 1e-3 |e| + 1e-4 max|e|``
- integers: exact.

NaNs must be in the same places (PolyBench's degenerate inputs produce some).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

_TOL = {np.dtype(np.float64): (1e-6, 1e-9), np.dtype(np.float32): (1e-3, 1e-4)}


def mismatch(expected: np.ndarray, actual: np.ndarray) -> str | None:
    """None when ``actual`` matches ``expected``, else what is wrong."""
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != {expected.dtype}"
    if np.issubdtype(expected.dtype, np.integer):
        bad = int(np.count_nonzero(actual != expected))
        return None if bad == 0 else f"{bad} of {expected.size} elements differ"
    rtol, atol = _TOL.get(expected.dtype, (1e-6, 1e-9))
    nan_e, nan_a = np.isnan(expected), np.isnan(actual)
    if not np.array_equal(nan_e, nan_a):
        return "NaN in different places"
    finite = ~nan_e
    e, a = expected[finite], actual[finite]
    if e.size == 0:
        return None
    scale = float(np.max(np.abs(e[np.isfinite(e)]), initial=0.0))
    err = np.abs(a.astype(np.float64) - e)
    limit = rtol * np.abs(e) + atol * max(scale, 1.0)
    with np.errstate(invalid="ignore"):
        bad = ~((err <= limit) | (a == e))
    if not bad.any():
        return None
    worst = float(np.max(np.where(bad, err, 0.0)))
    return f"{int(bad.sum())} of {e.size} elements differ (worst abs error {worst:.3g})"


def compare(expected: Mapping[str, np.ndarray], actual: Mapping[str, np.ndarray]) -> str | None:
    """None when every output matches, else a one-line account of the first mismatch."""
    for name, e in expected.items():
        if name not in actual:
            return f"{name}: missing"
        why = mismatch(np.asarray(e), np.asarray(actual[name]))
        if why is not None:
            return f"{name}: {why}"
    return None


def save(path: Path, outputs: Mapping[str, np.ndarray]) -> None:
    """Store a reference result (``.npz``)."""
    np.savez(path, **{f"o{k}": v for k, v in enumerate(outputs.values())},
             names=np.array(list(outputs)))


def load(path: Path) -> dict[str, np.ndarray]:
    """Load a reference result stored by :func:`save`."""
    with np.load(path) as z:
        names = [str(n) for n in z["names"]]
        return {n: z[f"o{k}"] for k, n in enumerate(names)}
