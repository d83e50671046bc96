"""A corpus of small loop kernels, each with a generator of random inputs.

The kernels are plain (undecorated) Python functions in the language polyopt
accepts; :data:`CASES` pairs each with ``make(rng, n)``, which returns the
argument tuple for problem size ``n``, and the sizes worth testing.  Sizes
include 0 and 1 and sizes where some loop runs zero times (``range(1, n - 1)``
with ``n <= 2``, ``range(i)`` with ``i == 0``...).

Values are kept small so that CPython and C agree up to rounding: no overflow,
no ``exp`` of large numbers, no division by values near zero.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # examples/ is not installed
    sys.path.append(str(Path(__file__).resolve().parents[1]))  # after the installed polyopt

from examples.polybench import atax, bicg, gemver, mvt  # noqa: E402

# Global constants: read by kernels as compile-time constants.
SCALE = 0.5
SHIFT = 3
EPS = 1e-3

# 130 is past the tile size the automatic scheduler picks (128): one full and one
# partial tile.  Kernels with n**3 work stay small (CPython is the reference).
DEFAULT_SIZES = (0, 1, 2, 3, 7, 130)
CUBIC_SIZES = (0, 1, 2, 3, 7, 20)


# --- linear algebra ----------------------------------------------------------------------


def matmul_acc(A, B, C):
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            s = 0.0
            for k in range(p):
                s += A[i, k] * B[k, j]
            C[i, j] = s


def gemm(alpha, beta, C, A, B):
    ni, nj = C.shape
    nk = A.shape[1]
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
            for k in range(nk):
                C[i, j] += alpha * A[i, k] * B[k, j]


def fill_matmul(A, B, C):
    n, m = C.shape
    p = A.shape[1]
    for i in range(n):
        for j in range(m):
            C[i, j] = 0.0
    for i in range(n):
        for j in range(m):
            for k in range(p):
                C[i, j] += A[i, k] * B[k, j]


def mm_exp_mm(A, B, D, out):
    n, p = A.shape
    m = B.shape[1]
    q = D.shape[1]
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for k in range(p):
                s += A[i, k] * B[k, j]
            T[i, j] = math.exp(s)
    for i in range(n):
        for j in range(q):
            out[i, j] = 0.0
            for k in range(m):
                out[i, j] += T[i, k] * D[k, j]


def dot(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


def doitgen_like(A, W, out):
    r, q, p = A.shape
    for a in range(r):
        for b in range(q):
            for c in range(p):
                s = 0.0
                for d in range(p):
                    s += A[a, b, d] * W[d, c]
                out[a, b, c] = s


def transpose(A, B):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            B[j, i] = A[i, j]


# --- reductions feeding other loops ------------------------------------------------------


def rowsum_scale(A, out):
    n, m = A.shape
    rs = np.zeros(n)
    for i in range(n):
        for j in range(m):
            rs[i] += A[i, j]
    for i in range(n):
        for j in range(m):
            out[i, j] = A[i, j] * rs[i]


def update_then_column_sums_ahead(A, u, x):
    """gemver's first two nests, but the second reads the row after the one the first
    has just updated: fused at the first's ``i`` and the second's ``j`` (its ``j`` run
    outer), the second runs one row behind (a shift)."""
    n = A.shape[1]
    for i in range(n + 1):
        for j in range(n):
            A[i, j] = A[i, j] + u[i] * u[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + A[j + 1, i] * u[j]


def update_then_column_sums_reversed(A, u, x):
    """The second nest reads the rows in reverse: no shift of either loop order lets it
    run in step with the first, so the two stay apart."""
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            A[i, j] = A[i, j] + u[i] * u[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + A[n - 1 - j, i] * u[j]


def reduce_reduce_map(x, y):
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        total += x[i]
    sq = 0.0
    for i in range(n):
        sq += (x[i] - total) ** 2
    for i in range(n):
        y[i] = (x[i] - total) * sq


def element_reduction(A, acc):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            acc[0] += A[i, j]
            acc[1] = max(acc[1], A[i, j])
            acc[2] = min(A[i, j], acc[2])
    for i in range(n):
        acc[3] *= 1.0 + A[i, 0] * 0.01


def two_sums(x, acc):
    for i in range(x.shape[0]):
        acc[0] += x[i]
        acc[1] += x[i] * x[i]


def max_abs(x):
    m = 0.0
    for i in range(x.shape[0]):
        m = max(m, abs(x[i]))
    return m


def int_min_max(a, out):
    lo = 1000
    hi = -1000
    for i in range(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(a[i], hi)
    out[0] = lo
    out[1] = hi


def center_columns(data, out):
    n, m = data.shape
    mean = np.zeros(m)
    for j in range(m):
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] *= SCALE
    for i in range(n):
        for j in range(m):
            out[i, j] = data[i, j] - mean[j]


# --- loop shapes -------------------------------------------------------------------------


def tri_lower(L, x, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = 0.0
        for j in range(i):
            y[i] += L[i, j] * x[j]


def tri_upper_sum(A, out):
    n = A.shape[0]
    for i in range(n):
        for j in range(i, n):
            out[i, j] = A[i, j] + A[j, i]


def back_substitution(U, b, x):
    n = b.shape[0]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]


def cholesky_in_place(A):
    # the update reads other elements of A (A[i, k], A[j, k] with k < j): still a
    # reduction into A[i, j], and its accumulator may live in a register
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[j, k]
            A[i, j] /= A[j, j]
        for k in range(i):
            A[i, i] -= A[i, k] * A[i, k]
        A[i, i] = math.sqrt(A[i, i])


def trmm_like(A, B):
    # B := A^T B with A unit upper triangular: parallel in j only, i strided
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]


def suffix_sum(x):
    n = x.shape[0]
    for i in range(n - 2, -1, -1):
        x[i] += x[i + 1]


def step_neg2(x, y):
    n = x.shape[0]
    for i in range(n - 1, -1, -2):
        y[i] = x[i] * 2.0 + y[i]
    for i in range(n - 2, 0, -2):
        y[i] -= x[i - 1]


def step3(x, y):
    n = x.shape[0]
    for i in range(1, n, 3):
        y[i] = x[i - 1] + x[i]
    for i in range(2, n - 1, 3):
        for j in range(i, n, 3):
            y[j] += x[i]


def window_sum(x, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = 0.0
        for j in range(max(0, i - 2), min(n, i + 3)):
            y[i] += x[j]


def half_ranges(x, y):
    n = x.shape[0]
    h = n // 2
    m = n - 1
    for i in range(h):
        y[i] = x[2 * i] + x[2 * i + 1]
    for i in range((n + 1) // 2, m):
        y[i] = x[i] * 0.5


def first_k(k, x, y):
    for i in range(k):
        y[i] = x[i] + k


# --- conditionals ------------------------------------------------------------------------


def affine_branches(A, B):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            if i == j:
                B[i, j] = A[i, j] * 2.0
            elif i < j and (j - i) % 3 == 0:
                B[i, j] = A[i, j] + 1.0
            elif not (i > 2 or j < 1):
                B[i, j] = -A[i, j]
            else:
                B[i, j] = 0.5


def band_matrix(A, out):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            if j >= i - 1 and j <= i + 1:
                out[i, j] = A[i, j]
            else:
                out[i, j] = 0.0
            if i % 2 == 0:
                if j % 2 == 1 or j == 0:
                    out[i, j] += 1.0


def truthy_guards(A, out):
    """An int's truth as a guard: ``if i % 2:`` runs where ``i % 2 != 0``."""
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            if i % 2:
                out[i, j] = A[i, j]
            if not (j - i) // 3 or i - 2 and j % 3:
                out[i, j] += 1.0
            if (j % 2 == 1) if (i + j) % 3 else i % 5 == 0:  # a conditional test
                out[i, j] *= 0.5


