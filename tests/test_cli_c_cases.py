"""Minimized C programs that a hostile user found ``polyopt opt`` getting wrong (each
file's first line says what it checks), run as users build them: the optimized program
prints what the original prints, with OpenMP on one and three threads, without OpenMP,
and under AddressSanitizer and UndefinedBehaviorSanitizer.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_cli import CC
from test_cli_private_arrays import _optimized, every_build_agrees

CASES = sorted((Path(__file__).resolve().parent / "c_cases").glob("*.c"))
# found and not fixed yet: each must still fail (strict xfail), so that a fix moves it up
OPEN = sorted((Path(__file__).resolve().parent / "c_cases" / "open").glob("*.c"))


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case_gives_the_original_output(tmp_path: Path, case: Path) -> None:
    text = case.read_text()
    # a case may name more options on a line of its own: `polyopt options: --tile-sizes 100`
    extra = re.search(r"^polyopt options: (.*)$", text, re.MULTILINE)
    src, _ = _optimized(tmp_path, case.stem, text, *(extra.group(1).split() if extra else ()))
    every_build_agrees(tmp_path, src, tmp_path / f"{case.stem}.opt.c")


@pytest.mark.xfail(strict=True, reason="open: found, not fixed yet")
@pytest.mark.parametrize("case", OPEN, ids=[c.stem for c in OPEN])
def test_open_case_still_differs(tmp_path: Path, case: Path) -> None:
    test_case_gives_the_original_output(tmp_path, case)
