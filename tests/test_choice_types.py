"""Arithmetic on a choice follows the chosen operand's type, as under CPython.

``a if c else b``, ``max`` and ``min`` return the chosen operand with its own type, so
``1.5 + (0.1 if c else x32[i])`` is a float64 addition where ``0.1`` is chosen and a
float32 one where ``x32[i]`` is (fuzz finding 004).  polyopt hoists such a choice out of
the arithmetic around it, up to where its value is stored, converted or compared, and
types each copy as CPython does.  Each function below runs compiled (``strict_fp``, so
bit-exact) and under CPython; the results must be identical.  More than three such
choices in one statement are refused.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from progen import oracle
from progen.nodes import (
    ArrayArg,
    Assign,
    Bin,
    Call,
    Cmp,
    For,
    IfExp,
    Index,
    Name,
    Num,
    Program,
    SizeDef,
)

import polyopt

THIS_FILE = str(Path(__file__).resolve())
_LINES = Path(__file__).read_text().splitlines()

F32_07 = np.float32(0.7)  # below 0.7: float32 and float64 comparisons with 0.7 disagree


# --- the functions ---------------------------------------------------------------------------


def ifexp_f32_or_python_float(A, C):
    for i in range(A.shape[0]):
        A[i] = 1.5 + (0.1 if i % 3 == 0 else C[i])


def ifexp_python_float_or_f32_then_f32_store(A32, C):
    for i in range(A32.shape[0]):
        A32[i] = 0.1 * (C[i] if i % 2 == 0 else 0.3) - 0.2


def max_f32_python_float_times(A, C):
    for i in range(A.shape[0]):
        A[i] = 0.1 * max(C[i], 0.25)


def min_python_float_f32_divided(A, C):
    for i in range(A.shape[0]):
        A[i] = min(0.3, C[i]) / 3.0


def min_f32_f64_plus(A, C, D):
    for i in range(A.shape[0]):
        A[i] = 0.1 + min(C[i], D[i])


def ifexp_int_or_f32_plus_float_arg(A, C, x):
    for i in range(A.shape[0]):
        A[i] = x + (1 if i % 2 == 0 else C[i])


def ifexp_int_or_f32_plus_loop_variable(A, C):
    for i in range(A.shape[0]):
        A[i] = i * 0.1 + (i if i % 3 == 0 else C[i])


def max_int64_or_float_times_f32(A, K, C):
    for i in range(A.shape[0]):
        A[i] = C[i] * max(K[i], 1.5)


def max_int32_or_int_plus_int(K64, K32):
    for i in range(K64.shape[0]):
        K64[i] = 2000000000 + max(K32[i], 1)


def nested_ifexp(A, C, D):
    for i in range(A.shape[0]):
        A[i] = 1.5 + (0.1 if i % 3 == 0 else (C[i] if i % 3 == 1 else D[i]))


def nested_min_in_max(A, C, D):
    for i in range(A.shape[0]):
        A[i] = 0.1 * max(min(C[i], 0.3), D[i], 0.2)


def three_choices(A, C, D):
    for i in range(A.shape[0]):
        A[i] = (0.1 if i % 2 == 0 else C[i]) + (0.2 if i % 3 == 0 else D[i]) * max(C[i], 0.3)


def choice_compared(A, C):
    for i in range(A.shape[0]):
        A[i] = 1.0 if (0.5 if i % 4 == 0 else C[i]) < 0.7 else 0.0


def arithmetic_on_choice_compared(A, C):
    for i in range(A.shape[0]):
        A[i] = 2.0 if 0.1 * max(C[i], 0.5) >= 0.07 else -1.0


def augmented(A, C):
    for i in range(A.shape[0]):
        A[i] += 0.1 * (0.3 if i % 2 == 0 else C[i])


def data_dependent_test(A, C, D):
    for i in range(A.shape[0]):
        A[i] = 0.1 + (C[i] if D[i] > 0.0 else 0.3)


def negated_then_added(A, C):
    for i in range(A.shape[0]):
        A[i] = 0.1 - (-(0.3 if i % 2 == 0 else C[i]))


def np_function_of_choice(A, C):
    for i in range(A.shape[0]):
        A[i] = np.sqrt(abs(0.3 if i % 2 == 0 else C[i]))


def returned_arithmetic(C):
    s = 0.0
    for i in range(C.shape[0]):
        s = s + C[i]
    return 0.1 + (0.2 if C.shape[0] > 100 else C[0])


def f32(rng, n=64):
    x = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    x[[1, 2, 5, 7]] = (F32_07, np.float32(0.1), np.float32(-0.3), np.float32(0.25))
    return x


def f64(rng, n=64):
    return rng.uniform(-2.0, 2.0, n)


CASES = {
    "ifexp_f32_or_python_float": (ifexp_f32_or_python_float, lambda r: (np.zeros(64), f32(r))),
    "ifexp_python_float_or_f32_then_f32_store": (
        ifexp_python_float_or_f32_then_f32_store, lambda r: (np.zeros(64, np.float32), f32(r))),
    "max_f32_python_float_times": (max_f32_python_float_times, lambda r: (np.zeros(64), f32(r))),
    "min_python_float_f32_divided": (min_python_float_f32_divided,
                                     lambda r: (np.zeros(64), f32(r))),
    "min_f32_f64_plus": (min_f32_f64_plus, lambda r: (np.zeros(64), f32(r), f64(r))),
    "ifexp_int_or_f32_plus_float_arg": (ifexp_int_or_f32_plus_float_arg,
                                        lambda r: (np.zeros(64), f32(r), 0.1)),
    "ifexp_int_or_f32_plus_loop_variable": (ifexp_int_or_f32_plus_loop_variable,
                                            lambda r: (np.zeros(64), f32(r))),
    "max_int64_or_float_times_f32": (
        max_int64_or_float_times_f32,
        lambda r: (np.zeros(64), r.integers(-3, 4, 64).astype(np.int64), f32(r))),
    "max_int32_or_int_plus_int": (
        max_int32_or_int_plus_int,
        lambda r: (np.zeros(64, np.int64), r.integers(-10**9, 10**9, 64).astype(np.int32))),
    "nested_ifexp": (nested_ifexp, lambda r: (np.zeros(64), f32(r), f64(r))),
    "nested_min_in_max": (nested_min_in_max, lambda r: (np.zeros(64), f32(r), f64(r) - 1.0)),
    "three_choices": (three_choices, lambda r: (np.zeros(64), f32(r), f32(r))),
    "choice_compared": (choice_compared, lambda r: (np.zeros(64), f32(r))),
    "arithmetic_on_choice_compared": (arithmetic_on_choice_compared,
                                      lambda r: (np.zeros(64), f32(r))),
    "augmented": (augmented, lambda r: (f64(r), f32(r))),
    "data_dependent_test": (data_dependent_test, lambda r: (np.zeros(64), f32(r), f64(r))),
    "negated_then_added": (negated_then_added, lambda r: (np.zeros(64), f32(r))),
    "np_function_of_choice": (np_function_of_choice, lambda r: (np.zeros(64), f32(r))),
}


def _run(fn, args, compiled: bool):
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # int32 wrapping under CPython
        ret = (polyopt.jit(fn, strict_fp=True) if compiled else fn)(*args)
    return [a for a in args if isinstance(a, np.ndarray)], ret


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_matches_cpython_bit_for_bit(name):
    fn, make = CASES[name]
    args = make(np.random.default_rng(4))
    want, _ = _run(fn, args, compiled=False)
    got, _ = _run(fn, args, compiled=True)
    for w, g in zip(want, got, strict=True):
        assert g.dtype == w.dtype
        assert np.array_equal(g, w), (name, np.flatnonzero(g != w)[:5], g[g != w][:3], w[g != w][:3])


def test_the_cases_exercise_both_types():
    """Computed in one type, the cases above differ from CPython: they test something."""
    fn, make = CASES["ifexp_f32_or_python_float"]
    args = make(np.random.default_rng(4))
    want, _ = _run(fn, args, compiled=False)
    in_float64 = 1.5 + np.where(np.arange(64) % 3 == 0, 0.1, args[1].astype(np.float64))
    assert not np.array_equal(want[0], in_float64)
    fn, make = CASES["choice_compared"]
    want, _ = _run(fn, make(np.random.default_rng(4)), compiled=False)
    assert want[0][1] == 0.0  # float32(0.7) < 0.7 is False under NumPy, True in float64


def test_int32_choice_wraps_as_cpython():
    k = np.array([5, 10**9, -7, 2**31 - 1], dtype=np.int32)
    want, got = np.zeros(4, np.int64), np.zeros(4, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        max_int32_or_int_plus_int(want, k)
    polyopt.jit(max_int32_or_int_plus_int)(got, k)
    assert np.array_equal(got, want)
    assert got[1] < 0  # int32 arithmetic where K32[i] is chosen


def test_returned_choice_has_the_documented_static_type():
    """A returned value keeps one static type (README): the float32 result of
    ``0.1 + C[0]`` comes back as the Python float holding it."""
    C = np.array([0.3, 1.0, 2.0], dtype=np.float32)
    want = returned_arithmetic(C)
    got = polyopt.jit(returned_arithmetic, strict_fp=True)(C)
    assert isinstance(want, np.float32)
    assert type(got) is float and got == float(want)


# --- where the types agree nothing changes ----------------------------------------------------


def same_kind_choice(y, x):
    for i in range(y.shape[0]):
        y[i] = 1.5 + (x[i - 1] if i > 0 else 0.0)


def test_a_float64_or_python_float_choice_is_not_hoisted():
    """float64 and a Python float add in float64 either way: one addition in the C."""
    x = np.arange(8.0)
    src = polyopt.jit(same_kind_choice).c_source(np.zeros(8), x)
    body = [line for line in src.splitlines() if "y[i] = " in line]
    assert len(body) == 1 and body[0].count("1.5") == 2, body  # the code and its comment


def test_hoisted_choice_in_the_c():
    src = polyopt.jit(ifexp_f32_or_python_float).c_source(np.zeros(8), np.zeros(8, np.float32))
    line = next(ln for ln in src.splitlines() if "A[i] = " in ln)
    assert "(1.5 + 0.1)" in line and "((float)1.5) + C[i]" in line, line


# --- too many choices ----------------------------------------------------------------------


def where(marker: str, token: str) -> tuple[int, int]:
    """(line, 1-based column) of ``token`` on the line marked ``# !marker``."""
    hits = [k for k, line in enumerate(_LINES, 1) if re.search(rf"# !{marker}\b", line)]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    line = _LINES[hits[0] - 1]
    assert token in line, f"{token!r} not on line {hits[0]}: {line!r}"
    return hits[0], line.index(token) + 1


