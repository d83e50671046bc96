"""``polyopt.tune``: every candidate it keeps computes what the untuned kernel computes
(and what CPython computes), a candidate whose result differs is discarded, the choice
is stored with the cache entry and reused by a new kernel, a corrupt stored choice is
ignored with a warning, and the JSON result round-trips.  Nothing here asserts on time.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import assert_same_value
from kernels import gemm
from kernels import jacobi_2d as jacobi2d
from polyopt.backend_c import build, tuned
from polyopt.backend_c.tuned import BadChoice, Choice
from polyopt.backend_c.work import parallel_min_fixed, parallel_min_instances
from polyopt.frontends.python_types import type_of_value

import polyopt
from bench import tune_suite
from polyopt.cli import command as cli
from polyopt.kernel import Kernel
from polyopt.model.options import Options
from polyopt.model.signature import Signature
from polyopt.tuner import TuneResult, search, space


def gemm_args(rng: np.random.Generator, n: int = 19) -> tuple[Any, ...]:
    return (1.5, 1.2, rng.random((n, n + 3)), rng.random((n, n - 2)), rng.random((n - 2, n + 3)))


def jacobi_args(rng: np.random.Generator, n: int = 23) -> tuple[Any, ...]:
    return (5, rng.random((n, n)), rng.random((n, n)))


def signature(fn: Any, args: tuple[Any, ...]) -> Signature:
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    return Signature(tuple((n, type_of_value(a)) for n, a in zip(names, args, strict=True)))


def python_result(fn: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    mine = copy.deepcopy(args)
    fn(*mine)
    return mine


def compiled_result(choice: Choice, fn: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    call, _ = search.compile_choice(Kernel(fn, Options()), signature(fn, args), choice)
    mine = copy.deepcopy(args)
    call(mine)
    return mine


def same(expected: tuple[Any, ...], actual: tuple[Any, ...], what: str) -> None:
    for k, (e, a) in enumerate(zip(expected, actual, strict=True)):
        if isinstance(e, np.ndarray):
            assert_same_value(e, a, f"{what}, argument {k}")


# a few values of each axis, so that a test tries them all well inside its budget
SMALL_AXES = [("parallel_min", (0,)), ("fuse", ("max",)), ("tile", ((4, 8), (8, 16, 8))),
              ("unroll_jam", ((2, 4), (3, 5), False))]


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A cache directory per test: a stored choice changes what later kernels of the same
    function and signature build (and their ``c_source``), in other test files too."""
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def small_space(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(space, "axes", lambda base, sig: SMALL_AXES)


@pytest.mark.parametrize("fn, make", [(gemm, gemm_args), (jacobi2d, jacobi_args)],
                         ids=["gemm", "jacobi-2d"])
def test_every_kept_candidate_computes_the_untuned_result(small_space, rng, fn, make):
    args = make(rng)
    before = copy.deepcopy(args)
    result = polyopt.tune(fn, *args, budget=120)
    ok = [t for t in result.trials if t.status == "ok"]
    assert len(ok) >= 2 and result.chosen in {t.choice for t in ok}
    assert not result.rejected
    expected = python_result(fn, args)
    for t in ok:  # each choice again, built on its own, against CPython
        same(expected, compiled_result(t.choice, fn, args), f"{fn.__name__} with {t.choice}")
    same(before, args, "the user's arguments, left as they were")


def test_tiny_budget_still_returns_a_checked_choice(rng):
    args = jacobi_args(rng)
    result = polyopt.tune(jacobi2d, *args, budget=0.01)
    assert result.trials[0].choice == result.default
    same(python_result(jacobi2d, args), compiled_result(result.chosen, jacobi2d, args),
         "jacobi-2d tuned")


def test_keyword_arguments_are_passed_as_a_call_passes_them(rng):
    """Hostile session 47a, finding 03: `polyopt.tune(k, a, scale=3.0)` raised
    "Tune.__call__() got an unexpected keyword argument 'scale'"."""
    args = jacobi_args(rng)
    by_name = polyopt.tune(jacobi2d, args[0], A=args[1], B=args[2], budget=0.01, store=False)
    positional = polyopt.tune(jacobi2d, *args, budget=0.01, store=False)
    assert by_name.signature == positional.signature
    with pytest.raises(TypeError, match="unexpected keyword argument 'C'"):
        polyopt.tune(jacobi2d, *args, C=1, budget=0.01, store=False)


def test_a_candidate_with_a_wrong_result_is_discarded(monkeypatch, rng):
    bad = (8, 8)
    monkeypatch.setattr(space, "axes", lambda base, sig: [("tile", (bad,))])
    real = search.compile_choice

    def corrupting(kernel: Kernel, sig: Signature, choice: Choice) -> tuple[Any, str]:
        call, library = real(kernel, sig, choice)
        if choice.options.tile != bad:
            return call, library

        def wrong(args: tuple[Any, ...]) -> object:
            out = call(args)
            args[2][1, 2] += 1e-6  # C, off by far more than rounding
            return out
        return wrong, "corrupted"

    monkeypatch.setattr(search, "compile_choice", corrupting)
    with pytest.warns(RuntimeWarning, match=r"candidate discarded"):
        result = polyopt.tune(gemm, *gemm_args(rng), budget=60)
    assert [t.status for t in result.trials] == ["ok", "wrong"]
    assert "C[1, 2]" in result.rejected[0].detail
    assert result.chosen == result.default


def test_the_stored_choice_is_used_by_a_new_kernel(small_space, rng):
    args = gemm_args(rng)
    result = polyopt.tune(gemm, *args, budget=120)
    sig = signature(gemm, args)
    front = Kernel(gemm, Options()).cache_key(sig)
    assert front is not None
    assert tuned.load(front, Options()) == result.chosen
    # replay a choice no candidate built (so only the stored choice can build it)
    forced = Choice(Options(tile=(8, 16, 8), unroll_jam=(3, 5), fuse="none"), 12345)
    polyopt.tune.load(dataclasses.replace(result, chosen=forced), gemm)
    with parallel_min_fixed(forced.parallel_min):
        target = Kernel(gemm, forced.options).cache_key(sig)
    index_entry = build.cache_root() / "index" / f"{target}.json"
    assert not index_entry.exists()
    fresh = polyopt.jit(gemm)
    mine = copy.deepcopy(args)
    fresh(*mine)
    assert index_entry.exists()
    same(python_result(gemm, args), mine, "gemm with the stored choice")


@pytest.mark.parametrize("corrupt", [
    lambda text: text[: len(text) // 2],
    lambda text: text.replace('"fuse": "', '"fuse": "x'),
    lambda text: json.dumps(_resigned(json.loads(text), tile=[0])),
    lambda text: json.dumps(_resigned(json.loads(text), colour="red")),
    lambda text: json.dumps(_resigned(json.loads(text), fastmath=True)),
], ids=["truncated", "hash", "bad-tile", "unknown-option", "fastmath"])
def test_a_corrupt_stored_choice_is_ignored_with_a_warning(small_space, rng, corrupt):
    args = jacobi_args(rng)
    sig = signature(jacobi2d, args)
    front = Kernel(jacobi2d, Options()).cache_key(sig)
    assert front is not None
    tuned.store(front, Choice(Options(tile=(4, 8)), parallel_min_instances()))
    path = build.cache_root() / "tuned" / f"{front}.json"
    path.write_text(corrupt(path.read_text()))
    mine = copy.deepcopy(args)
    with pytest.warns(RuntimeWarning, match=r"ignoring the tuned options"):
        polyopt.jit(jacobi2d)(*mine)
    assert not path.exists()
    same(python_result(jacobi2d, args), mine, "jacobi-2d after a corrupt tuned entry")


def _resigned(entry: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The entry with options changed and its hash made to match again."""
    entry["choice"]["options"].update(changes)
    entry["sha256"] = tuned._digest(entry["choice"])
    return entry


def test_json_round_trips_and_refuses_what_it_did_not_write(small_space, rng):
    result = polyopt.tune(gemm, *gemm_args(rng), budget=60, store=False)
    text = result.to_json()
    again = TuneResult.from_json(text)
    assert again == result and again.to_json() == text
    assert "trials" in result.summary() and result.speedup > 0
    doc = json.loads(text)
    for broken in ({**doc, "polyopt_tune": 2}, {**doc, "chosen": {"options": {}}},
                   {**doc, "trials": [{**doc["trials"][0], "status": "fast"}]},
                   {k: v for k, v in doc.items() if k != "signature"}):
        with pytest.raises(BadChoice):
            TuneResult.from_json(json.dumps(broken))
    with pytest.raises(ValueError, match="not jacobi_2d"):
        polyopt.tune.load(result, jacobi2d)


def test_unroll_jam_factors_are_checked():
    assert Options(unroll_jam=[np.int64(2), 4]).unroll_jam == (2, 4)
    with pytest.raises(ValueError, match="unroll_jam"):
        Options(unroll_jam=(0, 4))
    with pytest.raises(ValueError, match="unroll_jam"):
        Options(unroll_jam=(2, 65))
    with pytest.raises(TypeError, match="unroll_jam"):
        Options(unroll_jam=(2, 4, 1))
    with pytest.raises(TypeError, match="unroll_jam"):
        Options(unroll_jam="yes")


@pytest.mark.parametrize("factors", [(1, 1), (2, 3), (5, 12)])
def test_unroll_jam_factors_compute_gemm(rng, factors):
    """A register tile of any shape, on sizes that leave ragged edges, against CPython."""
    args = gemm_args(rng, 17)
    k = polyopt.jit(gemm, unroll_jam=factors, tile=(8, 16, 8))
    mine = copy.deepcopy(args)
    k(*mine)
    same(python_result(gemm, args), mine, f"gemm unroll_jam={factors}")
    n = factors[0] * factors[1]  # one register accumulator per element of a tile
    text = k.c_source(*args)
    assert n == 1 or (f"C_acc{n - 1} =" in text and f"C_acc{n} =" not in text)


def test_the_parallel_threshold_is_fixed_while_generating():
    with parallel_min_fixed(4321):
        assert parallel_min_instances() == 4321
        text = polyopt.jit(gemm).c_source(*gemm_args(np.random.default_rng(0)))
    assert ">= 4321.0" in text
    assert parallel_min_instances() != 4321


def test_cli_tune_writes_a_replayable_result(small_space, tmp_path: Path, capsys):
    src = tmp_path / "kern.py"
    src.write_text("import polyopt\n\n\n@polyopt.jit\n" + inspect.getsource(gemm))
    out = tmp_path / "gemm.tune.json"
    rc = cli.main(["tune", str(src), "--signature",
                   "float64, float64, float64[:,:], float64[:,:], float64[:,:]",
                   "--size", "9", "--budget", "60", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    result = TuneResult.from_json(out.read_text())
    assert result.function == "gemm" and result.signature.startswith("float64, float64")
    assert "chosen" in capsys.readouterr().err
    assert cli.main(["tune", str(src), "--size", "9"]) == 2  # --signature is required
    c_file = tmp_path / "k.c"
    c_file.write_text("void f(void) {}\n")
    assert cli.main(["tune", str(c_file), "--signature", "float64"]) == 2


def test_bench_tune_suite_runs_at_mini(small_space, tmp_path: Path):
    rows = tune_suite.run("MINI", ["gemm"], 60, 3, tmp_path)
    assert [r.kernel for r in rows] == ["gemm"] and rows[0].trials >= 2
    TuneResult.from_json((tmp_path / "tune" / "gemm.tune.json").read_text())
    assert "| gemm |" in tune_suite.markdown(rows, "MINI", 60, [])


def test_reports_and_c_show_the_tuned_build(small_space, rng):
    args = gemm_args(rng)
    sig = signature(gemm, args)
    forced = Choice(Options(tile=(8, 16, 8), unroll_jam=False, fuse="none"), 12345)
    before = polyopt.jit(gemm, cache=False).c_source(*args)
    with parallel_min_fixed(forced.parallel_min):
        expected = polyopt.jit(gemm, tile=(8, 16, 8), unroll_jam=False, fuse="none").c_source(*args)
    assert expected != before
    result = polyopt.tune(gemm, *args, budget=0.01, store=False)
    polyopt.tune.load(dataclasses.replace(result, chosen=forced), gemm)
    front = Kernel(gemm, Options()).cache_key(sig)
    assert front is not None and tuned.load(front, Options()) == forced
    fresh = polyopt.jit(gemm)
    assert fresh.c_source(*args) == expected  # what calls build and run
    assert "16" in str(fresh.report(*args))  # the tile sizes applied are reported
    assert polyopt.jit(gemm, cache=False).c_source(*args) == before  # no cache, no tuning


def test_a_kernel_built_before_a_choice_is_stored_shows_the_build_it_runs(rng):
    # it keeps running its build, but its c_source() and report() showed the tuned code,
    # which it does not run (hostile user, round 4)
    args = gemm_args(rng)
    forced = Choice(Options(tile=(8, 16, 8), unroll_jam=False, fuse="none"), 12345)
    early = polyopt.jit(gemm)
    early(*copy.deepcopy(args))
    runs = early.c_source(*args)
    result = polyopt.tune(gemm, *args, budget=0.01, store=False)
    polyopt.tune.load(dataclasses.replace(result, chosen=forced), gemm)
    assert polyopt.jit(gemm).c_source(*args) != runs  # a new kernel builds the choice
    assert early.c_source(*args) == runs
    mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
    early(*mine)
    gemm(*theirs)
    same(theirs, mine, "the early kernel after the choice was stored")


GEMM_DECLARED = "void(f8, f8, f8[:, :], f8[:, :], f8[:, :])"


def test_a_declared_kernel_is_tuned_for_the_signature_its_calls_run(rng):
    # gemm declared with f8 scalars and called with ints: the call converts them to f8,
    # but the tuner tuned and stored the (int, int, ...) specialization, which the kernel
    # never compiles, so its calls never used the choice (hostile user, round 4)
    args = (3, 2, *gemm_args(rng)[2:])
    kernel = polyopt.jit(GEMM_DECLARED)(gemm)
    result = polyopt.tune(kernel, *args, budget=0.01, store=False)
    assert result.signature == "float64, float64, float64[:, :], float64[:, :], float64[:, :]"
    forced = Choice(Options(tile=(8, 16, 8), unroll_jam=False, fuse="none"), 12345)
    before = kernel.c_source(*args)
    polyopt.tune.load(dataclasses.replace(result, chosen=forced), kernel)
    fresh = polyopt.jit(GEMM_DECLARED)(gemm)
    assert fresh.c_source(*args) != before  # its calls build the choice
    mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
    fresh(*mine)
    gemm(*theirs)
    same(theirs, mine, "the declared kernel with the tuned choice")
    with pytest.raises(TypeError, match="has no compiled signature"):
        polyopt.tune(kernel, 1.5, 1.2, *(a.astype(np.float32) for a in args[2:]), budget=0.01)


def test_a_budget_without_limit_writes_standard_json(small_space, rng):
    result = polyopt.tune(jacobi2d, *jacobi_args(rng), budget=math.inf, store=False)

    def refuse(name: str) -> None:
        raise ValueError(f"not standard JSON: {name}")

    text = result.to_json()
    assert json.loads(text, parse_constant=refuse)["budget_s"] is None
    assert TuneResult.from_json(text).budget == math.inf
    # an int float cannot hold is no limit too (it raised OverflowError)
    assert polyopt.tune(jacobi2d, *jacobi_args(rng), budget=10**400, store=False).budget == math.inf
    with pytest.raises(ValueError, match="budget must be a positive number"):
        polyopt.tune(jacobi2d, *jacobi_args(rng), budget=math.nan)


def _nan_flags(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 if math.isnan(x[i]) else 0.0


def test_a_result_tuned_with_other_float_semantics_is_refused(small_space, rng):
    """A result tuned on a ``fastmath=True`` kernel, loaded for the plain one, made the
    plain kernel build with -ffast-math: ``math.isnan`` folded away, 0 NaNs counted of
    67 (hostile session, stop 33).  A tuning result changes only what the tuner
    searches; the file, its text and the object are refused alike."""
    x = rng.random(200)
    x[::3] = np.nan
    result = polyopt.tune(polyopt.jit(_nan_flags, fastmath=True), x, np.zeros(200),
                          budget=0.01, store=False)
    plain = polyopt.jit(_nan_flags)
    for source in (result, result.to_json()):
        with pytest.raises(ValueError, match=r"tuned with fastmath=True, but the kernel has "
                                             r"fastmath=False"):
            polyopt.tune.load(source, plain)
    out = np.zeros(200)
    plain(x, out)
    assert int(out.sum()) == int(np.isnan(x).sum()) == 67


def test_tune_refuses_the_arguments_a_call_refuses(small_space, rng):
    """tune runs on copies, which are contiguous, writable and apart: it tuned a program
    (C, C, C as three arrays) other than the one the user passed."""
    C = rng.random((6, 6))
    read_only = C.copy()
    read_only.flags.writeable = False
    strided = rng.random((6, 12))[:, ::2]
    for arrays, match in (((C, C, C), "overlap"), ((read_only, C.copy(), C.copy()), "read-only"),
                          ((strided, C.copy(), C.copy()), "C-contiguous")):
        with pytest.raises(ValueError, match=match):
            polyopt.jit(gemm)(1.5, 1.2, *arrays)
        with pytest.raises(ValueError, match=match):
            polyopt.tune(gemm, 1.5, 1.2, *arrays, budget=0.01, store=False)


@pytest.mark.parametrize("text", ["[]", "null", "1", ' {"polyopt_tune": 1} '])
def test_load_takes_json_text_that_names_no_file(text):
    with pytest.raises(BadChoice, match="not a polyopt tuning result"):
        polyopt.tune.load(text, gemm)


def test_load_of_an_empty_string_or_a_missing_file_says_so(tmp_path: Path):
    with pytest.raises(ValueError, match="an empty string is neither a file name nor JSON"):
        polyopt.tune.load("", gemm)
    with pytest.raises(FileNotFoundError):
        polyopt.tune.load(str(tmp_path / "gemm.tune.json"), gemm)


@pytest.mark.parametrize("again, kept", [(2.0, True), (1.01, False), (0.01, False)])
def test_the_choice_is_timed_again_and_kept_only_if_still_faster(monkeypatch, rng, again, kept):
    """A choice rested on one trial: on a busy machine one put parallel_min=0 at 1.12x,
    and every later candidate built on it ran at 0.01x (hostile session, stop 33).  The
    search now times its choice again against the default before keeping it."""
    cand = (4, 8)
    monkeypatch.setattr(space, "axes", lambda base, sig: [("tile", (cand,))])
    real_trial = search._Search._trial

    def lucky(self: Any, choice: Choice) -> Any:  # the noisy trial: 1.5x
        return dataclasses.replace(real_trial(self, choice), seconds=1.0, baseline_seconds=1.5)

    def timed(self: Any, call: Any) -> tuple[list[float], list[float]]:
        return [1.0] * 3, [again] * 3  # the candidate's times, then the default's

    monkeypatch.setattr(search._Search, "_trial", lucky)
    monkeypatch.setattr(search._Search, "_timed", timed)
    result = polyopt.tune(jacobi2d, *jacobi_args(rng), budget=60, store=False)
    assert result.trials[1].ratio == 1.5
    last = result.trials[-1]
    assert last.choice.options.tile == cand and last.ratio == again
    assert (result.chosen == last.choice) is kept and (result.chosen == result.default) is not kept
    assert result.speedup == (again if kept else 1.0)
    assert last.detail == ("timed again" if kept else "timed again: not faster, the default kept")
