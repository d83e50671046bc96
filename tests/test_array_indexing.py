"""NumPy's basic indexing beyond slices of names, and array methods, compiled and
compared with NumPy running the same function: ``None``/``np.newaxis`` (broadcasting a
row against a column), ``...``, subscripts of array expressions (``(A @ B)[1, :]``,
``A.T[0]``, ``A[1:][0]``), ``A.sum(axis=0)``, ``A.max()``, ``A.copy()``, ``A.dot(B)``,
``A.astype(t)``; and the refusals, which name the construct and what to write."""

from __future__ import annotations

import copy
import importlib.util

import numpy as np
import pytest

import polyopt


def outer_by_none(x, y, out):
    out[:] = x[:, None] * y[None, :]


def newaxis_rows_and_columns(A, x, out):
    out[:] = A - x[np.newaxis, :] + 2.0 * x[:, np.newaxis]


def ellipsis_and_newaxis(T, x, out):
    out[...] = T[..., 0] + x[None]


def methods(A, B, out, col):
    out[:] = A.sum(axis=0) + B.max() - A.T.min(axis=1) + A.mean()
    col[:] = A.copy()[:, 1] + A.dot(B[:, 0]) + (A + 1.0)[1:, 0].sum() + B.prod(0)


def subscripted_expressions(A, B, r):
    r[:] = (A @ B)[1, :] + (A + B).T[0] + A[1:][0] + A.T[1:, 2][::-1][0]


def chained_slices(A, b):
    b[:] = A[1:][0]  # the row A[1], not the column A[1:, 0]


def shifted_copy(a):
    a[1:] = a.copy()[:-1]  # read entirely before written


def casts(A, out):
    out[:] = (A * 3.0).astype(np.int64) + A.T.astype(int)


def in_a_loop(A, x, out):
    for i in range(A.shape[0]):
        out[i, :] = A[i, :, None].sum(axis=1) * x[None, i]


def _inputs(rng):
    A, B = rng.random((4, 5)), rng.random((5, 5))
    return [
        (outer_by_none, (rng.random(4), rng.random(6), np.zeros((4, 6)))),
        (newaxis_rows_and_columns, (rng.random((5, 5)), rng.random(5), np.zeros((5, 5)))),
        (ellipsis_and_newaxis, (rng.random((3, 4, 2)), rng.random(4), np.zeros((3, 4)))),
        (methods, (B, rng.random((5, 5)), np.zeros(5), np.zeros(5))),
        (subscripted_expressions, (B, rng.random((5, 5)), np.zeros(5))),
        (chained_slices, (rng.random((5, 4)), np.zeros(4))),
        (shifted_copy, (rng.random(6),)),
        (casts, (rng.random((4, 4)) * 5, np.zeros((4, 4), dtype=np.int64))),
        (in_a_loop, (A, rng.random(4), np.zeros((4, 5)))),
    ]


@pytest.mark.parametrize("case", range(9))
def test_compiled_equals_numpy(case):
    fn, args = _inputs(np.random.default_rng(case))[case]
    ref, got = copy.deepcopy(args), copy.deepcopy(args)
    fn(*ref)
    polyopt.jit(fn)(*got)
    for r, g in zip(ref, got, strict=True):
        assert r.dtype == g.dtype
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)


def reshaped(A, out):
    out[:] = A.reshape(4)


def keepdims(A, out):
    out[:] = A.sum(keepdims=True)


def two_ellipses(T, out):
    out[:] = T[..., 0, ...]


def fancy(x, idx, y):
    y[:] = x[idx]


@pytest.mark.parametrize("fn, args, construct, advice", [
    (reshaped, (np.zeros((2, 2)), np.zeros(4)), "`A.reshape()`", "np.sum/max/min/mean/prod"),
    (two_ellipses, (np.zeros((2, 2, 2)), np.zeros(2)), "subscript", "only one `...`"),
    (keepdims, (np.zeros((2, 2)), np.zeros(1)), "A.sum(..., keepdims=)", "only `axis=`"),
    (fancy, (np.zeros(4), np.zeros(4, dtype=np.int64), np.zeros(4)), "fancy indexing",
     "`None`"),
])
def test_refusals_name_the_construct_and_what_to_write(fn, args, construct, advice):
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(*args)
    [problem] = info.value.problems
    assert problem.construct == construct
    assert advice in problem.reason
    assert problem.location.line > fn.__code__.co_firstlineno


