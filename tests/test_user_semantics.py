"""What a user expects from Python and NumPy, checked against CPython and NumPy.

Each test runs the compiled kernel and the original function (CPython, NumPy
scalars and arrays) on copies of the same arguments and compares the results
exactly, or asserts the exact exception a misuse gets.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import polyopt
from polyopt.model.errors import UnsupportedError


def run_both(kernel: polyopt.Kernel, *args: object) -> None:
    """The compiled kernel writes exactly what the Python function writes."""
    expected = copy.deepcopy(args)
    kernel.py_func(*expected)
    actual = copy.deepcopy(args)
    kernel(*actual)
    for e, a in zip(expected, actual, strict=True):
        if isinstance(e, np.ndarray):
            assert a.dtype == e.dtype
            np.testing.assert_array_equal(a, e)
            if e.dtype.kind == "f":  # signed zeros and infinities: the sign too (not NaN's)
                real = ~np.isnan(e)
                np.testing.assert_array_equal(np.signbit(a[real]), np.signbit(e[real]))


# --- 1. globals and closure cells are read at call time, as Python does ---------------

SCALE = 2.0
G: object = 2


@polyopt.jit
def scale_by_global(a):
    for i in range(len(a)):
        a[i] = a[i] * SCALE


@polyopt.jit
def add_global_third(a):
    for i in range(len(a)):
        a[i] = a[i] + G / 3


def test_changed_global_float_is_seen_by_the_next_call() -> None:
    global SCALE
    try:
        for value in (2.0, 10.0, 2.0, -0.5):
            SCALE = value
            run_both(scale_by_global, np.ones(3))
    finally:
        SCALE = 2.0


def test_global_changed_from_int_to_float() -> None:
    global G
    try:
        G = 2
        run_both(add_global_third, np.zeros(2))
        G = 2.5
        run_both(add_global_third, np.zeros(2))
    finally:
        G = 2


def test_bool_global_is_refused_even_after_an_int_compiled() -> None:
    # bool constants are refused (documented): not silently the old int value
    global G
    try:
        G = 2
        run_both(add_global_third, np.zeros(2))
        G = True
        with pytest.raises(UnsupportedError, match="bool globals are not supported"):
            add_global_third(np.zeros(2))
    finally:
        G = 2


def test_nonlocal_change_of_a_closure_cell_is_seen() -> None:
    def make():
        c = 1.0

        @polyopt.jit
        def fill(a):
            for i in range(len(a)):
                a[i] = c

        def set_c(v):
            nonlocal c
            c = v
        return fill, set_c

    fill, set_c = make()
    run_both(fill, np.zeros(2))
    set_c(9.0)
    run_both(fill, np.zeros(2))
    set_c(1.0)  # back to a value compiled before: still right
    run_both(fill, np.zeros(2))


def test_loop_bound_global_change_is_seen() -> None:
    global G
    try:
        G = 3

        @polyopt.jit
        def shift(a):
            n = len(a)
            for i in range(G, n):
                a[i] = a[i - G] * 0.5
        run_both(shift, np.arange(8.0))
        G = 1
        run_both(shift, np.arange(8.0))
    finally:
        G = 2


W = np.array([1.0, 2.0, 3.0])
FLAG = True


def test_global_array_is_refused_with_its_remedy() -> None:
    @polyopt.jit
    def read_w(a):
        for i in range(3):
            a[i] = W[i]
    with pytest.raises(UnsupportedError,
                       match="global arrays are not supported: pass `W` as an argument"):
        read_w(np.zeros(3))


def test_bool_global_in_a_loop_bound_is_refused() -> None:
    @polyopt.jit
    def bounded(a):
        for i in range(FLAG, len(a)):
            a[i] = 1.0
    with pytest.raises(UnsupportedError, match="bool globals are not supported"):
        bounded(np.zeros(3))


# --- 2. NumPy scalar arguments are strongly typed (NEP 50); Python's are weak -----------

@polyopt.jit
def add_then_remove(a, k, b):
    for i in range(len(a)):
        b[i] = (a[i] + k) - a[i]


@pytest.mark.parametrize("k", [np.float64(1e-8), 1e-8, np.float32(1e-8), 1.5])
def test_float_scalar_kinds_follow_nep50(k) -> None:
    run_both(add_then_remove, np.ones(3, dtype=np.float32), k, np.zeros(3))
    run_both(add_then_remove, np.ones(3), k, np.zeros(3, dtype=np.float32))


@pytest.mark.parametrize("k", [np.int64(2**40), np.int32(7), 7])
def test_int_scalar_kinds_follow_nep50(k) -> None:
    run_both(add_then_remove, np.ones(3, dtype=np.int32), k, np.zeros(3, dtype=np.int64))


def test_numpy_scalar_is_its_own_specialization() -> None:
    @polyopt.jit
    def addk(a, k, b):
        for i in range(len(a)):
            b[i] = (a[i] + k) - a[i]
    a = np.ones(3, dtype=np.float32)
    for k in (1e-8, np.float64(1e-8), 1e-8, np.float64(1e-8)):  # alternating, warm
        run_both(addk, a, k, np.zeros(3))


K64 = np.float64(1e-8)
K32 = np.float32(0.1)
KI64 = np.int64(2**40)


def test_numpy_scalar_globals_are_strongly_typed() -> None:
    @polyopt.jit
    def use_globals(a, b, c, d):
        for i in range(len(a)):
            b[i] = (a[i] + K64) - a[i]
            c[i] = a[i] * K32
            d[i] = c[i] + KI64
    run_both(use_globals, np.ones(3, dtype=np.float32), np.zeros(3), np.zeros(3),
             np.zeros(3))
    run_both(use_globals, np.ones(3), np.zeros(3, np.float32), np.zeros(3, np.float32),
             np.zeros(3))


# --- 4. float // and % follow np.floor_divide and np.remainder, zeros and infs included ---

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 1e-300, 1e300, np.inf, -np.inf, np.nan]


@polyopt.jit
def floordiv_mod(a, b, q, r):
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@polyopt.jit
def floordiv_by_zero(a, q, r):
    for i in range(len(a)):
        q[i] = a[i] // 0.0
        r[i] = a[i] % 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_floordiv_and_mod_match_numpy(dtype) -> None:
    with np.errstate(all="ignore"):  # 1e300 is inf in float32; x / 0.0 warns in NumPy
        x, y = np.meshgrid(np.array(_SPECIAL, dtype), np.array(_SPECIAL, dtype))
        a, b = x.ravel().copy(), y.ravel().copy()
        run_both(floordiv_mod, a, b, np.zeros_like(a), np.zeros_like(a))
        run_both(floordiv_by_zero, a, np.zeros_like(a), np.zeros_like(a))


# --- 6. schedules: clear errors --------------------------------------------------------

def dep(A):
    n, m = A.shape
    for i in range(1, n):
        for j in range(0, m - 1):
            A[i, j] = A[i - 1, j + 1] + A[i, j] * 0.5


def gemm_like(A, B, C):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]


def test_deeply_nested_schedule_json_is_a_format_error() -> None:
    with pytest.raises(polyopt.ScheduleFormatError, match="nested too deeply"):
        polyopt.Schedule.from_json(dep, "[" * 100000 + "]" * 100000)


def test_schedule_saved_for_another_function_is_refused() -> None:
    saved = polyopt.schedule(gemm_like).interchange("j", "k").to_json()
    with pytest.raises(polyopt.ScheduleFormatError,
                       match="saved for function 'gemm_like', not 'dep'"):
        polyopt.Schedule.from_json(dep, saved)
    again = polyopt.Schedule.from_json(gemm_like, saved)  # its own function still reads it
    assert again.steps == polyopt.schedule(gemm_like).interchange("j", "k").steps


def test_tile_naming_a_loop_twice_is_a_format_error() -> None:
    with pytest.raises(polyopt.ScheduleFormatError,
                       match=r"tile\(\): loop 'i' is named twice; tile takes different loops"):
        polyopt.schedule(dep).tile(["i", "i"], [2, 2])


def test_schedule_of_a_non_function_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="polyopt.schedule takes a function or a "
                                        "@polyopt.jit kernel, not int"):
        polyopt.schedule(42)


def test_illegal_unroll_jam_names_the_users_loop() -> None:
    with pytest.raises(polyopt.IllegalTransformationError,
                       match=r"^unroll-and-jam of loop i by 2 is illegal"):
        polyopt.schedule(dep).unroll_jam("i", 2)


# --- 7. --signature reads Numba's notations ----------------------------------------------

@pytest.mark.parametrize("text", ["float64[:, ::1], float64[::1]",
                                  "array(float64, 2d, C), array(float64, 1d, C)",
                                  "array(float64, 2d, A), float64[:]"])
def test_numba_signature_forms_read_as_the_plain_one(text) -> None:
    from polyopt.model.signature import parse_signature

    assert parse_signature(text, ["A", "x"]) == parse_signature("float64[:, :], float64[:]",
                                                                ["A", "x"])


@pytest.mark.parametrize("text, message", [
    ("garbage((", "unbalanced brackets in the signature 'garbage(('"),
    ("float64[::1, :], float64[:]", "'float64[::1, :]': only the last axis can be contiguous"),
    ("array(float64, 2d, F), float64[:]", "'array(float64, 2d, F)': Fortran-order arrays are "
                                          "not supported"),
    ("float64[:, x], float64[:]", "cannot read the array type 'float64[:, x]'"),
    ("what is this, float64[:]", "cannot read the type 'what is this'"),
])
def test_unreadable_signatures_name_the_bad_text(text, message) -> None:
    from polyopt.model.signature import parse_signature

    with pytest.raises(ValueError) as info:
        parse_signature(text, ["A", "x"])
    assert message in str(info.value)


# --- 8. misuses get Python's message, or one that says what to do ----------------------

@polyopt.jit
def add3(a, b, c):
    for i in range(len(a)):
        c[i] = a[i] + b[i]


def test_unexpected_keyword_is_named_as_python_names_it() -> None:
    x = np.ones(3)
    with pytest.raises(TypeError) as expected:
        add3.py_func(x, x, d=x)
    with pytest.raises(TypeError, match=r"^add3\(\) got an unexpected keyword argument 'd'$"):
        add3(x, x, d=x)
    assert "unexpected keyword argument 'd'" in str(expected.value)


def test_report_with_an_unknown_keyword_lists_its_real_parameters() -> None:
    x = np.ones(3)
    add3(x, x, np.zeros(3))
    with pytest.raises(TypeError, match=r"^add3\.report\(\) takes the arguments of "
                                        r"add3\(a, b, c\) .*'format' is not one of them"):
        add3.report(format="json")


def test_jit_on_a_method_is_refused() -> None:
    with pytest.raises(TypeError, match=r"polyopt.jit does not support methods \(.*Holder.meth\)"):
        class Holder:
            @polyopt.jit
            def meth(self, a):
                for i in range(len(a)):
                    a[i] = 1.0


def test_jit_kernel_bound_to_an_instance_is_refused_but_staticmethod_works() -> None:
    class Holder:
        @polyopt.jit
        def meth(a):  # noqa: N805 - a kernel put in a class body by mistake
            for i in range(len(a)):
                a[i] = 1.0

        @staticmethod
        @polyopt.jit
        def fill(a):
            for i in range(len(a)):
                a[i] = 3.0

    with pytest.raises(TypeError, match="polyopt.jit does not support methods"):
        Holder().meth(np.zeros(2))
    run_both(Holder.fill, np.zeros(2))
    a = np.zeros(2)
    Holder().fill(a)
    np.testing.assert_array_equal(a, [3.0, 3.0])


def test_cache_warning_points_at_the_users_call(tmp_path, monkeypatch) -> None:
    from polyopt.backend_c import build

    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(build, "_warned", set())

    @polyopt.jit
    def twice(a):
        for i in range(len(a)):
            a[i] = a[i] * 2.0 + 7.0
    with pytest.warns(RuntimeWarning, match="cannot be used") as record:
        run_both(twice, np.ones(3))
    assert {w.filename for w in record} == {__file__}


# --- 3. a Python int meeting an int32 value must fit it, as NumPy converts it ------------

def same_outcome(kernel: polyopt.Kernel, *args: object) -> None:
    """Both raise the same exception with the same message, or both write the same."""
    try:
        kernel.py_func(*copy.deepcopy(args))
    except Exception as exc:  # noqa: BLE001 - the exception is the expected outcome
        with pytest.raises(type(exc)) as info:
            kernel(*copy.deepcopy(args))
        assert str(info.value) == str(exc)
        return
    run_both(kernel, *args)


@polyopt.jit
def plus_k(a, k, b):
    for i in range(len(a)):
        b[i] = a[i] + k


@polyopt.jit
def store_k(a, k):
    for i in range(len(a)):
        a[i] = k


@polyopt.jit
def below_k(a, k, b):
    for i in range(len(a)):
        b[i] = a[i] * 2 if a[i] < k else b[i]


@pytest.mark.parametrize("k", [2**40, -2**31 - 1, 2**31 - 1, -2**31, 7, np.int64(2**40)])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_python_int_meeting_int32_must_fit(k, dtype) -> None:
    with np.errstate(over="ignore"):
        for _ in range(2):  # cold call, then the warm call's wrapper
            same_outcome(plus_k, np.ones(3, dtype), k, np.zeros(3, np.int64))
            same_outcome(store_k, np.ones(3, dtype), k)
            same_outcome(below_k, np.ones(3, dtype), k, np.zeros(3, dtype))


# --- 5. np.* math on float32 computes in float32, within 2 ulp of NumPy -----------------

def np_math32(x, y, out):
    for i in range(len(x)):
        out[0, i] = np.sin(x[i])
        out[1, i] = np.cos(x[i])
        out[2, i] = np.exp(x[i])
        out[3, i] = np.log(y[i])
        out[4, i] = np.tanh(x[i])
        out[5, i] = np.sqrt(y[i])
        out[6, i] = np.power(y[i], x[i])


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance in float32 units in the last place (same-sign finite values)."""
    ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    return np.abs(ia - ib)


