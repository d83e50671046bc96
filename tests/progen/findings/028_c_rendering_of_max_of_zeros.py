"""Finding 028 (the harness): the C rendering of a float ``max`` was not one program.

Found by fuzz run S (seed 35, program 4659) under ``c_region``: one element of ``A``
differed between ``polyopt opt``'s C at ``-O3`` and the reference at ``-O0``, and so did 58
elements between the *original* C at ``-O1`` and at ``-O0``, without polyopt.  The
program computes ``s3 = max(s3, -s3)`` from ``s3 = 0.0``, then ``copysign(A[k, i, i],
s3)``.  The rendering wrote Python's ``max`` of floats as ``fmax``, which leaves the sign
of a tie of zeros unspecified: glibc's ``fmax`` (``-O0``) and gcc's builtin (``-O1`` and
up) disagree on it, and the sign decides every later ``copysign``.  Python's ``max``
returns its first operand on a tie; the rendering now spells that out (``PYFMAX``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from progen import render_c
from progen.nodes import ArrayArg, Call, Index, Num, Program, SizeDef


def _run(tmp_path: Path, flags: str) -> str:
    src = tmp_path / "zeros.c"
    src.write_text(render_c.HEADER + """
#include <stdio.h>
int main(void) {
  volatile double z = 0.0;
  double a = z, b = -z;
  printf("%g %g %g %g\\n", PYFMAX(a, b), PYFMAX(b, a), PYFMIN(a, b), PYFMIN(b, a));
  return 0;
}
""")
    exe = tmp_path / f"zeros{flags.replace(' ', '')}"
    subprocess.run(["cc", *flags.split(), str(src), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def test_the_rendering_keeps_pythons_choice_on_a_tie_of_zeros(tmp_path: Path) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    want = " ".join(f"{v:g}" for v in (max(0.0, -0.0), max(-0.0, 0.0), min(0.0, -0.0),
                                        min(-0.0, 0.0))) + "\n"
    assert _run(tmp_path, "-O0") == _run(tmp_path, "-O2") == want == "0 -0 0 -0\n"


def test_float_max_and_min_render_as_pythons() -> None:
    a0 = Index("A", (Num(0),))
    p = Program((ArrayArg("A", "float64", ("n",)),), (), {"n": 5}, (SizeDef("n", "A", 0),),
                ret=Call("max", (a0, Call("min", (a0, Num(0.5))))))
    text = render_c.c_file(p)
    assert "PYFMAX(" in text and "PYFMIN(" in text
    assert "fmax(" not in text and "fmin(" not in text