def truth_comparisons(A, out):
    """Truth values compared: ``(i > 1) == (j < 4)`` runs where both hold or neither."""
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            if (i > 1) == (j < 4):
                out[i, j] = A[i, j]
            if (i < n - 2) != True or not (j % 2 == 0) == (i >= j):  # noqa: E712
                out[i, j] += 1.0


def boundary_cases(x, y):
    n = x.shape[0]
    for i in range(n):
        if i == 0:
            t = x[0]
        elif i == n - 1:
            t = x[n - 1] * 2.0
        else:
            t = x[i] + x[i - 1]
        y[i] = t * 0.5


def last_iteration_scalar(x, y, z):
    n = x.shape[0]
    for i in range(n):
        s = x[i] * 2.0
        y[i] = s
        if i == n - 1:
            z[0] = s


def guarded_neighbors(x, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = (x[i + 1] - x[i - 1] if 0 < i < n - 1 else x[i]) * 0.5
        y[i] += x[i - 2] if i >= 2 else (x[i + 2] if i + 2 < n else 1.0)
        y[i] += 1.0 if i > 0 and x[i - 1] > 0.0 else 2.0
        y[i] += 1.0 if i == n - 1 or x[i + 1] > x[i] else 0.0


def data_ternary(x, y, z):
    n = x.shape[0]
    for i in range(n):
        y[i] = x[i] if x[i] > 0.0 else -0.5 * x[i]
        z[i] = 1.0 if x[i] > y[i] * 0.5 and x[i] < 1.0 else 0.0


def floyd_warshall(path):
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                path[i, j] = path[i, j] if path[i, j] < path[i, k] + path[k, j] else (
                    path[i, k] + path[k, j])


# --- stencils and recurrences ------------------------------------------------------------


def jacobi_1d(tsteps, A, B):
    n = A.shape[0]
    for t in range(tsteps):  # noqa: B007 (the time loop, as in PolyBench)
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


def jacobi_2d(tsteps, A, B):
    n = A.shape[0]
    for t in range(tsteps):  # noqa: B007 (the time loop, as in PolyBench)
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, 1 + j] + A[1 + i, j] + A[i - 1, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, 1 + j] + B[1 + i, j] + B[i - 1, j])