def four_choices(A, C):
    for i in range(A.shape[0]):
        A[i] = (1.5 + (0.1 if i % 2 == 0 else C[i]) + (0.2 if i % 3 == 0 else C[i])
                + (0.3 if i % 5 == 0 else C[i]) + max(C[i], 0.4))  # !four


def test_more_than_three_choices_are_refused():
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(four_choices)(np.zeros(8), np.zeros(8, np.float32))
    e = info.value
    line, col = where("four", "max(")
    assert (e.filename, e.lineno, e.offset) == (THIS_FILE, line, col)
    assert len(e.problems) == 1
    p = e.problems[0]
    assert (p.location.line, p.location.col) == (line, col)
    assert p.construct == "`max(C[i], 0.4)`"
    assert "choice number 4" in p.reason
    assert "at most 3 choices (8 copies)" in p.reason
    assert "`float(x[i]) if c else 0.5`" in p.reason and "float(max(x[i], 0.5))" in p.reason
    assert f"{THIS_FILE}:{line}:{col}" in str(p)
    caret = p.location.caret().splitlines()
    assert caret[1].index("^") - 4 == col - 1


def four_choices_converted(A, C):
    for i in range(A.shape[0]):
        A[i] = (1.5 + (0.1 if i % 2 == 0 else C[i]) + (0.2 if i % 3 == 0 else C[i])
                + (0.3 if i % 5 == 0 else C[i]) + float(max(C[i], 0.4)))


