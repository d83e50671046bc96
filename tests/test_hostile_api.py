"""The Python faces as a hostile or careless user calls them (issue 13, section 3, fourth
round): signatures with bool scalars, Numba's other options, ``polyopt.jit`` of a kernel,
``polyopt.tune``'s budget and stores, thread counts, the integer contract as the README
states it, masked arrays.  The right answer or a clear error."""

from __future__ import annotations

import numpy as np
import pytest
from hostile_files import scale

import polyopt
from polyopt.kernel import threads
from polyopt.model.signature import parse_declared
from polyopt.tuner import measure

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


# --- the tuner's budget, and its output --------------------------------------------------
# budget=True was taken for 1 second (a bool is an int), and a NumPy number
# (np.int64(5), a budget read from an array) was refused as "not a positive number".

def test_tune_budget_must_be_a_number_not_a_bool() -> None:
    with pytest.raises(ValueError, match="budget must be a positive number of seconds, not True"):
        polyopt.tune(polyopt.jit(scale), np.arange(4.0), 2.0, budget=True)


@pytest.mark.parametrize("budget", [np.float64(0.01), np.float32(0.01)])
def test_tune_budget_may_be_a_numpy_number(budget: object) -> None:
    result = polyopt.tune(polyopt.jit(scale), np.arange(4.0), 2.0, budget=budget, store=False)
    assert result.budget == pytest.approx(0.01) and isinstance(result.budget, float)
    assert result.trials[0].status == "ok"


# --- Numba's other @njit options ----------------------------------------------------------
# "@polyopt.jit takes Numba's options": @njit(boundscheck=True) or inline="never" was
# "TypeError: jit() got an unexpected keyword argument", so such a kernel needed more than
# its import changed.

def test_numba_boundscheck_and_inline_are_accepted() -> None:
    kernel = polyopt.jit(boundscheck=True, inline="never", error_model="python")(scale)
    x = np.arange(5.0)
    kernel(x, 2.0)
    assert x.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    polyopt.jit(boundscheck=None, inline="always")(scale)


