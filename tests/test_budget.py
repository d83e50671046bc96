"""A loop nest whose analysis exceeds isl's operation budget gets TooComplexError,
never a hang; the budget is restored afterwards."""

import islpy as isl
import numpy as np
import pytest

import polyopt
import polyopt.pipeline


def triangle(A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] += A[j, i]


def test_analysis_over_budget_is_too_complex(monkeypatch):
    monkeypatch.setattr(polyopt.pipeline, "ANALYSIS_OPS", 2000)
    with pytest.raises(polyopt.TooComplexError, match="dependence analysis of triangle"):
        polyopt.jit(triangle)(np.ones((4, 4)))
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0


def test_normal_budget_compiles():
    A = np.arange(16.0).reshape(4, 4)
    expected = A.copy()
    triangle(expected)
    polyopt.jit(triangle)(A)
    np.testing.assert_array_equal(A, expected)
