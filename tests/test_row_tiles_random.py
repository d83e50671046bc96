"""Random triangular matmul-like nests against CPython, bit for bit.

The register tiles of :mod:`polyopt.scheduler.register_tiling` split a statement whose
reduction range depends on its row (``for k in range(i + 1, m)``) into full tiles, their
diagonal and a ragged rest, and pick a loop order among several; each choice must be
proven legal.  The hand-written kernels of ``test_row_tiles.py`` hold the shapes we
thought of; these programs draw the rest: the ``k`` range's form (above, below or
around the row, into a separate array or in place), the operands' layouts, the sign
of the update, a scaling after it, the rows' direction, the dtype and the options.
Each is run under ``strict_fp`` at sizes with ragged tiles and compared with CPython
exactly; the plans must include diagonal splits, or the test would test nothing.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.model.options import Options
from polyopt.scheduler.pipeline import plan

PROGRAMS = 14
K_RANGES = ("i + 1, m", "i, m", "0, i", "0, i + 1", "i + 1, p", "max(0, i - 2), i",
            "i, min(m, i + 5)", "i // 2, m")
OPTIONS: tuple[dict[str, Any], ...] = (
    {}, {"tile": False}, {"unroll_jam": (2, 3)}, {"unroll_jam": (4, 8)},
    {"tile": (8, 16, 8)}, {"parallel": False}, {"tile": (5, 7, 9), "unroll_jam": (2, 2)})
SIZES = ((1, 1), (3, 5), (9, 17), (26, 33))


def _source(r: random.Random) -> tuple[str, bool, str]:
    """A kernel's text, whether it updates ``B`` in place, and its right operand."""
    in_place = r.random() < 0.6
    right = "B[k, j]" if in_place else r.choice(("B[k, j]", "B[j, k]"))
    target = "B[i, j]" if in_place else "C[i, j]"
    rows = "range(m - 1, -1, -1)" if r.random() < 0.15 else "range(m)"
    body = (f"            for k in range({r.choice(K_RANGES)}):\n"
            f"                {target} {r.choice(('+=', '-='))} "
            f"{r.choice(('A[k, i]', 'A[i, k]'))} * {right}\n")
    if r.random() < 0.5:
        body += f"            {target} = alpha * {target}\n"
    params = "alpha, A, B" + ("" if in_place else ", C")
    text = (f"def kernel({params}):\n    m = A.shape[0]\n    p = A.shape[1]\n    n = B.shape[1]\n"
            f"    for i in {rows}:\n        for j in range(n):\n{body}")
    return text, in_place, right


def _module(path: Path, text: str) -> ModuleType:
    path.write_text("import numpy as np\n\n\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _args(rng: np.random.Generator, dtype: type, m: int, n: int, in_place: bool,
          right: str) -> list[Any]:
    p = m + 3
    side = max(n, p)
    b = rng.random((side, side) if right == "B[j, k]" else (p, n)) - 0.5
    args: list[Any] = [dtype(1.25), (rng.random((m, p)) - 0.5).astype(dtype), b.astype(dtype)]
    if not in_place:
        args.append((rng.random((m, b.shape[1])) - 0.5).astype(dtype))
    return args


def _has_diagonal(fn: Any, kernel: Any, args: list[Any], options: dict[str, Any]) -> bool:
    scop = parse_function(fn, kernel._sig_for(tuple(args), {}))
    names = {s.name for s in plan(scop, Options(strict_fp=True, **options)).scop.statements}
    return any(n.endswith("d") and n[:-1] + "f" in names for n in names)


def test_random_triangular_nests_match_python_bit_for_bit(tmp_path):
    r = random.Random(20261127)
    diagonal = 0
    for t in range(PROGRAMS):
        text, in_place, right = _source(r)
        options = r.choice(OPTIONS)
        dtype = r.choice((np.float64, np.float32))
        mod = _module(tmp_path / f"tri{t}.py", text)
        kernel = polyopt.jit(mod.kernel, strict_fp=True, **options)
        rng = np.random.default_rng(t)
        diagonal += _has_diagonal(mod.kernel, kernel, _args(rng, dtype, 26, 33, in_place, right),
                                  options)
        for m, n in SIZES:
            args = _args(rng, dtype, m, n, in_place, right)
            expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            try:
                mod.kernel(*expected)
            except IndexError:  # A[k, i] with k past A's rows: refused before C runs
                with pytest.raises(IndexError):
                    kernel(*args)
                continue
            kernel(*args)
            for want, got in zip(expected, args, strict=True):
                if isinstance(want, np.ndarray):
                    assert np.array_equal(want, got), (options, dtype, (m, n), text)
    assert diagonal >= 3, diagonal


@pytest.mark.parametrize("k_range", ["i + 1, m", "i, m"])
def test_diagonal_tiles_at_every_row_count_match_python(tmp_path, k_range):
    """Row counts around the tile height: no full tile, exactly one, one and a ragged row."""
    text = ("def kernel(alpha, A, B):\n    m = A.shape[0]\n    n = B.shape[1]\n"
            f"    for i in range(m):\n        for j in range(n):\n"
            f"            for k in range({k_range}):\n"
            "                B[i, j] += A[k, i] * B[k, j]\n")
    mod = _module(tmp_path / "rows.py", text)
    kernel = polyopt.jit(mod.kernel, strict_fp=True, unroll_jam=(4, 8))
    rng = np.random.default_rng(0)
    for m in range(1, 11):
        args = [1.0, rng.random((m, m)), rng.random((m, 19))]
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        mod.kernel(*expected)
        kernel(*args)
        assert np.array_equal(expected[2], args[2]), (k_range, m)
