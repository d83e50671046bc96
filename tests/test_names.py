"""Identifiers isl or C cannot take as they are: isl keywords (``mod``, ``NaN``...),
non-ASCII names, C keywords and library names.  Each works as an array, a scalar, a
loop iterator and a size, in both frontends, and messages and reports keep the user's
spelling.  Differential: CPython (or the C compiled unoptimized) is the oracle."""

from __future__ import annotations

import importlib.util
import keyword
import re
import textwrap
from pathlib import Path

import islpy as isl
import numpy as np
import pytest

import polyopt
from polyopt.cli import command as cli
from polyopt.model.names import ISL_KEYWORDS, internal_name, isl_safe, scoped_name, user_text

# every word isl's lexer treats specially (several spellings: it ignores case), and names
# C or the code around a kernel reserves
NAMES = [
    *sorted(ISL_KEYWORDS), "NaN", "Infty", "MOD", "Min",
    "é", "β", "naïve",
    "malloc", "free", "memcpy", "omp_get_num_threads", "main", "exp", "sqrt", "int",
    "double", "restrict", "NULL", "INT64_MAX", "polyopt_x", "__y", "_Z",
]
PY_NAMES = [n for n in NAMES if not keyword.iskeyword(n)]  # `and`, `not`... are Python's too


def _load(tmp_path: Path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_internal_names_round_trip():
    for n in NAMES:
        internal = internal_name(n)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", internal)
        isl.Set.read_from_str(isl.DEFAULT_CONTEXT, f"[{internal}] -> {{ S[i] : 0 <= i < {internal} }}")
        assert user_text(f"{internal}[{internal} + 1]") == f"{n}[{n} + 1]"
        assert user_text(f"{internal}_shape0=3") == f"{n}_shape0=3"
        assert user_text(f"{internal}_acc", whole_names=True) == f"{internal}_acc"
    assert user_text("no internal names here") == "no internal names here"
    assert not any(isl_safe(n) for n in ("mod", "NaN", "FLOOR", "β", "polyopt_x"))


@pytest.mark.parametrize("k", range(len(PY_NAMES)))
def test_python_names_in_every_role(tmp_path, k):
    """Kernel ``k`` takes its array, scalar, iterator and size names from PY_NAMES at
    ``k``, ``k+1``, ``k+2``, ``k+3``: over all kernels every name takes every role."""
    arr, scal, it, size = (PY_NAMES[(k + d) % len(PY_NAMES)] for d in range(4))
    mod = _load(tmp_path, f"names{k}", f"""
        def kernel({arr}, y, {size}):
            for {it} in range({size}):
                {scal} = {arr}[{it}] * 2.0
                y[{it}] = {scal} + {it}
            m = {arr}.shape[0]
            for {it} in range(m - 1):
                y[{it} + 1] += {arr}[{it}]
        """)
    x = np.arange(9.0)
    want, got = np.zeros(9), np.zeros(9)
    mod.kernel(x, want, 7)
    polyopt.jit(mod.kernel)(x, got, 7)
    assert np.array_equal(got, want)


def test_messages_and_reports_spell_the_users_names(tmp_path):
    mod = _load(tmp_path, "spelled", """
        def shifted(mod, β, NaN):
            for ceil in range(NaN):
                β[ceil] = mod[ceil + 1] * 2.0

        def carried(mod, β):
            for i in range(mod.shape[0]):
                for floor in range(1, β.shape[0]):
                    β[floor] += β[floor - 1] * mod[i]

        def summed(mod, β):
            for i in range(mod.shape[0]):
                for floor in range(β.shape[0]):
                    β[floor] += mod[i] * floor

        def bad(mod, β):
            for ceil in range(mod.shape[0]):
                β[ceil] = mod[ceil] + undefined_name
        """)
    with pytest.raises(IndexError) as info:
        polyopt.jit(mod.shifted)(np.ones(5), np.zeros(5), 5)
    msg = str(info.value)
    assert "mod[ceil + 1]" in msg and "NaN=5" in msg and "polyopt_" not in msg

    kernel = polyopt.jit(mod.carried)
    report = kernel.report(np.ones(4), np.zeros(4))
    assert "floor (line" in report and "β[floor - 1]" in report and "polyopt_" not in report
    s = polyopt.schedule(kernel)
    assert s.loops() == ["i", "floor"]
    with pytest.raises(polyopt.IllegalTransformationError) as iinfo:
        s.interchange("i", "floor")
    assert "β[floor - 1]" in str(iinfo.value) and "polyopt_" not in str(iinfo.value)

    with pytest.raises(polyopt.PolyoptError) as pinfo:
        polyopt.schedule(mod.summed).unroll_jam("floor", 4)  # innermost: nothing to jam into
    assert "loop floor" in str(pinfo.value) and "polyopt_" not in str(pinfo.value)

    s = polyopt.schedule(mod.summed).interchange("i", "floor")
    assert s.loops() == ["floor", "i"]
    want, got = np.zeros(4), np.zeros(4)
    x = np.arange(1.0, 5.0)
    mod.summed(x, want)
    s.compile()(x, got)
    assert np.array_equal(got, want)

    with pytest.raises(polyopt.UnsupportedError) as uinfo:
        polyopt.jit(mod.bad)(np.ones(3), np.zeros(3))
    assert "polyopt_" not in str(uinfo.value)


C_KERNEL = """\
#include <math.h>
double floor_total;
void kernel(long mod, long NaN, double exists[40][40], double Max[40], double free[40],
            double malloc, double β)
{
  long ceil, rat, omp_get_num_threads;
  double implies, and_, Min;
#pragma scop
  for (ceil = 0; ceil < mod; ceil++) {
    implies = 0.0;
    for (rat = 0; rat < NaN; rat++) {
      implies += exists[ceil][rat] * Max[rat] + floor(malloc);
    }
    free[ceil] = implies;
  }
  for (omp_get_num_threads = 1; omp_get_num_threads < mod; omp_get_num_threads++) {
    Min = free[omp_get_num_threads - 1];
    Max[omp_get_num_threads] = Min * β;
  }
#pragma endscop
}
"""


def test_c_region_names(tmp_path, capsys):
    src = tmp_path / "names.c"
    src.write_text(C_KERNEL, encoding="utf-8")
    out = tmp_path / "names.opt.c"
    assert cli.main(["opt", str(src), "--verify", "-o", str(out)]) == 0
    assert "OK" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    # the region, and the helpers before its function that hold parallel loop bodies
    starts = [text.index(m) for m in ("/* polyopt: optimized", "static void polyopt_")
              if m in text]
    region = text[min(starts):]
    # every name the region uses alone is the file's; derived ones stay internal
    assert user_text(region, whole_names=True) == region
    for name in ("mod", "NaN", "exists", "Max", "free", "malloc", "β", "implies"):
        assert re.search(rf"(?<![\w]){name}(?![\w])", region), name
    assert cli.main(["deps", str(src)]) == 0
    report = capsys.readouterr().out
    assert "ceil (line" in report and "omp_get_num_threads (line" in report
    assert "polyopt_" not in report


def test_scoped_names_read_as_the_users_in_messages_and_stay_apart_in_c():
    """A C declaration that shadows another gets a scoped name (frontends/c_shadowing.py):
    messages spell it as written, C keeps it distinct from the name it shadows."""
    for name in ("t", "floor", "β"):
        inner = name if isl_safe(name) else internal_name(name)
        one, two = scoped_name(inner, 1), scoped_name(inner, 2)
        assert len({one, two, inner}) == 3
        assert isl_safe(one.replace("polyopt_", "p_", 1))  # a C and isl identifier
        assert user_text(f"`{one}` and `{two}`") == f"`{name}` and `{name}`"
        assert user_text(f"x = {one};", whole_names=True) == f"x = {one};"


def test_c_shadowing_local_is_named_as_written_in_a_refusal(tmp_path, capsys):
    src = tmp_path / "shadow.c"
    src.write_text(textwrap.dedent("""\
        void kern(int n, double A[8][8])
        {
          int i, j;
        #pragma scop
          for (i = 0; i < n; i++) {
            const int n = 3;
            for (j = 0; j < n; j++)
              A[i][j] += 1.0;
          }
        #pragma endscop
        }
        """))
    assert cli.main(["opt", str(src), "-o", str(tmp_path / "out.c")]) == 1
    err = capsys.readouterr().err
    assert "shadow.c:7:21: error: `n`: is assigned in the region" in err
    assert "polyopt_" not in err


def test_c_keyword_parameter_without_declaration_is_a_parameter(tmp_path):
    """isl-keyword sizes through `deps`, which never prints an internal name."""
    src = tmp_path / "p.c"
    src.write_text(textwrap.dedent("""\
        void k(int floor, double A[100]) {
          int i;
        #pragma scop
          for (i = 0; i < floor; i++)
            A[i] = A[i] + 1.0;
        #pragma endscop
        }
        """))
    assert cli.main(["opt", str(src), "-o", str(tmp_path / "p.opt.c")]) == 0
    assert "c0 < floor" in (tmp_path / "p.opt.c").read_text()


@pytest.mark.parametrize("fname", ["β", "mod", "main", "double", "naïve"])
def test_function_names(tmp_path, fname):
    mod = _load(tmp_path, f"fn{abs(hash(fname))}", f"""
        def {fname}(x, y):
            for i in range(x.shape[0]):
                y[i] = x[i] * 2.0 + i
        """)
    fn = getattr(mod, fname)
    x = np.arange(6.0)
    want, got = np.zeros(6), np.zeros(6)
    fn(x, want)
    kernel = polyopt.jit(fn)
    kernel(x, got)
    assert np.array_equal(got, want)
    assert kernel.report(x, got).startswith(f"polyopt dependence report: {fname}()")