def test_a_method_reduction_needs_numpy_in_the_module(tmp_path):
    """``A.max()`` becomes ``np.maximum`` steps: a module without numpy bound to a
    name is told to import it (sum/prod/mean need no function of it)."""
    path = tmp_path / "no_numpy.py"
    path.write_text("def kernel(A, out):\n    out[0] = A.max()\n    out[1] = A.sum()\n")
    spec = importlib.util.spec_from_file_location("no_numpy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(module.kernel)(np.ones(3), np.zeros(2))
    [problem] = info.value.problems
    assert problem.construct == "`A.max()`" and "import numpy as np" in problem.reason


def slice_past_the_end(y, x):
    y[:100] = x[:100] * 2.0


def test_a_slice_past_the_end_raises_where_numpy_clips():
    """NumPy clips ``y[:100]`` of a 10-element ``y`` to ``y[:10]``; polyopt takes slice
    bounds to lie within the array (README) and the call says which slice leaves it,
    before any element is written."""
    y, x = np.zeros(10), np.arange(10.0)
    with pytest.raises(IndexError, match=r"y\[:100\] = x\[:100\] \* 2.0"):
        polyopt.jit(slice_past_the_end)(y, x)
    assert not y.any()
    y100, x100 = np.zeros(100), np.arange(100.0)
    polyopt.jit(slice_past_the_end)(y100, x100)
    assert np.array_equal(y100, x100 * 2.0)


def _head_sum(x, k):
    return x[:k].sum()


def _head_fill(x, k):
    x[:k] = 1.0


def _sums_before(x, out):
    for i in range(x.shape[0]):
        out[i] = x[:i - 1].sum()


def test_a_slice_bound_negative_at_run_time_raises_naming_the_slice():
    """Hostile-user finding (stop 34, session a, 04): ``x[:k]`` with ``k = -2`` was empty,
    where NumPy counts -2 from the end; the README promises an IndexError for a bound
    outside the array.  A bound over a loop (``x[:i - 1]`` at ``i = 0``) is checked too."""
    x = np.arange(5.0)
    with pytest.raises(IndexError, match=r"slice `x\[:k\]` \(its bound `k` is below 0"):
        polyopt.jit(_head_sum)(x, -2)
    assert polyopt.jit(_head_sum)(x, 3) == _head_sum(x, 3)
    y = np.zeros(5)
    with pytest.raises(IndexError, match=r"slice `x\[:k\]`"):
        polyopt.jit(_head_fill)(y, -1)
    assert not y.any()
    polyopt.jit(_head_fill)(y, 0)
    assert not y.any()
    with pytest.raises(IndexError, match=r"slice `x\[:i - 1\]` \(its bound `i - 1`"):
        polyopt.jit(_sums_before)(x, np.zeros(5))


def _second(x):
    return x[1:][0] + x[::-1][0]


def _rows(A, out):
    for i in range(A.shape[1] - 1):
        out[i] = A[1:][0][i] + A[:, 1:][1][i]


def _allocated_element(x):
    return np.ones(3)[0] + x[0]


def test_an_element_of_a_slice_is_the_element_of_the_array():
    """Hostile-user finding (stop 34, session a, 05): ``x[1:][0]`` on a 1-D ``x`` was
    refused as "indexed with 2"; ``np.ones(3)[0]`` said only array names have subscripts."""
    x, A = np.arange(5.0), np.arange(12.0).reshape(3, 4)
    assert polyopt.jit(_second)(x) == _second(x) == 5.0
    want, got = np.zeros(3), np.zeros(3)
    _rows(A, want)
    polyopt.jit(_rows)(A, got)
    assert np.array_equal(want, got)
    with pytest.raises(polyopt.UnsupportedError, match=r"make it a local first \(`t = np.ones\(3\)`"):
        polyopt.jit(_allocated_element)(x)


def _through_slice(x, j):
    return x[1:][j]


def _row_sum(A):
    return np.sum(A[1])


def test_a_subscript_outside_its_dimension_raises_also_through_a_view():
    """Hostile-user findings (stop 34, session c, 01 and 02): ``x[1:][j]`` with ``j = -1``
    read ``x[0]`` (in ``x``, though outside the view), and ``np.sum(A[1])`` of an array
    with no columns returned 0.0 for a row that does not exist."""
    x = np.arange(1.0, 6.0)
    k = polyopt.jit(_through_slice)
    assert k(x, 2) == _through_slice(x, 2) == 4.0
    with pytest.raises(IndexError, match=r"subscript `x\[1:\]\[j\]` \(its index `j`"):
        k(x, -1)
    with pytest.raises(IndexError):  # x[5]: the access's own check says so first
        k(x, 4)
    r = polyopt.jit(_row_sum)
    assert r(np.ones((2, 3))) == 3.0
    for shape in ((0, 0), (1, 0)):
        with pytest.raises(IndexError, match=r"subscript `A\[1\]`"):
            r(np.zeros(shape))
