"""A deeply nested C expression (hostile session 42b, finding 04): a written-out
250-term sum failed with "internal error: RecursionError" in pycparser's parser and
generator.  The command runs with room for deep recursion, and past it says so."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from polyopt.cli import command as cli
from polyopt.model import deep

_MAIN = "int main(void) {{ for (int i = 0; i < {size}; i++) A[i] = (i % 7) * 0.5; f(); " \
        'for (int i = 0; i < 16; i++) printf("%a\\n", B[i]); return 0; }}\n'


def _sum(path: Path, terms: int) -> Path:
    total = " + ".join(f"A[i + {k}]" for k in range(terms))
    path.write_text(f"#include <stdio.h>\ndouble A[{terms + 16}], B[16];\nvoid f(void) {{\n"
                    f"#pragma scop\n  for (int i = 0; i < 16; i++)\n    B[i] = {total};\n"
                    "#pragma endscop\n}\n" + _MAIN.format(size=terms + 16))
    return path


def _run(c: Path, exe: Path, *flags: str) -> str:
    subprocess.run(["gcc", *flags, str(c), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def test_a_long_sum_is_optimized_and_computes_the_same(tmp_path: Path, capsys) -> None:
    src = _sum(tmp_path / "sum.c", 400)
    out = tmp_path / "sum.opt.c"
    assert cli.main(["opt", str(src), "-o", str(out)]) == 0
    assert cli.main(["deps", str(src)]) == 0
    capsys.readouterr()
    assert _run(out, tmp_path / "opt", "-O2") == _run(src, tmp_path / "orig", "-O0")


def test_past_the_recursion_room_the_error_says_so(tmp_path: Path, capsys,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deep, "RECURSION_LIMIT", 1000)
    assert cli.main(["opt", str(_sum(tmp_path / "sum.c", 400)), "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "internal error" not in err
