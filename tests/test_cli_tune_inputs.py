"""``polyopt tune`` refuses a ``--size`` whose random inputs cannot be made, and a NaN
budget, with a one-line error: they were "internal error: MemoryError" (a 2-D
``--size 100000``), "internal error: ValueError: Maximum allowed dimension exceeded",
an OverflowError for an int32 argument, or the out-of-memory killer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from polyopt.cli import command as cli

KERNELS = textwrap.dedent("""\
    import polyopt

    @polyopt.jit
    def scale(A, b):
        for i in range(A.shape[0]):
            for j in range(A.shape[1]):
                A[i, j] *= b

    @polyopt.jit
    def count(n):
        s = 0
        for i in range(n):
            s += i
        return s
    """)


def _tune(tmp_path: Path, *args: str) -> int:
    src = tmp_path / "kern.py"
    src.write_text(KERNELS)
    return cli.main(["tune", str(src), "-o", str(tmp_path / "out.json"), *args])


@pytest.mark.parametrize("function,signature,size,match", [
    ("scale", "f8[:, :], f8", "100000", "GiB, more than half"),
    ("scale", "f8[:, :], f8", "99999999999999999999", "GiB, more than half"),
    ("count", "i4", "3000000000", "cannot make the random inputs"),
])
def test_too_large_a_size_is_a_clear_error(tmp_path, capsys, function, signature, size, match):
    assert _tune(tmp_path, "--function", function, "--signature", signature,
                 "--size", size, "--budget", "1") == 1
    err = capsys.readouterr().err
    assert match in err and f"--size {size}" in err and "internal error" not in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("budget", ["nan", "0", "-2"])
def test_a_budget_that_is_not_a_positive_number_is_refused(tmp_path, capsys, budget):
    assert _tune(tmp_path, "--function", "count", "--signature", "i8", "--size", "4",
                 "--budget", budget) == 2
    err = capsys.readouterr().err
    assert "--budget must be positive" in err and "internal error" not in err


@pytest.mark.parametrize("signature,noted", [("f8[:, :], f8", True), ("f8[:, :], float", False)])
def test_numpy_scalars_in_the_signature_are_noted(tmp_path, capsys, signature, noted):
    """Hostile session 36, finding 09: the README's `--signature "float64, float64, ..."`
    stored the choice for NumPy scalars, and its own `gemm(1.5, 1.2, C, A, B)` call
    compiled the default silently.  The command notes which arguments are NumPy's."""
    assert _tune(tmp_path, "--function", "scale", "--signature", signature, "--size", "8",
                 "--budget", "0.5") == 0
    err = capsys.readouterr().err
    assert ("b is typed as NumPy scalars here" in err) is noted, err


@pytest.mark.parametrize("extra", [(), ("--signature", "i8")])
def test_a_c_file_is_told_that_tune_takes_python(tmp_path, capsys, extra):
    """Hostile session 47b, finding 04: a C file was sent between "--signature applies to
    Python files only" and argparse's "--signature is required"."""
    src = tmp_path / "k.c"
    src.write_text("void k(int n, double a[n]) {\n#pragma scop\n"
                   "for (int i = 0; i < n; i++) a[i] = 0;\n#pragma endscop\n}\n")
    assert cli.main(["tune", str(src), *extra]) == 2
    err = capsys.readouterr().err
    assert "polyopt tune takes a Python file" in err and "--signature" not in err, err


def test_a_missing_signature_is_named(tmp_path, capsys):
    assert _tune(tmp_path, "--function", "count") == 2
    assert "polyopt tune needs --signature" in capsys.readouterr().err
