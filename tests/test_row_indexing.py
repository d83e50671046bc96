"""``A[i]`` of a 2-D array is its row ``A[i, :]``, as in NumPy, where array code uses
it (``A[i] = A[i - 1] * 0.5 + A[i]``, ``x[:] = x + A[i]``, ``np.sum(A[i])``).  The
call's rank check used to count such a use as a 1-D ``A`` and refused every 2-D
argument ("argument 'A' has 2 dimension(s), but ... uses it with 1"); it still
refuses a 2-D array where the code needs elements (``y[i] = x[i] * 2.0``)."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def rows_recurrence(A):
    for i in range(1, A.shape[0]):
        A[i] = A[i - 1] * 0.5 + A[i]


def sum_rows_into(A, x):
    for i in range(A.shape[0]):
        x[:] = x + A[i]


def row_sums(A, out):
    for i in range(A.shape[0]):
        out[i] = np.sum(A[i])


def row_products(A, x, out):
    for i in range(A.shape[0]):
        out[i] = A[i] @ x


def copy_planes(T, out):
    for i in range(T.shape[0]):
        out[i] += T[i]


def doubled(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] * 2.0


@pytest.fixture
def A(rng) -> np.ndarray:
    return rng.random((6, 5))


def test_row_recurrence(check, A) -> None:
    check(polyopt.jit(rows_recurrence), A)


def test_row_added_to_a_slice(check, A) -> None:
    check(polyopt.jit(sum_rows_into), A, np.zeros(5))


def test_row_under_reduction_and_matmul(check, A) -> None:
    check(polyopt.jit(row_sums), A, np.zeros(6))
    check(polyopt.jit(row_products), A, np.arange(5.0), np.zeros(6))


def test_plane_of_a_3d_array(check, rng) -> None:
    check(polyopt.jit(copy_planes), rng.random((3, 4, 5)), rng.random((3, 4, 5)))


def test_plane_into_a_row_is_refused_at_the_statement(rng) -> None:
    """NumPy raises a shape error; polyopt names the statement."""
    with pytest.raises(polyopt.UnsupportedError, match="2-D value to the 1-D target") as info:
        polyopt.jit(copy_planes)(rng.random((3, 4, 5)), np.zeros((4, 5)))
    assert info.value.lineno is not None and info.value.offset is not None


def test_row_where_an_element_is_needed_is_still_a_call_error() -> None:
    with pytest.raises(polyopt.ArgumentTypeError, match="has 2 dimension"):
        polyopt.jit(doubled)(np.zeros((2, 2)), np.zeros(2))


def returned_row(A, i):
    return A[i]


def returned_row_arithmetic(A):
    return A[1] * 2.0 + A[0]


def test_a_returned_row_is_a_new_array(A) -> None:
    """``return A[i]`` of a 2-D ``A`` was refused as a call error (it counted as a 1-D
    use of ``A``); it returns the row, as NumPy does (a copy, not a view)."""
    for fn, args in ((returned_row, (A, 2)), (returned_row_arithmetic, (A,)),
                     (returned_row, (np.arange(24).reshape(2, 3, 4), 1))):
        want, got = fn(*args), polyopt.jit(fn)(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)


def swap_rows(A):
    A[0, :], A[1, :] = A[1, :], A[0, :]


def swap_rows_by_index(A):
    A[0], A[1] = A[1], A[0]


def swap_elements(A):
    A[0, 0], A[1, 1] = A[1, 1], A[0, 0]


@pytest.mark.parametrize("fn", [swap_rows, swap_rows_by_index])
def test_a_tuple_assignment_of_rows_is_refused_at_the_target(fn) -> None:
    """NumPy assigns views, so these do not swap: both rows end as the second.  They were
    refused as 'slicing is not supported' and as a call error (A[0] taken as a 1-D use);
    a swap compiled with copies would differ from NumPy."""
    A = np.arange(6.0).reshape(2, 3)
    fn(A)
    assert np.array_equal(A[0], A[1])  # NumPy's (surprising) result
    with pytest.raises(polyopt.UnsupportedError, match="NumPy assigns views") as info:
        polyopt.jit(fn)(np.arange(6.0).reshape(2, 3))
    assert info.value.offset == 5


def test_a_tuple_assignment_of_elements_swaps(check) -> None:
    check(polyopt.jit(swap_elements), np.arange(6.0).reshape(2, 3))