def test_the_advice_works():
    C = np.random.default_rng(1).uniform(-1, 1, 32).astype(np.float32)
    want, got = np.zeros(32), np.zeros(32)
    four_choices_converted(want, C)
    polyopt.jit(four_choices_converted, strict_fp=True)(got, C)
    assert np.array_equal(got, want)


# --- the fuzzer's oracle agrees ------------------------------------------------------------


def test_oracle_expects_cpython_for_choices_and_the_static_type_for_locals():
    """The fuzzer compares arithmetic on a choice bit for bit (polyopt follows CPython);
    a local variable holding a choice of two types that a later statement computes on
    has the README's one static type, so that program is compared within the error
    bound; a returned choice may come back as the Python scalar holding its value."""
    i = Name("i")
    x32 = Index("A", (i,))
    choice = IfExp(Cmp("<", i, Num(2)), Num(0.1), x32)

    def program(*body, ret=None, dtype="float32"):
        loop = For("i", Num(0), Name("n"), 1, tuple(body))
        return Program((ArrayArg("A", dtype, ("n",)), ArrayArg("B", "float64", ("n",))), (),
                       {"n": 8}, (SizeDef("n", "A", 0),), (), (Assign(Name("s"), "", Num(0.0)),
                                                                loop), ret)

    store = Index("B", (i,))
    exact = [
        program(Assign(store, "", Bin("+", Num(1.5), choice))),  # finding 004
        program(Assign(Name("t"), "", choice), Assign(store, "", Name("t"))),
        program(Assign(Name("s"), "+", x32), ret=Bin("+", Name("s"), Num(1.0))),  # float32 s
        program(Assign(Name("s"), "", Call("max", (Name("s"), x32))), ret=Name("s")),
        program(Assign(Name("t"), "", choice), Assign(store, "", Bin("*", Name("t"), Num(0.5))),
                dtype="float64"),
    ]
    within_bound = [
        program(Assign(Name("t"), "", choice), Assign(store, "", Bin("*", Name("t"), Num(0.5)))),
        program(Assign(Name("s"), "", Call("max", (Name("s"), x32))),
                ret=Bin("*", Name("s"), Num(2.0))),
    ]
    assert all(oracle.bit_exact_possible(p) for p in exact)
    assert not any(oracle.bit_exact_possible(p) for p in within_bound)
    assert oracle._documented_choice(np.float32(0.1), float(np.float32(0.1)))
    assert oracle._documented_choice(np.int32(7), 7)
    assert not oracle._documented_choice(np.float32(0.1), 0.1)
    # a value computed from such a local has the local's type, its value within the bound
    computed = np.float64(1.5000001)
    assert oracle._compare_return(np.float32(1.5), computed, None, 2.0**-24, False,
                                  static_local=True) is None
    assert "type float64 but CPython gives float32" in oracle._compare_return(
        np.float32(1.5), computed, None, 2.0**-24, False)


