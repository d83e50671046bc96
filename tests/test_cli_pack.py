"""``polyopt opt`` packs a matmul's operands too: the rewritten region allocates the
panels on the heap in its own block and frees them at its end.

Differential: the PolyBench/C matmul examples, optimized, compiled like the
original and run, print what the original prints, also at sizes that leave ragged
register tiles.  Structural: each panel is allocated once, checked, and freed, and
a region without a matmul allocates nothing.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_cli import CC, ROOT, _build_and_run, _numbers_match, polyopt

MATMULS = ("gemm", "2mm", "3mm")


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


@pytest.mark.parametrize("name", MATMULS)
def test_packed_region_gives_the_original_output(name: str, tmp_path: Path) -> None:
    original, optimized, problem = _build_and_run(ROOT / "examples" / "c" / f"{name}.c", tmp_path)
    assert not problem, problem
    assert original.strip() and _numbers_match(original, optimized), (original, optimized)


def test_packed_panels_live_in_the_region_block() -> None:
    proc = polyopt("opt", "examples/c/gemm.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    region = proc.stdout[proc.stdout.index("/* polyopt: optimized scop region"):]
    for panel in ("A_pk", "B_pk"):
        assert len(re.findall(rf"\(\*{panel}\)\[\d+\]\[\d+\] = __builtin_malloc\(", region)) == 1
        assert region.count(f"if (!{panel}) __builtin_abort();") == 1
        assert region.count(f"__builtin_free({panel});") == 1
    # read through the panels in the micro-kernel, written by the copies
    assert re.search(r"A_pk\[c\d+\]\[c\d+\]\[c\d+\] = \(alpha \* A\[", region)  # scaled once
    assert re.search(r"B_pk\[c\d+\]\[c\d+\]\[c\d+\] = B\[", region)
    # freed before the block closes, after the last use
    assert region.rindex("__builtin_free(A_pk)") > region.rindex("A_pk[")


def test_sizes_with_ragged_tiles_give_the_original_output(tmp_path: Path) -> None:
    """NI, NJ, NK not multiples of the register tile nor of the blocks: the panels
    cover the full tiles, the rest reads the operands."""
    src = (ROOT / "examples" / "c" / "gemm.c").read_text()
    ragged = tmp_path / "gemm_ragged.c"
    ragged.write_text(src.replace("# define NI 60", "# define NI 37")
                      .replace("# define NJ 70", "# define NJ 53")
                      .replace("# define NK 80", "# define NK 300"))
    original, optimized, problem = _build_and_run(ragged, tmp_path)
    assert not problem, problem
    assert _numbers_match(original, optimized)
    assert "__builtin_malloc" in polyopt("opt", str(ragged), "-o", "-").stdout


def test_a_region_without_a_matmul_allocates_nothing() -> None:
    proc = polyopt("opt", "examples/c/jacobi-2d.c", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert "__builtin_malloc" not in proc.stdout
