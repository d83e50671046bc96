"""The call boundary: every bad argument gets a precise exception before any C runs.

Dtypes and ranks are checked by the dispatcher (a new supported dtype compiles a
new specialization), contiguity, writability and overlap by the compiled kernel's
wrapper, and sizes by a check derived from the access relations.  Calls that
could crash the interpreter if a check were missing also run in a subprocess,
which must exit cleanly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import kernels
import numpy as np
import pytest
from conftest import check_against_python

import polyopt

TESTS_DIR = Path(__file__).resolve().parent

_JITTED: dict[str, polyopt.Kernel] = {}


def jitted(name: str) -> polyopt.Kernel:
    """One shared jit object per corpus kernel (each signature compiles once)."""
    if name not in _JITTED:
        _JITTED[name] = polyopt.jit(kernels.CASES[name].fn)
    return _JITTED[name]


def _mm_args(n: int = 3, p: int = 4, m: int = 5, dtype=np.float64):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, p)).astype(dtype), rng.standard_normal((p, m)).astype(dtype),
            np.zeros((n, m), dtype=dtype))


# --- dtypes and ranks ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.longdouble, ">f8"])
def test_unsupported_dtype_is_a_type_error(dtype):
    A, B, C = _mm_args()
    with pytest.raises(TypeError, match="dtype"):
        jitted("matmul_acc")(A.astype(dtype), B, C)


def test_another_supported_dtype_compiles_a_new_specialization():
    kernel = polyopt.jit(kernels.matmul_acc)
    check_against_python(kernel, *_mm_args())
    check_against_python(kernel, *_mm_args(dtype=np.float32))
    A, B, C = _mm_args()
    check_against_python(kernel, A.astype(np.int64), B.astype(np.int32), C.astype(np.int64))
    assert len(kernel._specializations) == 3
    check_against_python(kernel, *_mm_args(n=2, p=6, m=1))  # same signature, new sizes
    assert len(kernel._specializations) == 3


def test_scalar_argument_types():
    kernel = jitted("gemm")
    _, _, C = _mm_args(3, 3, 3)
    A, B, _ = _mm_args(3, 3, 3)
    check_against_python(kernel, 2, 1, C, A, B)  # ints where floats are used
    check_against_python(kernel, np.float32(1.5), np.float64(0.5), C, A, B)
    with pytest.raises(TypeError, match="bool"):
        kernel(True, 1.0, C, A, B)
    with pytest.raises(TypeError, match="list"):
        kernel([1.0], 1.0, C, A, B)
    with pytest.raises(TypeError, match="complex"):
        kernel(1j, 1.0, C, A, B)


@pytest.mark.parametrize("shape", [(3,), (3, 4, 1)])
def test_wrong_rank_is_a_type_error_before_any_c(shape):
    kernel = polyopt.jit(kernels.matmul_acc)
    _, B, C = _mm_args()
    with pytest.raises(TypeError) as info:
        kernel(np.ones(shape), B, C)
    message = str(info.value)
    assert "'A'" in message and f"{len(shape)} dimension" in message and "A[i, k]" in message
    assert "kernels.py" in message
    assert kernel._specializations == {}


def test_scalar_passed_for_an_array_is_a_type_error():
    _, B, C = _mm_args()
    with pytest.raises(TypeError, match="'A' as an array"):
        polyopt.jit(kernels.matmul_acc)(2.0, B, C)


# --- sizes --------------------------------------------------------------------------------


def test_array_too_small_is_an_index_error_naming_the_access():
    A, B, C = _mm_args()
    with pytest.raises(IndexError) as info:
        jitted("matmul_acc")(A, B[:3].copy(), C)  # B has 3 rows, the k loop runs to 4
    message = str(info.value)
    assert "B[k, j]" in message and "reads" in message
    line = _line_of(kernels.matmul_acc, "s += A[i, k] * B[k, j]")
    assert f"line {line}" in message


def test_written_array_too_small():
    x = np.ones(6)
    with pytest.raises(IndexError, match=r"writes y\[i\]"):
        jitted("first_k")(5, x, np.ones(3))
    with pytest.raises(IndexError, match=r"reads x\[i\]"):
        jitted("first_k")(5, np.ones(3), x)
    check_against_python(jitted("first_k"), 3, np.ones(3), np.ones(3))  # exactly fits
    check_against_python(jitted("first_k"), -4, np.ones(3), np.ones(3))  # empty loop


def halves(k, x):
    for i in range(k):
        x[i // 2] += x[k - 1 - i]


def test_index_errors_show_the_access_as_written():
    with pytest.raises(IndexError) as info:
        polyopt.jit(halves)(7, np.ones(3))
    assert "writes x[i // 2] (x[i // 2] += x[k - 1 - i])" in str(info.value)
    with pytest.raises(IndexError, match=r"reads x\[k - i - 1\] \(x\[i // 2\]"):
        polyopt.jit(halves)(4, np.ones(3))
    check_against_python(polyopt.jit(halves), 5, np.ones(5))


def test_sizes_that_leave_no_iteration_need_no_elements():
    check_against_python(jitted("first_k"), 0, np.ones(0), np.ones(0))
    A, B, C = _mm_args(0, 4, 5)
    check_against_python(jitted("matmul_acc"), A, B, C)


def test_negative_shape_of_a_temporary_is_a_value_error():
    def shrink(x):
        n = x.shape[0]
        t = np.zeros(n - 5)
        for i in range(n - 5):
            t[i] = x[i]
        return t

    kernel = polyopt.jit(shrink)
    check_against_python(kernel, np.ones(8))
    with pytest.raises(ValueError):
        kernel(np.ones(3))


# --- layout and writability ---------------------------------------------------------------


@pytest.mark.parametrize("which", ["A", "C"])
def test_non_contiguous_view_is_a_value_error(which):
    A, B, C = _mm_args()
    if which == "A":
        A = np.ones((3, 8))[:, ::2]
    else:
        C = np.zeros((6, 5))[::2]
    with pytest.raises(ValueError, match=f"'{which}' is not C-contiguous") as err:
        jitted("matmul_acc")(A, B, C)
    # C is written: a contiguous copy of it would take the writes (hostile session 47a, 10)
    assert ("copy the result back (C[...] = c)" in str(err.value)) is (which == "C")


def test_fortran_order_is_a_value_error():
    A, B, C = _mm_args()
    with pytest.raises(ValueError, match="'B' is not C-contiguous"):
        jitted("matmul_acc")(A, np.asfortranarray(B), C)


def test_contiguous_slices_are_accepted():
    A, B, C = _mm_args()
    rows = np.zeros((6, 5))
    check_against_python(jitted("matmul_acc"), A, B, rows[2:5])


def test_read_only_written_array_is_a_value_error():
    A, B, C = _mm_args()
    C.flags.writeable = False
    with pytest.raises(ValueError, match="'C' is read-only"):
        jitted("matmul_acc")(A, B, C)


def test_read_only_read_array_is_fine():
    A, B, C = _mm_args()
    A.flags.writeable = False
    B.flags.writeable = False
    check_against_python(jitted("matmul_acc"), A, B, C)


# --- aliasing -----------------------------------------------------------------------------


def test_same_array_written_and_read_is_a_value_error():
    S = np.ones((4, 4))
    with pytest.raises(ValueError, match="overlap"):
        jitted("matmul_acc")(S, S, S)
    with pytest.raises(ValueError, match="'A' and 'B' overlap"):
        jitted("transpose")(S, S)


def test_overlapping_views_are_a_value_error():
    buf = np.arange(40.0)
    A = buf[:12].reshape(3, 4)
    B = np.ones((4, 5))
    C = buf[10:25].reshape(3, 5)  # shares elements 10 and 11 with A
    with pytest.raises(ValueError, match="'A' and 'C' overlap"):
        jitted("matmul_acc")(A, B, C)
    D = buf[12:27].reshape(3, 5)  # adjacent, no shared element
    check_against_python(jitted("matmul_acc"), A, B, D)


def test_read_only_aliasing_is_allowed_and_correct():
    S = np.random.default_rng(1).standard_normal((4, 4))
    out = np.zeros((4, 4))
    result = check_against_python(jitted("matmul_acc"), S, S, out)
    assert result is None
    C = np.zeros((4, 4))
    jitted("matmul_acc")(S, S, C)
    np.testing.assert_allclose(C, S @ S, rtol=1e-12, atol=1e-14)


# --- integer arguments --------------------------------------------------------------------


def test_int_argument_beyond_64_bits_is_an_overflow_error():
    with pytest.raises(OverflowError, match="'k'"):
        jitted("first_k")(2**70, np.ones(3), np.ones(3))


@pytest.mark.parametrize("k", [2**63 - 1, 2**63 - 2, -(2**63), 2**62])
def test_int_argument_too_large_for_loop_arithmetic_is_an_overflow_error(k):
    def from_k(k, x):
        for i in range(k + 2, 3):
            x[i] = 1.0

    with pytest.raises(OverflowError, match="'k'.*too large"):
        polyopt.jit(from_k)(k, np.zeros(4))


def huge_stride(x, y):
    for i in range(x.shape[0]):
        y[0] += x[i * 1099511627776]


def test_sizes_beyond_the_safe_range_are_refused_on_every_call():
    # a coefficient of 2**40 leaves sizes up to 2**60 / 2**41 safe for int64 arithmetic
    kernel = polyopt.jit(huge_stride)
    check_against_python(kernel, np.ones(0), np.zeros(0))
    for _ in range(2):  # the first and the later (fast-path) calls of this signature
        with pytest.raises(OverflowError, match="'x_shape0' = 1048576 is too large"):
            kernel(np.ones(2**20), np.zeros(0))
    with pytest.raises(IndexError):  # safe, but x[1 * 2**40] is outside x
        kernel(np.ones(2), np.zeros(0))


def test_numpy_integer_scalars_are_ints():
    check_against_python(jitted("first_k"), np.int64(2), np.ones(3), np.ones(3))
    check_against_python(jitted("first_k"), np.int32(3), np.ones(3), np.ones(3))


# --- keyword and default arguments --------------------------------------------------------


def scale_add(x, y, alpha=2.0, shift=1):
    for i in range(x.shape[0]):
        y[i] = alpha * x[i] + shift


def test_keyword_arguments():
    kernel = jitted("first_k")
    x, y = np.arange(4.0), np.zeros(4)
    check_against_python(kernel, x=x, y=y, k=3)
    check_against_python(kernel, 2, y=y, x=x)
    with pytest.raises(TypeError):
        kernel(2, x)
    with pytest.raises(TypeError):
        kernel(2, x, y, 4)
    with pytest.raises(TypeError):
        kernel(2, x, y, z=1)


def test_default_arguments():
    kernel = polyopt.jit(scale_add)
    x = np.arange(5.0)
    check_against_python(kernel, x, np.zeros(5))
    check_against_python(kernel, x, np.zeros(5), 0.5)
    check_against_python(kernel, x, np.zeros(5), shift=-3)
    check_against_python(kernel, x, np.zeros(5), shift=2.5, alpha=3)


# --- the compiler -------------------------------------------------------------------------


def test_missing_compiler_is_a_compile_error(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    kernel = polyopt.jit(kernels.dot)
    with pytest.raises(polyopt.CompileError) as info:
        kernel(np.ones(3), np.ones(3))
    e = info.value
    assert "/nonexistent/cc" in str(e) and "not found" in str(e)
    assert e.c_path is not None and Path(e.c_path).is_file()
    assert "polyopt_dot" in Path(e.c_path).read_text()


def test_compiler_error_is_a_compile_error_with_output_and_c_path(monkeypatch):
    monkeypatch.setenv("CFLAGS", "-fbogus-flag")
    kernel = polyopt.jit(kernels.dot)
    with pytest.raises(polyopt.CompileError) as info:
        kernel(np.ones(3), np.ones(3))
    e = info.value
    assert "-fbogus-flag" in e.output
    assert "-fbogus-flag" in str(e) and "compiler output" in str(e)
    assert e.c_path is not None and Path(e.c_path).is_file()
    assert e.c_path in str(e)


def test_compiler_that_writes_nothing_is_a_compile_error(monkeypatch):
    monkeypatch.setenv("CC", "true")
    with pytest.raises(polyopt.CompileError, match="no library"):
        polyopt.jit(kernels.dot)(np.ones(3), np.ones(3))


def test_fallback_on_a_compile_error(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    kernel = polyopt.jit(kernels.dot, fallback=True)
    with pytest.warns(RuntimeWarning, match="not found"):
        assert kernel(np.ones(3), np.full(3, 2.0)) == 6.0


# --- nothing crashes ----------------------------------------------------------------------


_BAD_CALLS = textwrap.dedent("""
    import faulthandler
    import numpy as np
    import polyopt
    import kernels

    faulthandler.enable()
    mm = polyopt.jit(kernels.matmul_acc)
    fk = polyopt.jit(kernels.first_k)
    A, B, C = np.ones((3, 4)), np.ones((4, 5)), np.zeros((3, 5))
    calls = [
        (mm, (A, B[:2].copy(), C)),
        (mm, (A, B, np.zeros((4, 5)))),
        (mm, (np.ones((3, 8))[:, ::2], B, C)),
        (mm, (A, np.asfortranarray(B), C)),
        (mm, (A, B, A)),
        (mm, (np.ones(3), B, C)),
        (mm, (A.astype(complex), B, C)),
        (fk, (5, np.ones(3), np.ones(3))),
        (fk, (2**63 - 1, np.ones(3), np.ones(3))),
        (fk, (2**63 - 2, np.ones(3), np.ones(3))),
        (fk, (-(2**63), np.ones(3), np.ones(3))),
        (fk, (2**80, np.ones(3), np.ones(3))),
    ]
    for kernel, args in calls:
        try:
            kernel(*args)
        except (TypeError, ValueError, IndexError, OverflowError) as e:
            print("refused:", type(e).__name__)
        else:
            raise SystemExit("a bad call was accepted")
    mm(A, B, C)
    assert (C == 4.0).all()
    print("done")
