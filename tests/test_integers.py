"""The integer contract (README "Integers"): NumPy's fixed-width ints, wrapping as
NumPy and Numba do, and Python's exceptions where Python raises, never a trap
(SIGFPE), undefined behaviour or garbage."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import check_against_python

import polyopt

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
I32_MIN = -(2**31)


def floordiv_mod(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_most_negative_int_divided_by_minus_one_follows_numpy(dtype):
    """SIGFPE before: C's `INT64_MIN / -1` overflows."""
    lo = np.iinfo(dtype).min
    a = np.array([lo, lo, 7, -7, lo + 1], dtype=dtype)
    b = np.array([-1, 1, -1, 2, -1], dtype=dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    polyopt.jit(floordiv_mod)(a, b, q, r)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(q, a // b)
        np.testing.assert_array_equal(r, a % b)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_division_by_a_zero_element_raises_zero_division_error(dtype):
    """NumPy's int scalars give 0 with a warning; Python's ints and Numba raise."""
    a = np.array([5, 6, 7], dtype=dtype)
    b = np.array([1, 0, 2], dtype=dtype)
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        polyopt.jit(floordiv_mod)(a, b, np.zeros_like(a), np.zeros_like(a))


def div_by_arg(x, k):
    for i in range(x.shape[0]):
        x[i] = (i + 3) // k + i % k


@pytest.mark.parametrize("k", [0, -1, 3])
def test_python_int_division_by_zero_raises_as_python_does(k):
    check_against_python(polyopt.jit(div_by_arg), np.zeros(4, dtype=np.int64), k)


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_division_by_a_constant_needs_no_flag():
    """The fast path: no flag where no division by a run-time value and no float to int
    conversion happens."""
    def by_constant(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i] // 4 + x[i] % -1 + x[i] * 3

    kernel = polyopt.jit(by_constant)
    x = np.array([I64_MIN, -5, 9], dtype=np.int64)
    y = np.zeros(3, dtype=np.int64)
    assert "polyopt_err" not in kernel.c_source(x, y).split("/* Python's float")[1]
    check_against_python(kernel, x, y)


def store(a, x):
    for i in range(x.shape[0]):
        a[i] = x[i] * 2.0


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("bad, error", [
    (np.nan, ValueError), (np.inf, OverflowError), (-np.inf, OverflowError),
    (1e300, OverflowError), (4.7e18, OverflowError), (1.1e9, "int32"),
])
def test_float_that_no_int_holds_raises_as_python_does(dtype, bad, error):
    x = np.array([1.25, bad, -3.75])
    if error == "int32":  # 2.2e9 fits int64, not int32
        error = OverflowError if dtype == np.int32 else None
    kernel = polyopt.jit(store)
    if error is None:
        check_against_python(kernel, np.zeros(3, dtype=dtype), x)
        return
    with pytest.raises(error):  # as CPython does
        store(np.zeros(3, dtype=dtype), x.copy())
    with pytest.raises(error):
        kernel(np.zeros(3, dtype=dtype), x)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_floats_at_the_edges_of_the_int_range_convert(dtype):
    info = np.iinfo(dtype)
    edges = [-0.0, 0.75, -0.75, float(info.max // 2), float(info.min)]
    if dtype == np.int32:
        edges += [info.max + 0.5, info.min - 0.5]
    else:
        edges += [float(2**63 - 1024), 2.0**62]
    x = np.array(edges) / 2.0
    check_against_python(polyopt.jit(store), np.zeros(len(edges), dtype=dtype), x)


def int_of(x):
    s = 0
    for i in range(x.shape[0]):
        s += int(x[i])
    return s


@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (1e19, OverflowError)])
def test_int_call_of_a_float_no_int64_holds_raises(bad, error):
    """Python's int() would give a big int for 1e19; polyopt's ints are int64."""
    with pytest.raises(error):
        polyopt.jit(int_of)(np.array([1.5, bad]))
    assert polyopt.jit(int_of)(np.array([1.5, -2.5, 9.2e18])) == 1 - 2 + int(9.2e18)


def add_mul_neg(a, b, c):
    for i in range(a.shape[0]):
        c[i] = -(a[i] + b[i]) * b[i] - a[i] * a[i] + abs(a[i])


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_int_arithmetic_wraps_as_numpy_does(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.max, info.min, info.min, 12345, -3], dtype=dtype)
    b = np.array([1, -1, info.min, info.max, 7], dtype=dtype)
    c = np.zeros_like(a)
    polyopt.jit(add_mul_neg)(a, b, c)
    with np.errstate(over="ignore"):
        expected = -(a + b) * b - a * a + np.abs(a)
    np.testing.assert_array_equal(c, expected)


def square_of_arg(x, k):
    for i in range(x.shape[0]):
        x[i] = k * k + i


def square_returned(k, x):
    s = 0
    for i in range(x.shape[0]):
        s = k * k + i
    return s


def test_python_ints_are_int64_and_wrap():
    """`k * k` for k = 2**40 is 2**80 in Python; here it is int64's wrapped 0, as in
    NumPy and Numba (not 0.0 from a float surprise, nor an exception)."""
    k = 2**40
    assert (k * k + 2**63) % 2**64 - 2**63 == 0  # 2**80, wrapped to int64
    x = np.zeros(3)
    polyopt.jit(square_of_arg)(x, k)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])
    xi = np.zeros(3, dtype=np.int64)
    polyopt.jit(square_of_arg)(xi, 3_000_000_000)
    np.testing.assert_array_equal(xi, ((3_000_000_000**2 + 2**63) % 2**64 - 2**63) + np.arange(3))
    r = polyopt.jit(square_returned)(k, np.zeros(3))
    assert type(r) is int and r == 2


