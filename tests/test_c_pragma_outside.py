"""A ``#pragma endscop`` outside every function is named as the endscop it is: both
pragmas of a file-level region were reported as "`#pragma scop` must be inside a
function body"."""

from __future__ import annotations

from pathlib import Path

from polyopt.cli import command as cli

SOURCE = """\
#pragma scop
int x;
#pragma endscop
void f(int n, double *y) {
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
}
"""


def test_each_pragma_outside_a_function_is_named(tmp_path: Path, capsys) -> None:
    src = tmp_path / "file_level.c"
    src.write_text(SOURCE)
    assert cli.main(["opt", str(src), "-o", str(tmp_path / "out.c")]) == 1
    err = capsys.readouterr().err
    assert "file_level.c:1:1: error: `#pragma`: `#pragma scop` must be inside" in err
    assert "file_level.c:3:1: error: `#pragma`: `#pragma endscop` must be inside" in err
    assert not (tmp_path / "out.c").exists()
