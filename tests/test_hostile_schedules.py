"""User schedules and tuning results as a careless user handles them (second
hostile-user round): every name ``Schedule.loops()`` lists is one a step accepts, odd
arguments are refused with ``ScheduleFormatError`` or taken as what they mean, and what
is accepted computes what Python does."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt.model.errors import PolyoptError, ScheduleFormatError
from polyopt.user_schedule import Schedule


def gemm(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] *= beta
            for k in range(A.shape[1]):
                C[i, j] += alpha * A[i, k] * B[k, j]


def _gemm_args() -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return 1.5, 1.2, rng.random((23, 19)), rng.random((23, 17)), rng.random((17, 19))


def _same_as_python(sched: Schedule) -> None:
    alpha, beta, C, A, B = _gemm_args()
    want = C.copy()
    gemm(alpha, beta, want, A, B)
    sched.compile()(alpha, beta, C, A, B)
    np.testing.assert_allclose(C, want, rtol=1e-13)


def test_every_listed_loop_name_is_one_loop() -> None:
    """The automatic gemm schedule packs both operands, and each packing copy runs a
    ``k`` loop beside gemm's own: loops() listed ``k`` three times, and every step on
    ``k`` was refused as naming several loops, with those same names as the advice."""
    kernel = polyopt.jit(gemm)
    kernel(*_gemm_args())
    sched = polyopt.schedule(kernel, start="auto")
    names = sched.loops()
    assert len(set(names)) == len(names), names
    for name in names:
        sched.parallelize(name)  # resolves to one loop (legal or not is checked later)
    with pytest.raises(PolyoptError, match="names several loops") as err:
        sched.tile("k", 4)
    advice = str(err.value).split("use one of: ")[1].split(", ")
    assert advice == names


def test_loops_named_by_id_run_right_after_a_json_round_trip() -> None:
    kernel = polyopt.jit(gemm)
    kernel(*_gemm_args())
    sched = polyopt.schedule(kernel, start="auto")
    by_id = [n for n in sched.loops() if n.startswith("L")]  # the k loops' ids
    assert len(by_id) == 3, sched.loops()
    for name in by_id:
        _same_as_python(Schedule.from_json(kernel, sched.parallelize(name).to_json()))


def test_numpy_int_arguments_are_ints() -> None:
    """A tile size or factor computed from NumPy values (``np.int64``) was refused as
    'argument 2 must be a list of int tile sizes, not (np.int64(4), 8)', though
    ``@polyopt.jit(tile=np.int64(8))`` takes one; the JSON keeps Python ints."""
    kernel = polyopt.jit(gemm)
    kernel(*_gemm_args())
    sched = polyopt.schedule(kernel)
    tiled = sched.tile(["i", "j"], [np.int64(4), np.int32(8)]).skew("i", "j", np.int16(1))
    assert str(tiled) == str(sched.tile(["i", "j"], [4, 8]).skew("i", "j", 1))
    assert tiled.to_json() == sched.tile(["i", "j"], [4, 8]).skew("i", "j", 1).to_json()
    assert str(sched.tile("i", np.uint8(4))) == str(sched.tile("i", 4))
    _same_as_python(Schedule.from_json(kernel, sched.unroll_jam("i", np.int64(2)).to_json()))


@pytest.mark.parametrize("bad", [np.float64(4.0), np.bool_(True), True, "4"])
def test_non_int_sizes_are_refused(bad: object) -> None:
    sched = polyopt.schedule(polyopt.jit(gemm))
    with pytest.raises(ScheduleFormatError, match="int tile sizes"):
        sched.tile(["i", "j"], [bad, 8])


def axpy(a, x, y):
    for i in range(x.shape[0]):
        y[i] += a * x[i]


def test_tune_load_takes_the_json_text(tmp_path) -> None:
    """`polyopt.tune.load(result.to_json(), kernel)` (as Schedule.from_json takes text)
    raised a raw OSError, 'File name too long', treating the JSON as a file name."""
    kernel = polyopt.jit(axpy)
    x, y = np.arange(64.0), np.zeros(64)
    result = polyopt.tune(kernel, 2.0, x, y, budget=0.5)
    text = result.to_json()
    assert polyopt.tune.load(text, kernel).chosen == result.chosen
    (tmp_path / "t.json").write_text(text)
    assert polyopt.tune.load(str(tmp_path / "t.json"), kernel).chosen == result.chosen
    with pytest.raises(ValueError):
        polyopt.tune.load("{not json", kernel)

