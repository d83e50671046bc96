"""NumPy array code (slices, whole-array statements, ufuncs, broadcasting, reductions,
``.T``, ``@``, ``np.dot``, ``np.outer``) lowered to loops: every kernel is compared
with NumPy run by CPython (``check`` fixture: floats within tight tolerances, ints
exactly), including right-hand sides that overlap the target, which NumPy reads
entirely before writing.  What stays unsupported is refused at the construct."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from polyopt.frontends.python import parse_function

import polyopt

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt
from examples.polybench_numpy.lu import kernel as lu  # noqa: E402  (A[i, j] -= A[i, :j] @ A[:j, j])

THIS_FILE = str(Path(__file__).resolve())
_LINES = Path(__file__).read_text().splitlines()


# --- slices and whole-array statements ---------------------------------------------------


def shift_right(A):
    A[1:] = A[:-1]


def shift_add(a):
    a[1:] += a[:-1]


def shift_left(A):
    A[:-1] = A[1:]


def reverse_in_place(A):
    A[:] = A[::-1]


def copy_steps(A, B, n):
    B[: n - 1] = A[1:n]
    B[::2] = -A[::2]
    B[-1:0:-1] = 2.0 * A[:-1]


def jacobi_2d(TSTEPS, A, B):
    for _t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def stencil_in_place(A):
    A[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])


def rows_and_columns(A, B, x):
    n = A.shape[0]
    for i in range(n):
        B[i, :] = A[i, :] * x
    for j in range(A.shape[1]):
        A[:, j] = A[:, j] + B[:, j]


def whole_2d(C, A):
    C[:] = A
    C += 1.5


def int_slices(a, b):
    a[1:] += a[:-1]
    b[:] = a * 3 - b


def gemm(alpha, beta, C, A, B):
    C[:] = alpha * A @ B + beta * C


SLICES = [
    (shift_right, lambda r: (r.random(9),)),
    (shift_add, lambda r: (r.random(9),)),
    (shift_left, lambda r: (r.random(9),)),
    (reverse_in_place, lambda r: (r.random(8),)),
    (copy_steps, lambda r: (r.random(9), r.random(9), 6)),
    (jacobi_2d, lambda r: (4, r.random((7, 6)), r.random((7, 6)))),
    (stencil_in_place, lambda r: (r.random((6, 7)),)),
    (rows_and_columns, lambda r: (r.random((5, 4)), r.random((5, 4)), r.random(4))),
    (whole_2d, lambda r: (r.random((3, 4)), r.random((3, 4)))),
    (int_slices, lambda r: (r.integers(-9, 9, 8), r.integers(-9, 9, 8))),
    (gemm, lambda r: (1.5, 0.5, r.random((4, 5)), r.random((4, 3)), r.random((3, 5)))),
    (lu, lambda r: (r.random((6, 6)) + 6 * np.eye(6),)),
]


# --- elementwise arithmetic, ufuncs and broadcasting -------------------------------------


def ufuncs(A, B):
    B[:] = np.sqrt(A) + np.exp(-A) * np.sin(A) - np.abs(A - 0.5)


def broadcast_row(A, x):
    A[:] = A + x


def broadcast_column(A, B):
    B[:] = A - A[:, 0:1]


def broadcast_scalar_int(a, k):
    a[:] = a * k + 1


def choices(A, B, C):
    C[:] = np.maximum(A, B) - np.minimum(A, 0.5) + np.clip(B, 0.2, 0.7)
    C[:] += np.where(A > B, A, 2.0 * B)


ELEMENTWISE = [
    (ufuncs, lambda r: (r.random((4, 5)), r.random((4, 5)))),
    (broadcast_row, lambda r: (r.random((4, 5)), r.random(5))),
    (broadcast_column, lambda r: (r.random((4, 5)), r.random((4, 5)))),
    (broadcast_scalar_int, lambda r: (r.integers(-9, 9, 7), 3)),
    (choices, lambda r: (r.random((3, 4)), r.random((3, 4)), r.random((3, 4)))),
]


# --- reductions --------------------------------------------------------------------------


def mean_axis0(data):
    mean = np.mean(data, axis=0)
    return mean


def reductions(A, out):
    out[0] = np.sum(A)
    out[1] = np.max(A)
    out[2] = np.min(A)
    out[3] = np.mean(A)
    out[4] = np.prod(A[0, :3])


def reductions_axis(A, s, m):
    s[:] = np.sum(A, axis=1) + np.max(A, axis=1)
    m[:] = np.min(A, axis=0) * np.prod(A, axis=0) - np.mean(A, axis=-2)


def int_sum(a):
    return np.sum(a)


def row_sums_in_loop(A, x):
    for i in range(A.shape[0]):
        x[i] = np.sum(A[i, : i + 1])


REDUCTIONS = [
    (mean_axis0, lambda r: (r.random((6, 4)),)),
    (reductions, lambda r: (r.random((3, 4)) + 0.5, np.zeros(5))),
    (reductions_axis, lambda r: (r.random((3, 4)) + 0.5, np.zeros(3), np.zeros(4))),
    (int_sum, lambda r: (r.integers(-99, 99, 10).astype(np.int32),)),
    (row_sums_in_loop, lambda r: (r.random((5, 5)), np.zeros(5))),
]


# --- transposes, matrix products, outer products, new arrays -----------------------------


def transpose(A, B):
    B[:] = A.T + np.transpose(A)


def matvec(A, x):
    y = A @ x
    return y


def vecmat_return(A, x):
    return (A @ x) @ A


def dots(A, x, y, out):
    out[0] = np.dot(x, y)
    out[1] = x @ y + 1.0


def matmul_in_place(A):
    A[:] = A @ A


def np_matmul(A, x, y, B):
    """`np.matmul` is `@` (hostile session 45a, 02: it was an unknown function)."""
    y[:] = np.matmul(A, x) + np.matmul(x, x)
    B[:] = np.matmul(A.T, A)


def outer(x, y, A):
    A[:] = np.outer(x, y) + A.T @ A


def two_mm(alpha, beta, A, B, C, D):
    D[:] = alpha * A @ B @ C + beta * D


PRODUCTS = [
    (transpose, lambda r: (r.random((4, 4)), r.random((4, 4)))),
    (matvec, lambda r: (r.random((4, 3)), r.random(3))),
    (vecmat_return, lambda r: (r.random((4, 3)), r.random(3))),
    (dots, lambda r: (r.random((4, 3)), r.random(5), r.random(5), np.zeros(2))),
    (matmul_in_place, lambda r: (r.random((4, 4)),)),
    (np_matmul, lambda r: (r.random((4, 3)), r.random(3), np.zeros(4), np.zeros((3, 3)))),
    (outer, lambda r: (r.random(4), r.random(4), r.random((4, 4)))),
    (two_mm, lambda r: (1.5, 1.2, r.random((3, 4)), r.random((4, 5)), r.random((5, 2)),
                        r.random((3, 2)))),
]

ALL = SLICES + ELEMENTWISE + REDUCTIONS + PRODUCTS


@pytest.mark.parametrize(("fn", "make"), ALL, ids=[c[0].__name__ for c in ALL])
def test_matches_numpy(fn, make, rng, check):
    check(polyopt.jit(fn), *make(rng))


def test_overlap_reads_the_whole_right_hand_side_first():
    a = np.arange(6.0)
    polyopt.jit(shift_add)(a)
    np.testing.assert_array_equal(a, [0.0, 1.0, 3.0, 5.0, 7.0, 9.0])
    b = np.arange(6.0)
    polyopt.jit(shift_right)(b)
    np.testing.assert_array_equal(b, [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])


def test_array_statements_are_statements_of_the_same_model():
    scop = parse_function(jacobi_2d)
    # two stencil statements inside the time loop: loops, no temporaries (no overlap)
    assert len(scop.statements) == 2
    assert set(scop.arrays) == {"A", "B"}
    in_place = parse_function(stencil_in_place)
    assert len(in_place.statements) == 2  # through a temporary, then copied back
    assert len(in_place.arrays) == 2


def test_dynamic_shape_mismatch_raises_numpys_value_error():
    """Extents that must agree share one size parameter; the call checks the arrays
    against it before the C runs, and raises the ValueError NumPy raises."""
    cases = [(gemm, (1.0, 1.0, np.zeros((4, 5)), np.zeros((4, 3)), np.zeros((2, 5)))),
             (jacobi_2d, (2, np.zeros((6, 6)), np.zeros((7, 6))))]
    for fn, bad in cases:
        kernel = polyopt.jit(fn)
        with pytest.raises(ValueError):
            fn(*copy.deepcopy(bad))
        with pytest.raises(ValueError, match="could not be broadcast together"):
            kernel(*bad)


def slice_into(C, B, k):
    C[0:3] = B[0:k] * 2.0


def test_slice_extents_checked_at_the_call():
    """`C[0:3] = B[0:k]` runs only for k == 3, as in NumPy; the failing call comes both
    first (the slow path) and after a good one (the generated fast path)."""
    kernel = polyopt.jit(slice_into)
    for k in (4, 3, 2, 3, 0):
        ref, got = np.zeros(5), np.zeros(5)
        b = np.arange(6.0)
        if k != 3:
            with pytest.raises(ValueError):
                slice_into(ref, b, k)
            with pytest.raises(ValueError, match=r"needs 3 == k, but they are 3 and " + str(k)):
                kernel(got, b, k)
            assert not got.any()  # nothing ran
        else:
            slice_into(ref, b, k)
            kernel(got, b, k)
            assert np.array_equal(got, ref)
    with pytest.raises(ValueError, match="1 only at run time does not broadcast"):
        kernel(np.zeros(5), np.arange(6.0), 1)  # NumPy broadcasts B[0:1]: a known limit


def shared_size(x, y, z):
    z[:] = x + 2.0 * y[1:]


def test_equal_extents_share_one_size_parameter():
    kernel = polyopt.jit(shared_size)
    x, y, z = np.arange(4.0), np.arange(5.0), np.zeros(4)
    kernel(x, y, z)
    assert np.array_equal(z, x + 2.0 * y[1:])
    assert len(kernel.plan().scop.params) == 1
    for bad in ((x, np.arange(4.0), z), (x, y, np.zeros(5)), (np.arange(5.0), y, z)):
        with pytest.raises(ValueError):
            shared_size(*copy.deepcopy(bad))
        with pytest.raises(ValueError, match=r"could not be broadcast together: .*test_array_code\.py:\d+: "):
            kernel(*bad)
    with pytest.raises(ValueError, match="could not be broadcast together"):
        kernel(x, np.arange(2.0), z)  # NumPy broadcasts y[1:] of extent 1: a known limit


def tails_dot(a, b, out):
    for i in range(out.shape[0]):
        out[i] = np.dot(a[i + 1:], b[i + 1:])


def test_extents_with_loop_variables_check_their_difference():
    """`a[i + 1:]` against `b[i + 1:]` needs len(a) == len(b) at every i: a check of
    sizes only, made at the call."""
    kernel = polyopt.jit(tails_dot)
    a, b = np.arange(6.0), np.arange(6.0) * 0.5
    ref, got = np.zeros(4), np.zeros(4)
    tails_dot(a, b, ref)
    kernel(a, b, got)
    assert np.array_equal(got, ref)
    with pytest.raises(ValueError):
        tails_dot(a, np.arange(7.0), np.zeros(4))
    with pytest.raises(ValueError, match=r"needs b.shape\[0\] == a.shape\[0\], but they are 7 and 6"):
        kernel(a, np.arange(7.0), np.zeros(4))


# --- refusals ------------------------------------------------------------------------------


def where(marker: str, token: str) -> tuple[int, int]:
    hits = [k for k, line in enumerate(_LINES, 1) if re.search(rf"# !{marker}\b", line)]
    assert len(hits) == 1, marker
    return hits[0], _LINES[hits[0] - 1].index(token) + 1


def fancy(x, idx, y):
    y[:] = x[idx]  # !fancy


def nonaffine_bound(A, x):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x[: i * j] = 0.0  # !nonaffine


def negative_size_bound(A, k):
    A[:-k] = 0.0  # !negsize


def static_mismatch(A):
    A[1:] = A[1:-1]  # !mismatch


def rank_mismatch(A, x):
    x[:] = A  # !rank


def new_array_in_loop(A):
    for i in range(A.shape[0]):
        t = A[i, :i] * 2.0  # !inloop
        A[i, 0] = t[0]


REFUSED = [
    (fancy, lambda: (np.zeros(4), np.zeros(4, dtype=np.int64), np.zeros(4)), "fancy", "idx",
     ["fancy indexing"]),
    (nonaffine_bound, lambda: (np.zeros((3, 3)), np.zeros(9)), "nonaffine", "i * j",
     ["slice bound", "affine"]),
    (negative_size_bound, lambda: (np.zeros(5), 2), "negsize", "-k", ["slice bound", "A.shape[d]"]),
    (static_mismatch, lambda: (np.zeros(5),), "mismatch", "A[1:] =",
     ["A_shape0 - 1", "A_shape0 - 2", "differ"]),
    (rank_mismatch, lambda: (np.zeros((3, 3)), np.zeros(3)), "rank", "A  #",
     ["2-D value", "1-D target"]),
    (new_array_in_loop, lambda: (np.zeros((3, 3)),), "inloop", "t =", ["top level"]),
]


@pytest.mark.parametrize(("fn", "args", "marker", "token", "words"), REFUSED,
                         ids=[c[0].__name__ for c in REFUSED])
def test_refused_with_location(fn, args, marker, token, words):
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(*args())
    e = info.value
    assert (e.filename, e.lineno, e.offset) == (THIS_FILE, *where(marker, token)), str(e)
    for w in words:
        assert w in str(e), str(e)


def accumulate_local(a):
    t = np.zeros_like(a)
    t += a
    return t


def scale_in_a_loop(a):
    t = np.ones((a.shape[0],))
    for i in range(3):  # noqa: B007
        t *= 2.0
        t += a
    return t


def update_a_new_array(a):
    t = a * 2
    t *= 3
    return t


@pytest.mark.parametrize("fn", [accumulate_local, scale_in_a_loop, update_a_new_array])
def test_augmented_assignment_to_a_local_array_updates_it_in_place(fn) -> None:
    """``t += a`` on an array the function allocated or computed updates it in place,
    as NumPy does; it was taken for a second assignment to ``t`` and refused as an
    allocation 'once per name', with false 'read before it is assigned' follow-ups (a
    hostile user's finding)."""
    x = np.arange(5.0)
    np.testing.assert_array_equal(polyopt.jit(fn)(x.copy()), fn(x.copy()))


def test_rebinding_an_allocated_array_is_still_refused() -> None:
    def rebinds(a):
        t = np.zeros_like(a)
        t = t + a
        return t

    with pytest.raises(polyopt.UnsupportedError, match="once per name"):
        polyopt.jit(rebinds)(np.arange(3.0))


def returns_an_allocation(a):
    return np.zeros(a.shape[0])


def allocates_in_an_expression(a):
    return np.zeros_like(a) + a


@pytest.mark.parametrize("fn", [returns_an_allocation, allocates_in_an_expression])
def test_an_allocation_inside_an_expression_says_how_to_write_it(fn) -> None:
    """It was called an 'unknown function', listing the math functions (a hostile
    user's finding); it is an allocation outside a top-level assignment."""
    with pytest.raises(polyopt.UnsupportedError, match=r"allocates a new array.*then use or "
                                                       r"return `t`"):
        polyopt.jit(fn)(np.ones(3))


def _first_or_second_column(A, c):
    return A[:, 0] if c > 0 else A[:, 1]


def _first_or_second_with_newaxis(A, c):
    return A[:, None, 0] if c > 0 else A[:, None, 1]


def _scaled_by_a_choice(x, y, c):
    y[:] = x * (2.0 if c > 0 else 3.0)


@pytest.mark.parametrize("fn", [_first_or_second_column, _first_or_second_with_newaxis])
def test_a_conditional_expression_on_arrays_is_refused_by_name(fn):
    """Hostile session 36b, finding 01: its operands were lowered as scalars and refused
    for a part of them ("slicing is not supported", `None` counted as an axis)."""
    with pytest.raises(polyopt.UnsupportedError,
                       match=r"conditional expression on arrays: `a if c else b` takes "
                             r"scalars, not arrays; `np.where\(c, a, b\)`"):
        polyopt.jit(fn)(np.arange(9.0).reshape(3, 3), 1)


def test_a_scalar_conditional_expression_in_array_code_still_runs(check):
    check(polyopt.jit(_scaled_by_a_choice), np.arange(3.0), np.zeros(3), -1)


def _row_sums_past_the_second(A, y):
    n = A.shape[0]
    for i in range(n):
        y[i] = A[i].sum() if i > 1 else 0


def _prefix_sums_by_choice(x):
    n = x.shape[0]
    for i in range(n):
        x[i] = np.sum(x[:i]) if i > 0 else x[0]


def _row_norms_or_minus_one(A, y):
    n = A.shape[0]
    for i in range(n):
        y[i] = np.dot(A[i], A[i]) if i > 1 else -1


def _running_max_before(x, y):
    # np.max(x[:0]) raises ValueError: CPython never evaluates it at i = 0
    n = x.shape[0]
    for i in range(n):
        y[i] = np.max(x[:i]) if i > 0 else -1.0


def _next_row_sum(A, y):
    # A[n] is out of bounds: CPython never evaluates it at i = n - 1
    n = A.shape[0]
    for i in range(n):
        y[i] = 0.0 if i + 1 >= n else A[i + 1].sum() * 2.0


@pytest.mark.parametrize("fn, args", [
    (_row_sums_past_the_second, (np.arange(20).reshape(4, 5), np.zeros(4, np.int64))),
    (_prefix_sums_by_choice, (np.arange(1.0, 7.0),)),
    (_row_norms_or_minus_one, (np.arange(12.0).reshape(4, 3), np.zeros(4))),
    (_running_max_before, (np.array([3.0, -1.0, 7.0, 2.0]), np.zeros(4))),
    (_next_row_sum, (np.arange(12.0).reshape(4, 3), np.zeros(4))),
])
def test_a_reduction_in_a_conditional_expression_is_a_scalar_run_where_chosen(check, fn, args):
    """Hostile session 37, finding 06: ``A[i].sum() if c else 0`` was refused as a
    conditional expression on arrays; its operands are scalars.  Each branch's reduction
    runs only where CPython evaluates it (no empty ``max``, no row past the end)."""
    check(polyopt.jit(fn), *args)


def _sum_if_positive(x, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = np.sum(x[:i]) if x[i] > 0 else 0.0


def test_a_reduction_under_a_data_dependent_choice_is_refused_saying_so():
    with pytest.raises(polyopt.UnsupportedError,
                       match=r"reduction in a data-dependent conditional expression: .*"
                             r"compute the reduction into a local first"):
        polyopt.jit(_sum_if_positive)(np.ones(3), np.zeros(3))


def _last_or_zero(x, y):
    n = x.shape[0]
    for i in range(n):
        if i > 0:
            t = x[i - 1]
        y[i] = t if i > 0 else 0.0


def test_a_local_read_in_a_branch_is_read_only_where_chosen(check):
    """``t if i > 0 else 0.0`` reads ``t`` only where ``i > 0``, where it is assigned
    (it was refused as possibly read before it is assigned)."""
    check(polyopt.jit(_last_or_zero), np.arange(1.0, 5.0), np.zeros(4))


# `a if c else b` whose operand is a scalar np.where: lowered, it came back the same and
# was lowered again, without end (refused as "nested 6 levels deep": hostile session
# 37b, finding 02); the branch's subscripts are checked only where it is taken
def choice_of_scalar_where(a, x):
    for i in range(a.shape[0]):
        a[i] = x[i] if i != 1 else np.where(x[i] > 0, 3, 1.5)


def guarded_read_beside_where(a, x):
    for i in range(a.shape[0]):
        a[i] = x[i + 1] if i < a.shape[0] - 1 else np.where(x[i] > 0, 3, 1.5)


def data_test_beside_where(a, x):
    for i in range(a.shape[0]):
        a[i] = x[i] if x[i] > 0 else np.where(x[i] < -1, 3, 1.5)


def unguarded_read_beside_where(a, x):
    for i in range(a.shape[0]):
        a[i] = x[i + 1] if i < a.shape[0] else np.where(x[i] > 0, 3, 1.5)


@pytest.mark.parametrize("fn", [choice_of_scalar_where, guarded_read_beside_where,
                                data_test_beside_where])
def test_a_conditional_expression_around_a_scalar_where(fn) -> None:
    x = np.array([1.0, -2.0, 3.0, -0.5])
    want, got = np.zeros(4), np.zeros(4)
    fn(want, x.copy())
    polyopt.jit(fn)(got, x)
    np.testing.assert_array_equal(got, want)


def test_a_read_past_the_end_beside_a_scalar_where_raises_as_cpython() -> None:
    x = np.array([1.0, -2.0, 3.0, -0.5])
    with pytest.raises(IndexError):
        unguarded_read_beside_where(np.zeros(4), x.copy())
    with pytest.raises(IndexError):
        polyopt.jit(unguarded_read_beside_where)(np.zeros(4), x)