def seidel_2d(tsteps, A):
    n = A.shape[0]
    for t in range(tsteps):  # noqa: B007 (the time loop, as in PolyBench)
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1]
                           + A[i, j - 1] + A[i, j] + A[i, j + 1]
                           + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0


def prefix_sum(x):
    n = x.shape[0]
    for i in range(1, n):
        x[i] += x[i - 1]


# --- types and values --------------------------------------------------------------------


def int_divmod(a, b, q, r):
    n = a.shape[0]
    for i in range(n):
        q[i] = a[i] // b[i] + a[i] // 3 + a[i] // -4
        r[i] = a[i] % b[i] + a[i] % 5 - a[i] % -3 + (i - SHIFT) // 2 + (i - 5) % 3


def int32_ops(a, b, out):
    n = a.shape[0]
    for i in range(n):
        out[i] = a[i] * 3 - b[i] // 2 + abs(a[i] - b[i]) + min(a[i], b[i]) * max(a[i], 2)
        out[i] += b[i] % -7 + (-a[i]) // 4


def f32_weak(x, y):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        y[i] = x[i] * 2.5 + 1.0 / 3.0
        s += x[i] * 0.1
    return s


def math_calls(x, y):
    n = x.shape[0]
    for i in range(n):
        v = abs(x[i]) + 0.5
        y[i, 0] = math.sqrt(v) + math.exp(-v) + math.log(v)
        y[i, 1] = math.sin(x[i]) * math.cos(x[i]) + math.tanh(x[i])
        y[i, 2] = math.pow(v, 1.5) + math.fabs(x[i])
        y[i, 3] = np.sqrt(v) + np.exp(x[i] * 0.5) + np.log(v) + np.abs(x[i])
        y[i, 4] = np.sin(v) + np.cos(v) + np.tanh(v) + np.power(v, 0.5)


def abs_min_max(x, y, z):
    n = x.shape[0]
    for i in range(n):
        z[i] = (abs(x[i] - y[i]) + min(x[i], y[i], 0.5) - max(x[i], -y[i])
                + np.minimum(x[i], 1.0) + np.maximum(y[i], x[i]))


