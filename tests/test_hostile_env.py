"""What a hostile or careless user tries against the signatures, the tuner, the cache,
the environment and the command line with Python input (issue 13, section 3, fourth
round): each case gives the right answer or a clear error, never a traceback, a
crash of the interpreter or a silently ignored setting."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import polyopt
from polyopt.cli import command as cli
from polyopt.model.signature import parse_declared


def scale(x, k):
    for i in range(x.shape[0]):
        x[i] = x[i] * k


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(textwrap.dedent(text))
    else:
        path.write_bytes(text)
    return path


# --- a bool scalar in a signature -------------------------------------------------------
# A call refuses a bool scalar ("pass an int"), so a declared b1 compiled a specialization
# no call could reach, and `polyopt opt --signature "b1, f8"` made its sample argument
# np.bool_(1) and ended in "internal error: TypeError".

@pytest.mark.parametrize("text", ["b1, f8", "f8(f8[:], bool_)", "void(boolean)"])
def test_bool_scalar_in_a_signature_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="a bool scalar argument is not supported"):
        parse_declared(text)


def test_bool_arrays_and_bool_return_still_read() -> None:
    assert str(parse_declared("b1(b1[:], i8)")) == "bool(bool[:], int64)"


def test_jit_and_compile_refuse_a_bool_scalar() -> None:
    with pytest.raises(ValueError, match="bool scalar"):
        polyopt.jit("void(f8[:], b1)")(scale)
    with pytest.raises(ValueError, match="bool scalar"):
        polyopt.jit(scale).compile("f8[:], b1")


def test_cli_bool_scalar_signature_is_an_input_error(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "k.py", """
        import polyopt
        @polyopt.jit
        def mul(a, b):
            return a * b
        """)
    for cmd in ("opt", "deps"):
        assert cli.main([cmd, str(path), "--signature", "b1, f8", "-o", "-"]) == 1
        err = capsys.readouterr().err
        assert "a bool scalar argument is not supported" in err
        assert "internal error" not in err
