"""``polyopt opt``'s output compiled with other ``-D`` sizes than it was written for.

The C written is right for any value of a size the region reads as a variable
(``_PB_N`` standing for ``n``): helpers take array extents from the arrays' types, and
temporaries are sized by the loops' bounds, not by the declared extents (macro values
at ``opt`` time).  A macro the region itself names (``t <= TSTEPS``) is written as its
value; the output then refuses, with ``#error``, a build where it has another one.

Differential: the original and the output compiled with the same flags print the
same, or the output does not compile and the error names the macro.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_cli import CC, ROOT, _numbers_match, polyopt

STEPS = r"""
#include <stdio.h>
#ifndef N
# define N 40
#endif
#ifndef TSTEPS
# define TSTEPS 6
#endif
#define _PB_N n
static double A[N], B[N];
static void kernel(int n) {
  int t, i;
#pragma scop
  for (t = 1; t <= TSTEPS; t++) {          /* TSTEPS: a value in the C written */
    for (i = 1; i < _PB_N - 1; i++)        /* _PB_N: the variable n */
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = B[i] + __LINE__ * 0.0;
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) A[i] = (i * 7 % 11) / 11.0;
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++) s += A[i] * (i % 5 + 1);
  printf("%.12e\n", s);
  return 0;
}
"""


@pytest.fixture(autouse=True)
def _compiler() -> None:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler ({CC})")


def _build(tmp_path: Path, src: Path, flags: list[str]) -> subprocess.CompletedProcess[str]:
    exe = tmp_path / f"{src.stem}.exe"
    cc = subprocess.run([CC, "-O2", "-fopenmp", *flags, "-o", str(exe), str(src), "-lm"],
                        capture_output=True, text=True, check=False)
    if cc.returncode != 0:
        return cc
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False)


def _optimized(tmp_path: Path, source: str, *options: str) -> tuple[Path, Path]:
    src = tmp_path / "steps.c"
    src.write_text(source)
    out = tmp_path / "steps.opt.c"
    proc = polyopt("opt", str(src), "-o", str(out), *options)
    assert proc.returncode == 0, proc.stderr
    return src, out


def _checked(tmp_path: Path, source: str, flag: str) -> str:
    """The output of ``source``: built as it is, it prints what the original prints;
    built with ``flag`` (``-DOFF=3``), it does not compile and names the macro.  Its
    text, returned."""
    src, out = _optimized(tmp_path, source)
    same = _build(tmp_path, out, [])
    assert same.returncode == 0, same.stderr
    assert _numbers_match(_build(tmp_path, src, []).stdout, same.stdout)
    other = _build(tmp_path, out, [flag])
    assert other.returncode != 0 and flag.split("=")[0] + "=" in other.stderr, other.stderr
    return out.read_text()


def test_a_macro_the_region_names_is_checked_when_the_output_is_compiled(
        tmp_path: Path) -> None:
    src, out = _optimized(tmp_path, STEPS)
    text = out.read_text()
    assert "#if (TSTEPS) != (6)" in text
    # n is a variable in the C written; N and __LINE__ are not named by a bound
    assert re.findall(r"^#if \((\w+)\)", text, re.M) == ["TSTEPS"]
    same = _build(tmp_path, out, ["-DN=57"])
    assert same.returncode == 0, same.stderr
    assert _numbers_match(_build(tmp_path, src, ["-DN=57"]).stdout, same.stdout)
    other = _build(tmp_path, out, ["-DTSTEPS=9"])
    assert other.returncode != 0
    assert "wrote kernel() region 1 (lines 13-20) for TSTEPS = 6" in other.stderr
    assert "-DTSTEPS=" in other.stderr


def test_the_check_holds_the_value_given_to_polyopt_opt(tmp_path: Path) -> None:
    src, out = _optimized(tmp_path, STEPS, "-DTSTEPS=9")
    assert "#if (TSTEPS) != (9)" in out.read_text()
    ran = _build(tmp_path, out, ["-DTSTEPS=9"])
    assert ran.returncode == 0, ran.stderr
    assert _numbers_match(_build(tmp_path, src, ["-DTSTEPS=9"]).stdout, ran.stdout)


def test_a_macro_from_a_local_header_is_checked(tmp_path: Path) -> None:
    (tmp_path / "sizes.h").write_text("#define TSTEPS (2 << 1)\n")
    source = STEPS.replace("#ifndef TSTEPS\n# define TSTEPS 6\n#endif", '#include "sizes.h"')
    _, out = _optimized(tmp_path, source)
    assert "#if (TSTEPS) != ((2 << 1))" in out.read_text()


@pytest.mark.parametrize("sizes", [(7, 9, 11), (33, 29, 41)])
def test_doitgen_compiled_with_other_sizes_gives_the_original_output(
        tmp_path: Path, sizes: tuple[int, int, int]) -> None:
    """doitgen's ``sum`` is expanded to a row per ``q`` (``sum_x``): its rows are as
    long as the loop over ``p`` (``np``), not the declared ``sum[NP]`` (30 at ``opt``
    time: a larger -DNP wrote past them)."""
    text = (ROOT / "examples" / "c" / "doitgen.c").read_text()
    for name in ("NQ", "NR", "NP"):
        line = next(x for x in text.splitlines() if x.startswith(f"#define {name} "))
        text = text.replace(line, f"#ifndef {name}\n{line}\n#endif")
    src, out = tmp_path / "doitgen.c", tmp_path / "doitgen.opt.c"
    src.write_text(text)
    proc = polyopt("opt", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "sum_x" in out.read_text() and "#error" not in out.read_text()
    flags = [f"-D{m}={v}" for m, v in zip(("NQ", "NR", "NP"), sizes, strict=True)]
    original, optimized = _build(tmp_path, src, flags), _build(tmp_path, out, flags)
    assert optimized.returncode == 0, optimized.stderr
    assert original.stdout.strip() and _numbers_match(original.stdout, optimized.stdout)


def test_a_float_macro_the_region_names_is_checked_by_a_static_assertion(
        tmp_path: Path) -> None:
    """``#if`` cannot compare floats, and ``SCALE`` reaches the C written as ``0.5``: a
    build with ``-DSCALE=0.7`` would have computed with 0.5, silently.  A static
    assertion stops it; the value polyopt saw compiles, under -pedantic -Werror too."""
    source = STEPS.replace("#define _PB_N n", "#ifndef SCALE\n# define SCALE 0.5\n#endif\n"
                           "#define WEIGHT (1.0 / 3)\n#define _PB_N n").replace(
        "B[i] = 0.33333 *", "B[i] = SCALE * WEIGHT *")
    src, out = _optimized(tmp_path, source)
    text = out.read_text()
    assert "_Static_assert((SCALE) == (0.5)" in text
    assert "_Static_assert((WEIGHT) == ((1.0 / 3))" in text
    for flags in ([], ["-std=c99", "-pedantic", "-Werror", "-Wall"]):
        same = _build(tmp_path, out, flags)
        assert same.returncode == 0, same.stderr
        assert _numbers_match(_build(tmp_path, src, []).stdout, same.stdout)
    other = _build(tmp_path, out, ["-DSCALE=0.7"])
    assert other.returncode != 0
    assert "for SCALE = 0.5" in other.stderr and "-DSCALE=" in other.stderr
    again = _optimized(tmp_path, source, "-DSCALE=0.7")[1]
    ran = _build(tmp_path, again, ["-DSCALE=0.7"])
    assert ran.returncode == 0, ran.stderr
    assert _numbers_match(_build(tmp_path, src, ["-DSCALE=0.7"]).stdout, ran.stdout)


KINDS = r"""
#include <stdio.h>
#ifndef K
# define K 3
#endif
#ifndef TINY
# define TINY 0x1p-3
#endif
#ifndef CH
# define CH 'a'
#endif
static double B[16];
static void kernel(void) {
  int i;
#pragma scop
  for (i = 0; i < 12; i++)
    B[i] = (i - K) * 1.0 + TINY * i + CH;
#pragma endscop
}
int main(void) {
  kernel();
  for (int i = 0; i < 12; i++) printf("%.17g\n", B[i]);
  return 0;
}
"""


@pytest.mark.parametrize("flag", ["-DK=3u", "-DTINY=0.5", "-DCH='b'"])
def test_a_macro_of_another_type_or_spelling_is_refused(tmp_path: Path, flag: str) -> None:
    """Helper session 39b, findings 04 and 06: `-DK=3u` passed `#if (K) != (3)`, though
    the original computes `i - K` unsigned; a hex float (`0x1p-3`) and a character
    constant (`'a'`) were written as values with no check at all."""
    src, out = _optimized(tmp_path, KINDS)
    same = _build(tmp_path, out, [])
    assert same.returncode == 0, same.stderr
    assert _numbers_match(_build(tmp_path, src, []).stdout, same.stdout)
    name = flag[2:flag.index("=")]
    other = _build(tmp_path, out, [flag])
    assert other.returncode != 0 and f"-D{name}=" in other.stderr, other.stderr


LOCAL = STEPS.replace("static void kernel(int n) {\n  int t, i;\n",
                      "static void kernel(int n) {\n  int t, i;\n#ifndef SCALE\n"
                      "# define SCALE 0.25\n#endif\n#define STEPS2 (TSTEPS - 2)\n").replace(
    "for (t = 1; t <= TSTEPS; t++)", "for (t = 1; t <= STEPS2; t++)").replace(
    "B[i] = 0.33333 *", "B[i] = SCALE *")


@pytest.mark.parametrize("flag", ["-DSCALE=0.5", "-DTSTEPS=9"])
def test_macros_defined_in_the_function_are_checked_where_the_region_is(
        tmp_path: Path, flag: str) -> None:
    """Helper session 39b, finding 05: macros defined inside the function, above the
    region, were not seen (the preprocessor was asked above the function) and went
    unchecked.  They are asked, and checked, where the region stands."""
    assert "STEPS2" in LOCAL and "SCALE *" in LOCAL
    src, out = _optimized(tmp_path, LOCAL)
    text = out.read_text()
    assert "#if (STEPS2) != ((6 - 2))" in text and "_Static_assert((SCALE) == (0.25)" in text
    assert text.index("#define STEPS2") < text.index("#if (STEPS2)")
    same = _build(tmp_path, out, [])
    assert same.returncode == 0, same.stderr
    assert _numbers_match(_build(tmp_path, src, []).stdout, same.stdout)
    other = _build(tmp_path, out, [flag])
    assert other.returncode != 0, other.stderr


THROUGH = r"""
#include <stdio.h>
#ifndef OFF
# define OFF 2
#endif
#define AT(a, i) a[(i) + OFF]
#define TWICE(a, i) (AT(a, i) + AT(a, i))
static double B[16], C[16];
static void kernel(void) {
  int i;
#pragma scop
  for (i = 0; i < 12; i++)
    C[i] = TWICE(B, i) + 1.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 16; i++) B[i] = i;
  kernel();
  for (int i = 0; i < 12; i++) printf("%g\n", C[i]);
  return 0;
}
"""


def test_a_macro_reached_through_function_like_macros_is_checked(tmp_path: Path) -> None:
    """Helper session 39b, finding 03: `OFF`, named only in the body of `AT`, which
    `TWICE` calls, was written as its value unchecked; -DOFF=3 then gave OFF = 2's
    result."""
    assert "#if (OFF) != (2)" in _checked(tmp_path, THROUGH, "-DOFF=3")


INSIDE_A_MACRO = r"""
#include <stdio.h>
#ifndef OFF
#define OFF 2
#endif
#ifndef N
#define N ((int)20)
#endif
#ifndef ALPHA
#define ALPHA ((double)1.5)
#endif
#define LIM (n - OFF)
#define ROW (__LINE__ - 17)
int A[100];
double D[100];
static void k(int n) {
#pragma scop
  for (int i = 1; i < LIM; i++) A[i + ROW] = A[i - 1] + i;
  for (int i = 1; i < N; i++) A[i] += A[i - 1];
  for (int i = 0; i < N; i++) D[i] = D[i] * ALPHA + i;
#pragma endscop
}
int main(void) { k(20); printf("%d %d %g\n", A[15], A[19], D[19]); return 0; }
"""


@pytest.mark.parametrize("flag", [
    "-DOFF=8",  # named only in LIM's body, a non-constant macro
    "-DN=50",  # a value with a cast, which #if cannot evaluate
    "-DALPHA=0.75",  # PolyBench's ((DATA_TYPE)1.5): a float with a cast
])
def test_macros_inside_other_macros_and_with_casts_are_checked(tmp_path: Path, flag: str) -> None:
    """Hostile session 41b, findings 05 and 06: `OFF` in the body of `LIM = (n - OFF)`
    and `N = ((int)20)` were written as their values unchecked, and a -D build of the
    output silently gave the old sizes' results; so was `ALPHA = ((double)1.5)`
    (session 41c, finding 03).  ``ROW`` names ``__LINE__``, which has
    no one value: it is not checked (its check would always fail, finding 09)."""
    text = _checked(tmp_path, INSIDE_A_MACRO, flag)
    assert "#if (OFF) != (2)" in text and "_Static_assert((N) == (((int)20))" in text
    assert "_Static_assert((ALPHA) == (((double)1.5))" in text
    assert "ROW" not in text.split("/* polyopt")[0].split("#define ROW")[1].split("\n", 1)[1]


@pytest.mark.parametrize("directive", ["#undef N\n#define N 30", "#ifdef TWICE\n#endif"])
def test_a_directive_inside_the_region_is_refused(tmp_path: Path, directive: str) -> None:
    """Hostile session 41b, findings 01 and 02: the region's C was written without its
    `#define` (the code after the region saw the old macro) or with the `#ifdef` branch
    of opt's own run (a -DTWICE build of the output ignored it)."""
    source = STEPS.replace("      A[i] = B[i] + __LINE__ * 0.0;",
                           "      A[i] = B[i] + __LINE__ * 0.0;\n" + directive)
    src = tmp_path / "steps.c"
    src.write_text(source)
    proc = polyopt("opt", str(src), "-o", str(tmp_path / "out.c"))
    first = directive.split()[0]
    assert proc.returncode != 0 and not (tmp_path / "out.c").exists()
    assert f"steps.c:19:1: error: `{first}`: a preprocessor directive inside a `#pragma " \
        "scop` region" in proc.stderr, proc.stderr


TYPE_MACRO = r"""
#include <stdio.h>
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
double A[10], B[10];
static void k(void) {
  int i;
#pragma scop
  for (i = 0; i < 10; i++) {
    DATA_TYPE t = A[i] / 3;
    B[i] = t * 3 - A[i];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 10; i++) A[i] = 1.0 / (i + 7);
  k();
  for (int i = 0; i < 10; i++) printf("%.17g\n", B[i] * 1e20);
  return 0;
}
"""


def test_a_type_macro_is_checked(tmp_path: Path) -> None:
    """Hostile session 41c, finding 04: `#define DATA_TYPE float` (PolyBench's
    -DDATA_TYPE_IS_DOUBLE style) was written as `float` unchecked, and a
    -DDATA_TYPE=double build of the output computed in float."""
    text = _checked(tmp_path, TYPE_MACRO, "-DDATA_TYPE=double")
    assert "__builtin_types_compatible_p(DATA_TYPE, float)" in text