@pytest.mark.parametrize("options, error, match", [
    ({"error_model": "numpy"}, ValueError, "error_model must be 'python'"),
    ({"inline": "sometimes"}, ValueError, "inline must be 'never' or 'always'"),
    ({"boundscheck": "yes"}, TypeError, "boundscheck must be True or False"),
])
def test_numba_options_polyopt_does_not_do_are_refused(options: dict[str, object],
                                                       error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        polyopt.jit(**options)(scale)  # type: ignore[arg-type]


def divide(a, b):
    return a / b


def test_float_division_by_zero_is_numpy_s_as_documented() -> None:
    kernel = polyopt.jit(divide)
    assert kernel(1.0, 0.0) == np.inf and np.isnan(kernel(0.0, 0.0))
    assert kernel(-1, 0) == -np.inf


# --- polyopt.jit of a kernel ----------------------------------------------------------------
# polyopt.jit(gemm) where gemm is already a kernel (the README's "a new polyopt.jit(gemm)",
# or new options: polyopt.jit(parallel=False)(gemm)) failed at its first call inside
# inspect: "TypeError: module, class, method, function ... was expected, got Kernel".

def test_jit_of_a_kernel_compiles_its_function_with_the_new_options() -> None:
    first = polyopt.jit(scale)
    for again in (polyopt.jit(first), polyopt.jit(parallel=False)(first),
                  polyopt.jit("void(f8[:], f8)")(first)):
        x = np.arange(4.0)
        again(x, 3.0)
        assert x.tolist() == [0.0, 3.0, 6.0, 9.0] and again.py_func is scale
    serial = polyopt.jit(parallel=False)(first)
    assert "omp parallel" not in serial.c_source(np.arange(4.0), 3.0)
    assert "omp parallel" in first.c_source(np.arange(4.0), 3.0)


# polyopt.tune of a cache=False kernel stored nothing, without a word (polyopt.tune.load
# warns in that case): later calls ran the default options.

def test_tune_of_an_uncached_kernel_says_nothing_is_stored() -> None:
    kernel = polyopt.jit(cache=False)(scale)
    with pytest.warns(RuntimeWarning, match=r"cache=False.*the choice is not stored"):
        result = polyopt.tune(kernel, np.arange(4.0), 2.0, budget=0.01)
    assert result.trials[0].status == "ok"


# polyopt.tune refuses a kernel that follows a user schedule, but polyopt.tune.load stored
# a choice for one, which its builds then used on top of the user's steps.

def test_tune_load_refuses_a_scheduled_kernel() -> None:
    kernel = polyopt.jit(scale)
    x = np.arange(4.0)
    result = polyopt.tune(kernel, x, 2.0, budget=0.01, store=False)
    scheduled = polyopt.schedule(kernel).parallelize("i").compile()
    with pytest.raises(ValueError, match="follows a user schedule"):
        polyopt.tune.load(result, scheduled)
    with pytest.raises(ValueError, match="follows a user schedule"):
        polyopt.tune(scheduled, x, 2.0, budget=0.01)


# set_num_threads(np.int64(4)) (a count computed with NumPy) and num_threads=np.int64(2)
# were "must be an int"; Numba's set_num_threads takes NumPy integers.

def test_thread_counts_may_be_numpy_integers() -> None:
    before = polyopt.get_num_threads()
    try:
        polyopt.set_num_threads(np.int64(2))
        assert polyopt.get_num_threads() == 2
    finally:
        polyopt.set_num_threads(before)
    kernel = polyopt.jit(num_threads=np.int32(2))(scale)
    x = np.arange(3.0)
    kernel(x, 2.0)
    assert x.tolist() == [0.0, 2.0, 4.0] and kernel.num_threads == 2
    for bad in (True, np.bool_(True), 2.0):
        with pytest.raises(TypeError, match="must be an int"):
            polyopt.set_num_threads(bad)


# --- the integer contract as the README states it --------------------------------------------
# The README said `**` wraps on ints without saying the exponent must be a constant, and
# that INT64_MIN // -1 is INT64_MIN, which holds for array elements while an int argument
# that large is refused as a size: both now said.

def floordiv_elements(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // b[i]


def floordiv_args(a, b):
    return a // b


def int_power(a, out, k):
    for i in range(a.shape[0]):
        out[i] = a[i] ** k


def test_int64_min_floordiv_minus_one_in_arrays_and_as_arguments() -> None:
    a = np.array([-2**63, 7], np.int64)
    out = np.zeros(2, np.int64)
    polyopt.jit(floordiv_elements)(a, np.array([-1, -2], np.int64), out)
    assert out.tolist() == [-2**63, -4]
    with pytest.raises(OverflowError, match="is too large"):
        polyopt.jit(floordiv_args)(np.int64(-2**63), np.int64(-1))


def test_int_power_by_a_run_time_exponent_is_refused() -> None:
    with pytest.raises(polyopt.UnsupportedError, match="exponent must be a non-negative"):
        polyopt.jit(int_power)(np.arange(3), np.zeros(3, np.int64), 2)


# --- a masked array -------------------------------------------------------------------------
# np.ma.array([1, 2, 100], mask=[0, 0, 1]) was summed as 103.0, the masked-out element
# included, where the Python function gives `masked`: a silent difference. Refused at the
# call, on the first call and on the warm path alike.

def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def test_masked_arrays_are_refused() -> None:
    masked = np.ma.array([1.0, 2.0, 100.0], mask=[False, False, True])
    with pytest.raises(TypeError, match=r"masked arrays \(np.ma\) are not supported"):
        polyopt.jit(total)(masked)
    kernel = polyopt.jit(total)
    assert kernel(np.ones(3)) == kernel(np.ones(3)) == 3.0  # warm: the fast path is set
    with pytest.raises(TypeError, match="argument 'x' is a masked array"):
        kernel(masked)
    assert kernel(masked.filled(0.0)) == 3.0


# polyopt.tune compared float16 outputs within a relative 1e-9 (the float64 tolerance): a
# float16 sum summed in another order (a parallel or SIMD reduction, which the README
# allows) was "wrong" and discarded with a warning, every time.

def test_tune_compares_float16_within_float16s_precision() -> None:
    rng = np.random.default_rng(3)
    x = rng.random(4096).astype(np.float16)
    in_order = np.float16(0.0)
    for v in x:
        in_order = np.float16(in_order + v)
    halves = np.float16(np.float16(x[:2048].sum()) + np.float16(x[2048:].sum()))
    assert in_order != halves  # the two orders do differ in float16
    assert measure.difference((in_order,), (halves,), ["s"]) is None
    assert measure.difference((in_order,), (np.float16(in_order * 1.1),), ["s"]) is not None


# polyopt.tune timed a @polyopt.jit(num_threads=1) kernel on the default team (every core):
# the choice it stored for the kernel was measured on a team the kernel never runs on.

def test_tune_times_a_kernel_on_its_own_team(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    run = measure.run

    def spy(call: measure.Call, args: tuple[object, ...]) -> tuple[measure.Outputs, float]:
        seen.extend(rt.omp_get_max_threads() for rt in threads._openmp()[:1])
        return run(call, args)

    monkeypatch.setattr(measure, "run", spy)
    kernel = polyopt.jit(num_threads=1)(scale)
    polyopt.tune(kernel, np.arange(4.0), 2.0, budget=0.01, store=False)
    assert seen and set(seen) == {1}
