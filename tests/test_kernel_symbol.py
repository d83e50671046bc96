"""A kernel whose Python name is one of the C prelude's helpers (``abs_i8``,
``floord``, ``to_i64``...) compiles: its C function is renamed, and it computes what
CPython does.  It failed to build with gcc's "conflicting types for 'polyopt_abs_i8'"."""

from __future__ import annotations

import math

import numpy as np
from polyopt.backend_c.symbol import kernel_symbol

import polyopt


def abs_i8(k):
    return np.abs(k)


def floord(n):
    s = 0
    for i in range(n):
        s += i // 3
    return s


def to_i64(x):
    return int(x[0])


def maximum_f64(x):
    return np.max(x)


def pypow(a, b):
    return a ** b  # two Python floats: the prelude's polyopt_pypow


def pyhypot(x):
    return math.hypot(x[0], x[1])  # the prelude's polyopt_pyhypot


def fit(u, k):
    s = u[0]
    s = -1 - k  # a narrow local holding a Python int: the prelude's polyopt_fit
    return s + u[1]


def test_kernels_named_like_the_python_semantics_helpers_compile() -> None:
    assert polyopt.jit(pypow)(2.0, 0.5) == pypow(2.0, 0.5)
    assert polyopt.jit(pyhypot)(np.array([3.0, 4.0])) == 5.0
    u = np.array([1, 2], dtype=np.uint8)
    assert polyopt.jit(fit)(u, -3) == fit(u, -3)
    assert "polyopt_fit(" in polyopt.jit(fit).c_source(u, -3)


def test_helper_names_get_another_symbol() -> None:
    assert kernel_symbol("abs_i8") == "polyopt_kernel_abs_i8"
    assert kernel_symbol("floordiv_u16_chk") == "polyopt_kernel_floordiv_u16_chk"
    assert kernel_symbol("gemm") == "polyopt_gemm"
    assert kernel_symbol("abs_i8x") == "polyopt_abs_i8x"
    assert kernel_symbol("β") == "polyopt__"


def test_kernels_named_like_helpers_compile_and_agree_with_python() -> None:
    k = np.array([-128, -1, 5], dtype=np.int8)
    got = polyopt.jit(abs_i8)(k)
    assert got.dtype == np.int8 and np.array_equal(got, np.abs(k))
    assert polyopt.jit(floord)(10) == floord(10)
    assert polyopt.jit(to_i64)(np.array([3.7])) == 3
    x = np.array([1.0, 4.0, 2.0])
    assert polyopt.jit(maximum_f64)(x) == 4.0
    assert "polyopt_kernel_abs_i8(" in polyopt.jit(abs_i8).c_source(k)