UBSAN_WORKER = textwrap.dedent("""
    import numpy as np
    import polyopt
    from test_integers import add_mul_neg, floordiv_mod, store

    for dt in (np.int64, np.int32):
        info = np.iinfo(dt)
        a = np.array([info.max, info.min, info.min, 5], dtype=dt)
        b = np.array([1, -1, info.min, -1], dtype=dt)
        polyopt.jit(add_mul_neg)(a, b, np.zeros_like(a))
        polyopt.jit(floordiv_mod)(a, b, np.zeros_like(a), np.zeros_like(a))
        for bad in (np.nan, 1e300):
            try:
                polyopt.jit(store)(np.zeros(2, dtype=dt), np.array([1.0, bad]))
            except (ValueError, OverflowError):
                pass
            else:
                raise AssertionError("no error")
    print("ok")
""")


def test_undefined_behaviour_sanitizer_stays_silent(tmp_path):
    """Wrapping arithmetic, INT_MIN // -1 and bad float conversions, built with
    -fsanitize=undefined (float-cast-overflow too): not one report."""
    env = {**os.environ, "POLYOPT_CACHE_DIR": str(tmp_path / "cache"),
           "CFLAGS": "-O1 -fopenmp -fsanitize=undefined,float-cast-overflow "
                     "-fno-sanitize-recover=all",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent),
                                          *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", UBSAN_WORKER], env=env, capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    if "cannot open shared object" in proc.stderr or "undefined symbol: __ubsan" in proc.stderr:
        pytest.skip("this compiler's sanitizer runtime cannot be loaded into Python")
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr
    assert "runtime error" not in proc.stderr, proc.stderr


def squares_times(C, B):
    for i in range(C.shape[0] - 1, -1, -1):
        B[0] = 2 * B[0] * B[0] * C[i]


def squares_times_local(C):
    b = C[0]
    for i in range(C.shape[0]):
        b = b * C[i] * b
    return b


def through_a_local(C):
    b = C[0]
    for i in range(C.shape[0]):
        t = b * C[i]
        b = t * b
    return b


def element_through_a_local(C, B):
    for i in range(C.shape[0]):
        t = B[0] * C[i]
        B[0] = t * B[0] * 3


def dot_with_a_local(x, y):
    s = x[0] * 0
    for i in range(x.shape[0]):
        t = x[i] * y[i]
        s += t
    return s


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32])
def test_an_int_recurrence_that_multiplies_itself_is_no_product_reduction(dtype):
    """gcc 12 at -O3 vectorized ``b = 2 * b * b * c[i]`` as if it were a product reduction
    (int32 with AVX2, int64 with AVX-512DQ): 288 where NumPy wraps to -2038431744 (a
    hostile-user session, stop 35).  The C keeps such a loop scalar with an empty asm."""
    C = np.array([-3, -1, 3, 2, 5, -7, 4, 2, 3]).astype(dtype)
    for b0 in (1, 3, 8):
        with np.errstate(over="ignore"):
            check_against_python(polyopt.jit(squares_times), C, np.array([b0], dtype))
            check_against_python(polyopt.jit(squares_times_local), C * dtype(b0))
            check_against_python(polyopt.jit(through_a_local), C * dtype(b0))
            check_against_python(polyopt.jit(element_through_a_local), C, np.array([b0], dtype))
    source = polyopt.jit(squares_times).c_source(C, np.array([1], dtype))
    assert source.count('__asm__("" : "+r"(') == 1
    # a sum of products made in a local holds the sum once: it stays a reduction
    assert "__asm__" not in polyopt.jit(dot_with_a_local).c_source(C, C)
