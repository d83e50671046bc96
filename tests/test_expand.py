"""Array expansion (polyopt.transforms.expand): a buffer that every iteration of a loop
fills and uses up gets a row per iteration, and doitgen becomes a matmul per ``r``.

Differential: doitgen and its variants against CPython, the buffer's final values
included, at sizes with ragged register tiles; bit-exact under ``strict_fp`` (each
row sums in the original order).  Structural: the scheduler expands doitgen's
``sum_`` and register-tiles the product.  Refusals: a value that crosses the loop's
iterations, one that comes from before the loop, iterations that write different
elements, an access outside the loop.
"""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.model.aff import Lin
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.scheduler.nests import loops_around
from polyopt.transforms.expand import expand

SIZES = ((1, 1, 1), (3, 5, 7), (2, 9, 17), (4, 21, 35))


def doitgen(A, C4, sum_):
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(np_):
                sum_[p] = 0.0
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(np_):
                A[r, q, p] = sum_[p]


def carried(A, C4, sum_):
    """``sum_`` is set once per ``r``: its values flow from one ``q`` to the next."""
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(np_):
                if q == 0:
                    sum_[p] = 0.0
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(np_):
                A[r, q, p] = sum_[p]


def from_caller(A, C4, sum_):
    """No reset: every ``q`` adds to what the caller (and the last ``q``) left."""
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(np_):
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(np_):
                A[r, q, p] = sum_[p]


def ragged(A, C4, sum_):
    """Iteration ``q`` fills only ``sum_[q:]``: the last one does not write them all."""
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(q, np_):
                sum_[p] = 0.0
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(q, np_):
                A[r, q, p] = sum_[p]


def read_after(A, C4, sum_, out):
    """The buffer is read after the loop too."""
    nr, nq, np_ = A.shape
    for r in range(nr):
        for q in range(nq):
            for p in range(np_):
                sum_[p] = 0.0
                for s in range(np_):
                    sum_[p] += A[r, q, s] * C4[s, p]
            for p in range(np_):
                A[r, q, p] = sum_[p]
    for p in range(np_):
        out[p] = 2.0 * sum_[p]


def _args(rng: np.random.Generator, nr: int, nq: int, np_: int) -> tuple:
    return rng.random((nr, nq, np_)), rng.random((np_, np_)), rng.random(np_)


def _q_loop(fn, *args):
    scop = parse_function(fn, polyopt.jit(fn)._sig_for(args, {}))
    stmt = next(s for s in scop.statements if s.update_op == "+")
    q = next(d for d in loops_around(scop.schedule, stmt.name) if d.name == "q")
    return scop, analyze(scop), q.loop_id


@pytest.mark.parametrize("nr, nq, np_", SIZES)
@pytest.mark.parametrize("fn", [doitgen, carried, from_caller, ragged])
def test_matches_python(fn, nr, nq, np_):
    check_against_python(polyopt.jit(fn), *_args(np.random.default_rng(nq), nr, nq, np_))


@pytest.mark.parametrize("nr, nq, np_", SIZES)
def test_buffer_read_after_the_loop_matches_python(nr, nq, np_):
    args = _args(np.random.default_rng(nq), nr, nq, np_)
    check_against_python(polyopt.jit(read_after), *args, np.zeros(np_))


def test_doitgen_is_expanded_register_tiled_and_bit_exact():
    args = _args(np.random.default_rng(0), 3, 21, 35)
    c = polyopt.jit(doitgen).c_source(*args)
    assert "sum__x" in c and "_micro" in c
    # rows as long as the loop over p (np_), not sum_'s extent (test_cli_sizes.py)
    assert "sum_[sum__e0] = sum__x[(nq - 1) * np_ + sum__e0];" in c
    exact = polyopt.jit(doitgen, strict_fp=True)
    mine, theirs = [np.copy(a) for a in args], [np.copy(a) for a in args]
    exact(*mine)
    doitgen(*theirs)
    for x, y in zip(mine, theirs, strict=True):
        assert np.array_equal(x, y)


