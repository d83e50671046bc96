"""The C frontend's narrow types: ``_Bool``/``bool``, ``char`` ... ``unsigned long``,
``int8_t`` ... ``uint64_t`` and ``_Float16`` declarations become the matching dtypes,
their values compute as C computes them (the integer promotions, unsigned wins at equal
width), and the optimized region agrees with the original compiled at -O0
(``polyopt opt --verify`` runs both on random inputs).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from polyopt.frontends.c import parse_c_file
from polyopt.frontends.c_values import INT, LONG, convert_types

from polyopt.cli.command import main as cli_main
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import UnsupportedError

KERNEL = """\
#include <stdint.h>
#include <stdbool.h>
void k(int n, unsigned char A[100], signed char B[100], uint16_t C[100], unsigned D[100],
       uint64_t E[100], _Bool F[100], short G[100], _Float16 H[100], int8_t I[100],
       bool J[100], unsigned long K[100]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = A[i] + B[i] * 3;
    C[i] = C[i] * C[i] + A[i];
    D[i] = D[i] - 7;
    E[i] = E[i] * 3 + D[i];
    F[i] = A[i] > B[i];
    G[i] = G[i] * G[i] - A[i] / 3;
    H[i] = H[i] * H[i] + (_Float16)0.5f;
    I[i] = (unsigned char)(I[i] + 200);
    J[i] = F[i] && I[i] < 0;
    K[i] = K[i] - D[i] % 5;
  }
#pragma endscop
}
"""


def _write(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "k.c"
    path.write_text(textwrap.dedent(code))
    return path


def test_declarations_map_to_dtypes(tmp_path: Path) -> None:
    (region,) = parse_c_file(_write(tmp_path, KERNEL)).regions
    dtypes = {n: a.dtype.value for n, a in region.scop.arrays.items()}
    assert dtypes == {"A": "uint8", "B": "int8", "C": "uint16", "D": "uint32", "E": "uint64",
                      "F": "bool", "G": "int16", "H": "float16", "I": "int8", "J": "bool",
                      "K": "uint64"}


@pytest.mark.parametrize(("a", "b", "expected"), [
    (DType.UINT8, DType.UINT8, DType.INT32),  # the integer promotions
    (DType.BOOL, DType.INT16, DType.INT32),
    (DType.UINT32, DType.INT32, DType.UINT32),  # unsigned wins at equal width
    (DType.UINT32, DType.INT64, DType.INT64),
    (DType.UINT64, DType.INT64, DType.UINT64),
    (DType.FLOAT16, DType.INT64, DType.FLOAT16),
    (DType.FLOAT16, DType.FLOAT32, DType.FLOAT32),
])
def test_usual_arithmetic_conversions(a: DType, b: DType, expected: DType) -> None:
    assert convert_types(ValueType(a), ValueType(b)).dtype is expected
    assert convert_types(ValueType(b), ValueType(a)).dtype is expected
    assert convert_types(INT, LONG) == LONG


def test_optimized_region_agrees_with_the_original(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(tmp_path, KERNEL)
    code = cli_main(["opt", str(src), "--verify", "-o", str(tmp_path / "out.c")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert re.search(r"verify k\(\) region 1 \(lines \d+-\d+\): OK: \d+ values agree", err), err
    out = (tmp_path / "out.c").read_text()
    assert "((unsigned char)(A[c0] + (B[c0] * 3)))" in out  # C promotes to int by itself


def test_unsupported_types_still_point_at_the_declaration(tmp_path: Path) -> None:
    code = ("void f(int n, long double A[10]) {\n#pragma scop\n"
            "  for (int i = 0; i < n; i++) A[i] = 0;\n#pragma endscop\n}\n")
    with pytest.raises(UnsupportedError, match="long double"):
        parse_c_file(_write(tmp_path, code))


@pytest.mark.parametrize(("decl", "stmt"), [
    ("unsigned u;", "for (int i = 0; i < n; i++) A[i - u] = 0;"),
    ("_Bool b;", "for (int i = 0; i < n; i++) if (i < b) A[i] = 0;"),
    ("", "for (unsigned i = 0; i < n; i++) A[i] = 0;"),
])
def test_unsigned_and_bool_are_refused_in_affine_positions(tmp_path: Path, decl: str,
                                                           stmt: str) -> None:
    code = (f"void f(int n, double A[10]) {{\n  {decl}\n#pragma scop\n  {stmt}\n"
            "#pragma endscop\n}\n")
    with pytest.raises(UnsupportedError, match="signed integers|int or long variable"):
        parse_c_file(_write(tmp_path, code))