# np.maximum/np.minimum of a float are NaN-aware calls; an operand chosen by max()/min()
# or `a if c else b` may be an int, and that copy of the statement called
# polyopt_maximum_i64, which no prelude defines: the kernel did not load (hostile
# session 37b, finding 01)
def ufunc_of_choice_max(a, x):
    for i in range(a.shape[0]):
        a[i] = np.maximum(3, max(x[i], 2.0))


def ufunc_of_choice_min(a, x):
    for i in range(a.shape[0]):
        a[i] = np.minimum(3, min(x[i], 2.0))


def clip_of_choice(a, x):
    for i in range(a.shape[0]):
        a[i] = np.clip(max(x[i], 2.0), 3, 4)


def ufunc_of_select(a, x):
    for i in range(a.shape[0]):
        a[i] = np.maximum(3, x[i] if i > 1 else 2.0) * 0.5


def ufuncs_with_nan(a, x):
    for i in range(a.shape[0]):
        a[i] = np.maximum(max(x[i], 2.5), 3.0 * x[i]) + np.minimum(np.nan, max(x[i], 2.0))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float64])
@pytest.mark.parametrize("fn", [ufunc_of_choice_max, ufunc_of_choice_min, clip_of_choice,
                                ufunc_of_select, ufuncs_with_nan])
def test_a_numpy_maximum_of_an_operand_chosen_as_an_int(fn, dtype) -> None:
    x = np.array([1, 5, 0, 3, 2], dtype)
    want, got = np.zeros(5), np.zeros(5)
    fn(want, x.copy())
    polyopt.jit(fn)(got, x)
    np.testing.assert_array_equal(got, want)


def min_of_minus_one_stored(B, C):
    for i in range(B.shape[0]):
        B[i] = min(-1, C[i])


def min_of_200_stored(B, C):
    for i in range(B.shape[0]):
        B[i] = min(200, C[i])


def max_of_three_stored(B, C, D):
    for i in range(B.shape[0]):
        B[i] = max(C[i], 70000, D[i])


@pytest.mark.parametrize(("fn", "target", "source"), [
    (min_of_minus_one_stored, np.uint16, np.int32),
    (min_of_200_stored, np.int8, np.int16),
])
def test_a_stored_min_that_chooses_a_python_int_checks_it(fn, target, source):
    """``min(-1, C32[i])`` is the Python int -1 where ``C32[i] >= -1``, which NumPy
    cannot store in a uint16 array (OverflowError), and ``C32[i]`` itself elsewhere,
    which it stores (hostile40a finding 1: the choice was stored unchecked)."""
    B = np.zeros(3, target)
    C = np.array([300, 7, 250], dtype=source)
    with pytest.raises(OverflowError):
        fn(B.copy(), C)
    with pytest.raises(OverflowError):
        polyopt.jit(fn)(B.copy(), C)
    small = np.array([-5, -3, -2], dtype=source)  # min chooses C[i] (< -1 and < 200)
    want, got = B.copy(), B.copy()
    if target is np.uint16:  # NumPy 2 stores a negative int16 in uint16 by wrapping
        want[:] = small
    else:
        fn(want, small)
    polyopt.jit(fn)(got, small)
    assert np.array_equal(got, want)


def test_a_stored_max_of_three_checks_only_the_python_int_it_chooses():
    B = np.zeros(2, np.uint16)
    C = np.array([1, 80000], dtype=np.int32)
    D = np.array([0, 5], dtype=np.int32)
    with pytest.raises(OverflowError):  # max(1, 70000, 0) is the Python int 70000
        polyopt.jit(max_of_three_stored)(B.copy(), C, D)
    C[0] = 100000  # each max is an int32 now, which NumPy wraps into uint16
    want, got = B.copy(), B.copy()
    max_of_three_stored(want, C, D)
    polyopt.jit(max_of_three_stored)(got, C, D)
    assert np.array_equal(got, want) and want[0] == 100000 % 2**16