@pytest.mark.parametrize("options", [{}, {"strict_fp": True}, {"vectorize": False}])
def test_numpy_math_on_float32_is_within_2_ulp_of_numpy(options, rng) -> None:
    x = rng.uniform(-10, 10, 4096).astype(np.float32)
    y = rng.uniform(1e-3, 50, 4096).astype(np.float32)
    expected = np.zeros((7, x.size), np.float32)
    np_math32(x, y, expected)
    actual = np.zeros_like(expected)
    polyopt.jit(**options)(np_math32)(x, y, actual)
    same_sign = np.signbit(actual) == np.signbit(expected)
    assert same_sign.all()
    worst = ulps(actual, expected).max(axis=1)
    assert (worst <= 2).all(), dict(zip(["sin", "cos", "exp", "log", "tanh", "sqrt", "power"],
                                        worst.tolist(), strict=True))


def test_numpy_math_on_float32_calls_the_float32_c_functions() -> None:
    x = np.ones(4, np.float32)
    src = polyopt.jit(strict_fp=True)(np_math32).c_source(x, x, np.zeros((7, 4), np.float32))
    for fn in ("sinf(", "cosf(", "expf(", "logf(", "tanhf(", "sqrtf(", "powf("):
        assert fn in src


@polyopt.jit
def math_sin_of_float32(x, out):
    for i in range(len(x)):
        out[i] = math.sin(x[i]) + math.exp(x[i])


