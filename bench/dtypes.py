"""Narrow dtypes against NumPy: kernels on uint8, int16, bool and float16 arrays, each
timed beside the NumPy expression that computes the same result, in interleaved rounds
(so a loaded machine slows both alike and the ratio holds), the median of the rounds.

    python -m bench.dtypes [--n 2000000] [--repeat 5]

Prints one line per kernel: polyopt's and NumPy's median seconds and NumPy / polyopt.
The results are also checked equal before timing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import polyopt
from bench.timing import run_interleaved, time_call


def blend_u8(a, b, out):  # type: ignore[no-untyped-def]
    for i in range(a.shape[0]):
        out[i] = a[i] // 2 + b[i] // 2


def stencil_i16(a, out):  # type: ignore[no-untyped-def]
    for i in range(1, a.shape[0] - 1):
        out[i] = a[i - 1] - 2 * a[i] + a[i + 1]


def count_mask(x, mask):  # type: ignore[no-untyped-def]
    n = 0
    for i in range(x.shape[0]):
        mask[i] = x[i] > 0.5
        n += mask[i]
    return n


def axpy_f16(a, x, y):  # type: ignore[no-untyped-def]
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@dataclass(frozen=True)
class Case:
    name: str
    kernel: Callable[..., Any]
    numpy: Callable[..., Any]  # the NumPy expression, on the same arguments
    args: Callable[[int], tuple[Any, ...]]


def _cases() -> list[Case]:
    rng = np.random.default_rng(0)
    return [
        Case("blend uint8", blend_u8, lambda a, b, out: np.add(a // 2, b // 2, out=out),
             lambda n: (rng.integers(0, 256, n, dtype=np.uint8),
                        rng.integers(0, 256, n, dtype=np.uint8), np.zeros(n, np.uint8))),
        Case("stencil int16", stencil_i16,
             lambda a, out: np.subtract(a[:-2] + a[2:], 2 * a[1:-1], out=out[1:-1]),
             lambda n: (rng.integers(-1000, 1000, n, dtype=np.int16), np.zeros(n, np.int16))),
        Case("mask bool", count_mask,
             lambda x, mask: np.count_nonzero(np.greater(x, 0.5, out=mask)),
             lambda n: (rng.random(n), np.zeros(n, bool))),
        Case("axpy float16", axpy_f16, lambda a, x, y: np.add(a * x, y, out=y),
             lambda n: (np.float16(0.5), rng.random(n).astype(np.float16),
                        np.zeros(n, np.float16))),
    ]


def _copies(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def measure(n: int, repeat: int) -> list[tuple[str, float | None, float | None]]:
    """(kernel, polyopt's median seconds, NumPy's) for each case."""
    out = []
    for case in _cases():
        args = case.args(n)
        kernel = polyopt.jit(case.kernel)
        mine, theirs = _copies(args), _copies(args)
        got, want = kernel(*mine), case.numpy(*theirs)
        for x, y in zip(mine, theirs, strict=True):
            if isinstance(x, np.ndarray):
                np.testing.assert_allclose(x.astype(float), y.astype(float), rtol=1e-3)
        if case.name == "mask bool":
            assert got == want, (got, want)
        a, b = _copies(args), _copies(args)
        ours, numpy_expr = kernel, case.numpy
        timings = run_interleaved({
            "polyopt": lambda: time_call(lambda: ours(*a)),  # noqa: B023 - run here, in this iteration
            "numpy": lambda: time_call(lambda: numpy_expr(*b)),  # noqa: B023
        }, repeat)
        out.append((case.name, timings.median("polyopt"), timings.median("numpy")))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.dtypes", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=2_000_000, help="elements per array")
    p.add_argument("--repeat", type=int, default=5, help="timed rounds (median)")
    args = p.parse_args(argv)
    print(f"{'kernel':16} {'polyopt s':>11} {'numpy s':>11} {'numpy/polyopt':>14}")
    for name, mine, theirs in measure(args.n, args.repeat):
        ratio = f"{theirs / mine:.2f}" if mine and theirs else "-"
        print(f"{name:16} {mine or float('nan'):11.5f} {theirs or float('nan'):11.5f} {ratio:>14}")


if __name__ == "__main__":
    main()
