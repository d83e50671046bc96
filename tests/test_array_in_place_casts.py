"""``A op= value`` on arrays is NumPy's ufunc with ``out=A``: the result is cast back with
the ``same_kind`` rule, so ``k += 1.5`` on an int array raises UFuncTypeError.  polyopt
truncated the values silently; it now refuses such a statement at its line and column,
and keeps compiling the casts NumPy allows (int64 into int8, float64 into float32, one
element at a time: ``k[i] += 1.5``)."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt


def add_float(k):
    k += 1.5  # add


def divide(k):
    k /= 2  # divide


def scale_tail(k, x):
    k[1:] *= x[1:]  # tail


def bool_plus_int(b):
    b += 1  # bools


def matmul_in_place(A, B):
    A @= B  # matmul


def narrow_int(k8, k64):
    k8 += k64


def narrow_float(x32, x64):
    x32 -= x64 * 0.5


def elementwise_loop(k):
    for i in range(k.shape[0]):
        k[i] += 1.5


def converted(k, x):
    k[:] = k * x


def half_plus_int(h, k):
    h += k


THIS_FILE = __file__

REFUSED = [
    (add_float, lambda: (np.arange(5),), "add", "float64", "int64", "k[:] = k[:] + 1.5"),
    (divide, lambda: (np.arange(5, dtype=np.int32),), "divide", "float64", "int32",
     "k[:] = k[:] / 2"),
    (scale_tail, lambda: (np.arange(5, dtype=np.int32), np.ones(5)), "tail", "float64", "int32",
     "k[1:] = k[1:] * x[1:]"),
    (bool_plus_int, lambda: (np.ones(3, bool),), "bools", "int64", "bool", "b[:] = b[:] + 1"),
]


def _line(marker: str) -> int:
    lines = open(THIS_FILE).read().splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.endswith(f"# {marker}"))


@pytest.mark.parametrize(("fn", "args", "marker", "result", "target", "hint"), REFUSED,
                         ids=[c[0].__name__ for c in REFUSED])
def test_an_update_numpy_cannot_cast_back_is_refused(fn, args, marker, result, target, hint):
    with pytest.raises(TypeError):  # NumPy's UFuncTypeError
        fn(*args())
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(fn)(*args())
    e = info.value
    assert (e.filename, e.lineno, e.offset) == (THIS_FILE, _line(marker), 5), str(e)
    assert f"computes {result} values" in str(e) and f"the {target} array" in str(e)
    assert hint in str(e)


def test_an_in_place_matrix_product_is_refused_at_the_statement():
    with pytest.raises(polyopt.UnsupportedError, match="in-place matrix product") as info:
        polyopt.jit(matmul_in_place)(np.ones((3, 3)), np.ones((3, 3)))
    assert info.value.lineno == _line("matmul")


@pytest.mark.parametrize(("fn", "args"), [
    (narrow_int, lambda: (np.arange(5, dtype=np.int8), np.arange(5) * 100)),
    (narrow_float, lambda: (np.ones(5, np.float32), np.linspace(0, 1, 5))),
    (elementwise_loop, lambda: (np.arange(5),)),
    (converted, lambda: (np.arange(5), np.full(5, 1.5))),
    (half_plus_int, lambda: (np.ones(5, np.float16), np.arange(5, dtype=np.int32))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_casts_numpy_allows_still_compile(fn, args):
    want, got = args(), args()
    fn(*want)
    polyopt.jit(fn)(*got)
    for w, g in zip(want, got, strict=True):
        assert w.dtype == g.dtype and np.array_equal(w, g)