def test_math_functions_on_float32_compute_in_float64_as_cpython(rng) -> None:
    x = rng.uniform(-10, 10, 1000).astype(np.float32)
    run_both(math_sin_of_float32, x, np.zeros(1000))


def _last(x):
    for i in range(x.shape[0]):
        t = x[i]
    return t


def _at(x, k):
    for i in range(x.shape[0]):
        if i == k:
            t = x[i]
    return t


def test_a_returned_local_nothing_assigned_raises_unbound_local_error():
    """Hostile-user finding (stop 34, session a, 06): ``return t`` after a loop of zero
    trips returned 0.0, and after a branch that never ran, uninitialized memory; CPython
    raises UnboundLocalError."""
    x = np.arange(3.0)
    for fn, args, want in ((_last, (np.zeros(0),), None), (_last, (x,), 2.0),
                           (_at, (x, 5), None), (_at, (x, 1), 1.0)):
        k = polyopt.jit(fn)
        if want is None:
            with pytest.raises(UnboundLocalError):
                fn(*args)
            with pytest.raises(UnboundLocalError, match="local variable 't'"):
                k(*args)
        else:
            assert k(*args) == fn(*args) == want


def _two_int_types(A, B, out):
    s = A[0]
    out[0] = s - 20
    s = B[0]
    out[1] = s


def _two_float_types(X, Y, out):
    s = X[0]
    out[0] = s * s
    s = Y[0]
    out[1] = s


def _weak_then_float32(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def test_a_local_holding_two_numpy_types_is_refused():
    """Hostile-user finding (stop 34, session a, 01): ``s - 20`` on a uint32 ``s`` later
    assigned an int8 computed in int64 (-6, where CPython wraps to 4294967290), and
    ``s * s`` on a float32 later assigned a float64 did not underflow."""
    with pytest.raises(UnsupportedError, match=r"`s` holding a int8 here and a uint32 before"):
        polyopt.jit(_two_int_types)(np.array([14], np.uint32), np.array([-5], np.int8),
                                    np.zeros(2, np.int64))
    with pytest.raises(UnsupportedError, match=r"holding a float64 here and a float32 before"):
        polyopt.jit(_two_float_types)(np.array([1e-30], np.float32), np.array([0.5]),
                                      np.zeros(2))
    x = np.arange(5, dtype=np.float32) / 3
    assert polyopt.jit(_weak_then_float32)(x) == _weak_then_float32(x)  # a Python 0.0 first
