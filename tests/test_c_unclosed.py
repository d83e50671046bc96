"""A C file that ends inside a function is a syntax error at its last line, with a
caret: it was "polyopt: error: k.c: cannot parse the file: k.c: At end of input",
with no line (pycparser has no token left to point at)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyopt.cli import command as cli


@pytest.mark.parametrize("source,line", [
    ("void f(int n, double *x) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
     "    x[i] = 1;\n\n\n", 4),
    ("void f(int n, double *x) {\n  for (int i = 0; i < n; i++) {\n    x[i] = 1;\n}\n", 4),
])
def test_a_file_ending_inside_a_function_points_at_its_end(tmp_path: Path, capsys, source,
                                                            line) -> None:
    src = tmp_path / "unclosed.c"
    src.write_text(source)
    assert cli.main(["opt", str(src), "-o", str(tmp_path / "out.c")]) == 1
    err = capsys.readouterr().err
    assert f"unclosed.c:{line}:" in err and "a `}` missing?" in err and "^" in err
    assert "At end of input" not in err and not (tmp_path / "out.c").exists()