def powers(x, k, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = x[i] ** 2 + x[i] ** 3 - abs(x[i]) ** 0.5 + 2.0 ** x[i]
        k[i] = k[i] ** 3 + 2 ** 4
    for i in range(n):
        y[i] **= 2


def aug_ops(x, k):
    for i in range(x.shape[0]):
        x[i] += 1.5
        x[i] -= 0.25
        x[i] *= 2.0
        x[i] /= 3.0
        x[i] //= 0.5
        x[i] %= 7.0
        x[i] **= 2
        k[i] //= 3
        k[i] %= 5
        k[i] **= 2


def conversions(x, k, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = float(k[i]) * 0.5 + int(x[i] * 3.0)
        k[i] = int(x[i] * 10.0) // 3


def iota_values(y, k):
    n, m = y.shape
    for i in range(n):
        k[i] = i * i - 3 * i + (i // 2) - (i % 3) + n
        for j in range(m):
            y[i, j] = (i - j) / (1.0 + j) + i * 0.5


def local_temps(x, y):
    n = x.shape[0]
    for i in range(n):
        t = x[i] * 2.0
        u = t * t - 1.0
        y[i] = t + u / (1.0 + u * u)


# --- allocation, returns, subscripts, names ----------------------------------------------


def scaled_copy(x):
    n = len(x)
    y = np.empty(n)
    for i in range(n):
        y[i] = x[i] * SCALE + SHIFT
    return y


def outer_alloc(x, y):
    n = x.shape[0]
    m = y.shape[0]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] += x[i] * y[j]
    return out


def typed_alloc(x):
    n = x.shape[0]
    ones = np.ones((n,), np.float32)
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        idx[i] = i * 2 - 1
        ones[i] += x[i]
    total = 0
    for i in range(n):
        total += idx[i]
    out = np.zeros((n, 2), dtype=x.dtype)
    for i in range(n):
        out[i, 0] = ones[i]
        out[i, 1] = x[i] * total
    return out


def double_bracket(A, B):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            B[i][j] = A[i][j] * 2.0 + A[i][m - 1 - j]


def last_element(x, y):
    n = len(x)
    for i in range(n):
        y[i] = x[i] - x[-1] + x[0]
    y[-1] += 1.0


def with_globals(x, y):
    n = x.shape[0]
    for i in range(SHIFT, n):
        y[i] = x[i - SHIFT] * SCALE + EPS


# --- the corpus --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A kernel, a generator of its arguments for a size, and the sizes to test."""

    fn: Callable
    make: Callable[[np.random.Generator, int], tuple]
    sizes: tuple[int, ...] = DEFAULT_SIZES
    label: str = ""  # the name, where the function's own is not telling (PolyBench's `kernel`)

    @property
    def name(self) -> str:
        return self.label or self.fn.__name__


def _f(rng: np.random.Generator, *shape: int, dtype=np.float64) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def _i(rng: np.random.Generator, *shape: int, lo: int = -50, hi: int = 50,
       dtype=np.int64) -> np.ndarray:
    return rng.integers(lo, hi, size=shape).astype(dtype)


def _nonzero(rng: np.random.Generator, n: int, dtype=np.int32) -> np.ndarray:
    v = rng.integers(1, 9, size=n) * rng.choice([-1, 1], size=n)
    return v.astype(dtype)


def _upper(rng: np.random.Generator, n: int) -> np.ndarray:
    U = _f(rng, n, n)
    U[np.arange(n), np.arange(n)] = 2.0 + rng.random(n)
    return U


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    """Symmetric positive definite, well conditioned (a Cholesky factorization exists)."""
    M = _f(rng, n, n)
    return M @ M.T + n * np.eye(n)


CASES: dict[str, Case] = {c.name: c for c in [
    Case(matmul_acc, lambda r, n: (_f(r, n, n + 1), _f(r, n + 1, n + 2), _f(r, n, n + 2)),
         CUBIC_SIZES),
    Case(gemm, lambda r, n: (1.5, 1.2, _f(r, n, n + 2), _f(r, n, n + 1), _f(r, n + 1, n + 2)),
         CUBIC_SIZES),
    Case(fill_matmul, lambda r, n: (_f(r, n, 3), _f(r, 3, n + 1), _f(r, n, n + 1))),
    Case(mm_exp_mm, lambda r, n: (0.3 * _f(r, n, n + 1), 0.3 * _f(r, n + 1, 2),
                                  _f(r, 2, n + 2), _f(r, n, n + 2))),
    Case(dot, lambda r, n: (_f(r, n), _f(r, n))),
    Case(doitgen_like, lambda r, n: (_f(r, n, 2, n + 1), _f(r, n + 1, n + 1), _f(r, n, 2, n + 1)),
         CUBIC_SIZES),
    Case(transpose, lambda r, n: (_f(r, n, n + 2), _f(r, n + 2, n))),
    Case(rowsum_scale, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    # atax: one sweep of A when the row loop stays whole (y, an array reduction over rows)
    Case(atax.kernel, lambda r, n: (_f(r, n + 2, n), _f(r, n), _f(r, n), _f(r, n + 2)),
         label="atax"),
    # bicg: s[j], an array reduction over rows, beside q[i], kept in a register across j
    Case(bicg.kernel, lambda r, n: (_f(r, n + 2, n), _f(r, n), _f(r, n + 2), _f(r, n),
                                    _f(r, n + 2)), label="bicg"),
    # gemver: x[i] += beta * A[j, i] * y[j] stays a nest of its own, to be tiled unit stride
    Case(gemver.kernel, lambda r, n: (1.5, 1.2, _f(r, n, n), *(_f(r, n) for _ in range(8))),
         label="gemver"),
    # mvt: x1 = A y_1 and x2 = A^T y_2, fused with the second's loops interchanged
    Case(mvt.kernel, lambda r, n: (_f(r, n), _f(r, n), _f(r, n), _f(r, n), _f(r, n, n)),
         label="mvt"),
    Case(update_then_column_sums_ahead, lambda r, n: (_f(r, n + 1, n), _f(r, n + 1), _f(r, n))),
    Case(update_then_column_sums_reversed, lambda r, n: (_f(r, n, n), _f(r, n), _f(r, n))),
    Case(reduce_reduce_map, lambda r, n: (_f(r, n), _f(r, n))),
    Case(element_reduction, lambda r, n: (_f(r, n, n + 1), _f(r, 4))),
    Case(two_sums, lambda r, n: (_f(r, n), _f(r, 3))),
    Case(max_abs, lambda r, n: (_f(r, n),)),
    Case(int_min_max, lambda r, n: (_i(r, n, dtype=np.int32), _i(r, 2))),
    Case(center_columns, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    Case(tri_lower, lambda r, n: (_f(r, n, n), _f(r, n), _f(r, n))),
    Case(tri_upper_sum, lambda r, n: (_f(r, n, n), _f(r, n, n))),
    Case(back_substitution, lambda r, n: (_upper(r, n), _f(r, n), _f(r, n))),
    Case(cholesky_in_place, lambda r, n: (_spd(r, n),), CUBIC_SIZES),
    Case(trmm_like, lambda r, n: (_f(r, n + 1, n + 1), _f(r, n + 1, n + 2)), CUBIC_SIZES),
    Case(suffix_sum, lambda r, n: (_f(r, n),)),
    Case(step_neg2, lambda r, n: (_f(r, n), _f(r, n)), (0, 1, 2, 3, 4, 7, 8, 131)),
    Case(step3, lambda r, n: (_f(r, n), _f(r, n)), (0, 1, 2, 3, 4, 5, 9, 10, 131)),
    Case(window_sum, lambda r, n: (_f(r, n), _f(r, n))),
    Case(half_ranges, lambda r, n: (_f(r, n), _f(r, n))),
    Case(first_k, lambda r, n: (n // 2, _f(r, n), _f(r, n))),
    Case(affine_branches, lambda r, n: (_f(r, n, n + 2), _f(r, n, n + 2))),
    Case(band_matrix, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    Case(truthy_guards, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    Case(truth_comparisons, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    Case(boundary_cases, lambda r, n: (_f(r, n), _f(r, n))),
    Case(last_iteration_scalar, lambda r, n: (_f(r, n), _f(r, n), _f(r, 1))),
    Case(guarded_neighbors, lambda r, n: (_f(r, n), _f(r, n))),
    Case(data_ternary, lambda r, n: (_f(r, n), _f(r, n), _f(r, n))),
    Case(floyd_warshall, lambda r, n: (_i(r, n, n, lo=1, hi=100),), CUBIC_SIZES),
    Case(jacobi_1d, lambda r, n: (min(n, 3), _f(r, n), _f(r, n))),
    Case(jacobi_2d, lambda r, n: (min(n, 3), _f(r, n, n), _f(r, n, n))),
    Case(seidel_2d, lambda r, n: (min(n, 3), _f(r, n, n))),
    Case(prefix_sum, lambda r, n: (_f(r, n),)),
    Case(int_divmod, lambda r, n: (_i(r, n), _nonzero(r, n), _i(r, n),
                                   _i(r, n, dtype=np.int32))),
    Case(int32_ops, lambda r, n: (_i(r, n, dtype=np.int32), _i(r, n, dtype=np.int32),
                                  _i(r, n, dtype=np.int32))),
    Case(f32_weak, lambda r, n: (_f(r, n, dtype=np.float32), _f(r, n, dtype=np.float32))),
    Case(math_calls, lambda r, n: (_f(r, n), _f(r, n, 5))),
    Case(abs_min_max, lambda r, n: (_f(r, n), _f(r, n), _f(r, n))),
    Case(powers, lambda r, n: (_f(r, n), _i(r, n), _f(r, n))),
    Case(aug_ops, lambda r, n: (3.0 * _f(r, n), _i(r, n))),
    Case(conversions, lambda r, n: (_f(r, n), _i(r, n), _f(r, n))),
    Case(iota_values, lambda r, n: (_f(r, n, n + 1), _i(r, n))),
    Case(local_temps, lambda r, n: (_f(r, n), _f(r, n))),
    Case(scaled_copy, lambda r, n: (_f(r, n),)),
    Case(outer_alloc, lambda r, n: (_f(r, n), _f(r, n + 1))),
    Case(typed_alloc, lambda r, n: (_f(r, n, dtype=np.float32),)),
    Case(double_bracket, lambda r, n: (_f(r, n, n + 1), _f(r, n, n + 1))),
    Case(last_element, lambda r, n: (_f(r, n), _f(r, n))),
    Case(with_globals, lambda r, n: (_f(r, n), _f(r, n)), (0, 1, 3, 4, 8, 130)),
]}