""")


def test_bad_calls_never_crash_the_interpreter():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(TESTS_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run([sys.executable, "-c", _BAD_CALLS], cwd=TESTS_DIR, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("refused:") == 12
    assert proc.stdout.strip().endswith("done")


def _line_of(fn, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if line.strip() == text)


def _copy_kw(x, *, y):
    for i in range(x.shape[0]):
        y[i] = x[i]


def test_a_keyword_only_parameter_given_by_position_is_a_type_error():
    """Hostile-user finding (stop 34, session a, 07): ``f(x, y)`` ran and wrote ``y``."""
    k = polyopt.jit(_copy_kw)
    x, y = np.ones(3), np.zeros(3)
    for _ in range(2):  # the first call compiles, the second takes the warm path
        with pytest.raises(TypeError, match=r"takes 1 positional argument but 2 were given"):
            k(x, y)
        assert not y.any()
        k(x, y=y)
        k(x=x, y=y)
        assert np.array_equal(y, x)
        y[:] = 0


def _first(x, /, k):
    return x[k]


def test_a_positional_only_parameter_given_by_keyword_is_a_type_error():
    """Hostile-user finding (stop 34, session c, 05): once warm, ``f(x=x, k=1)`` ran."""
    k = polyopt.jit(_first)
    x = np.arange(1.0, 6.0)
    for _ in range(2):
        assert k(x, 1) == 2.0 and k(x, k=1) == 2.0
        with pytest.raises(TypeError, match="positional"):
            k(x=x, k=1)


def _unused_default(x, y=None):
    for i in range(x.shape[0]):
        x[i] += 1.0


def test_an_unsupported_argument_is_named():
    """Hostile-user finding (stop 34, session c, 06): the TypeError for ``y=None`` did
    not say which argument."""
    with pytest.raises(TypeError, match=r"argument 'y': arguments of type NoneType"):
        polyopt.jit(_unused_default)(np.arange(3.0))