def test_expand_gives_a_row_per_iteration():
    scop, deps, q = _q_loop(doitgen, *_args(np.random.default_rng(0), 2, 3, 4))
    out, tree = expand(scop, deps, scop.schedule, "sum_", q)
    assert out.arrays["sum__x"].shape[1:] == (Lin.var("np_"),)  # what the p loop writes
    assert [s.target for s in out.statements].count("sum__x") == 2
    assert out.statements[-1].target == "sum_"  # the copy of the last row, after the nest
    assert tree is out.schedule


def test_expand_refuses_a_value_that_crosses_iterations():
    scop, deps, q = _q_loop(carried, *_args(np.random.default_rng(0), 2, 3, 4))
    with pytest.raises(IllegalTransformationError, match="another iteration"):
        expand(scop, deps, scop.schedule, "sum_", q)


def test_expand_refuses_a_value_from_before_the_loop():
    scop, deps, q = _q_loop(from_caller, *_args(np.random.default_rng(0), 2, 3, 4))
    with pytest.raises(IllegalTransformationError):
        expand(scop, deps, scop.schedule, "sum_", q)


def test_expand_refuses_iterations_that_write_different_elements():
    scop, deps, q = _q_loop(ragged, *_args(np.random.default_rng(0), 2, 3, 4))
    with pytest.raises(PolyoptError, match="write different elements"):
        expand(scop, deps, scop.schedule, "sum_", q)


def test_expand_refuses_an_access_outside_the_loop():
    args = _args(np.random.default_rng(0), 2, 3, 4)
    scop, deps, q = _q_loop(read_after, *args, np.zeros(4))
    with pytest.raises(PolyoptError, match="outside the loop"):
        expand(scop, deps, scop.schedule, "sum_", q)


def _random_program(rng: random.Random) -> str:
    """A doitgen-like nest, each part changed with probability 1/3 at the edges of what
    expansion accepts: ranges that differ between the loops, an initial value read from
    the buffer itself or from A, a guard, a store that reads another element, a read
    after the loop."""
    def pick(canonical: str, *others: str) -> str:
        return rng.choice(others) if rng.random() < 1 / 3 else canonical

    p1 = pick("0, np_", "1, np_", "0, np_ - 1", "q, np_")
    p2 = pick(p1, "0, np_", "1, np_", "0, np_ - 1")
    s_range = pick("0, np_", "p, np_", "0, p + 1")
    init = pick("0.0", "1.5", "A[r, q, p]", "sum_[p] * 0.5")
    guard = pick("", "if q == 0:\n                    ", "if r > 0:\n                    ")
    store = pick("A[r, q, p] = sum_[p]", "A[r, q, p] += 2.0 * sum_[p]",
                 "A[r, q, p] = sum_[p] + sum_[np_ - 1 - p]")
    update = pick("sum_[p] += A[r, q, s] * C4[s, p]", "sum_[p] -= C4[p, s] * A[r, q, s]")
    after = pick("", "    for p in range(np_):\n        out[p] = sum_[p]\n")
    return (f"def k(A, C4, sum_, out):\n    nr, nq, np_ = A.shape\n    for r in range(nr):\n"
            f"        for q in range({pick('0', '1')}, nq):\n"
            f"            for p in range({p1}):\n                {guard}sum_[p] = {init}\n"
            f"                for s in range({s_range}):\n                    {update}\n"
            f"            for p in range({p2}):\n                {store}\n{after}")


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_of_the_doitgen_family_match_python(seed, tmp_path):
    """Generated variants, each against CPython: those expansion accepts and those it must
    refuse.  When it was written, 360 such programs (57 of them expanded) were all right
    (/work/tmp/xfz/run.py)."""
    rng = random.Random(seed)
    source = _random_program(rng)
    path = tmp_path / f"doitgen_variant_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    nr, nq, np_ = rng.choice([(1, 1, 1), (2, 3, 4), (3, 9, 17), (2, 20, 35)])
    a = np.random.default_rng(seed)
    check_against_python(polyopt.jit(module.k), a.random((nr, nq, np_)), a.random((np_, np_)),
                         a.random(np_), np.zeros(np_))
