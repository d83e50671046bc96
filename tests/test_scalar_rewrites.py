"""The scalar rewrites (accumulator promotion and scalar expansion, contraction, LICM)
on bodies with several scalars: several feeding one store, one feeding several stores,
scalars redefined, rotated, conditionally assigned, accumulators beside temporaries,
min/max accumulators.

Every kernel is compared with CPython under each option set of ``OPTION_SETS``;
a seeded generator of loop bodies with scalar temporaries, accumulators and rotations
hunts the same class of bugs.  Promotion once rewrote ``a = x[i] + 1; b = x[i] * 2;
y[i] = a - b`` as ``y[i] = x[i] + 1; y[i] = x[i] * 2; y[i] = y[i] - y[i]``: each chain
was checked alone, then all were rewritten at once.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.scheduler import time_tiling
from polyopt.transforms.promote import find_chains, promote

OPTION_SETS: dict[str, dict] = {
    "default": {},
    "fuse=max": {"fuse": "max"},
    "fuse=none": {"fuse": "none"},
    "tile=4": {"tile": (4, 4, 4)},
    "tile=(2,3)": {"tile": (2, 3)},
    "strict_fp": {"strict_fp": True},
    "sequential": {"parallel": False, "vectorize": False},
    "unroll_jam": {"unroll_jam": True, "pack": False},
    "auto=False": {"auto": False},
}


# --- kernels ----------------------------------------------------------------------------

def two_temps_one_store(x, y):
    for i in range(x.shape[0]):
        a = x[i] + 1.0
        b = x[i] * 2.0
        y[i] = a - b


def one_temp_two_stores(x, y, z):
    for i in range(x.shape[0]):
        a = x[i] + 1.0
        y[i] = a * 3.0
        z[i] = a - 2.0


def redefined_from_itself(x, y, z):
    for i in range(x.shape[0]):
        t = x[i]
        y[i] = t
        t = t * 2.0
        z[i] = t


def redefined_afresh(x, y, z):
    for i in range(x.shape[0]):
        t = x[i] + 1.0
        y[i] = t
        t = x[i] * 3.0
        z[i] = t


def redefined_same_store(x, y):
    for i in range(x.shape[0]):
        t = x[i] + 1.0
        y[i] = t
        t = x[i] * 3.0
        y[i] = y[i] * t


def fibonacci_rotation(x, y):
    for i in range(x.shape[0]):
        a = x[i]
        b = 1.0
        for _j in range(5):
            c = a + b
            a = b
            b = c
        y[i] = b


def rotation_across_iterations(x, y):
    a = 0.0
    b = 1.0
    for i in range(x.shape[0]):
        c = a + b * x[i]
        a = b
        b = c
        y[i] = c


def swap(x, y):
    for i in range(x.shape[0]):
        a = x[i]
        b = y[i]
        t = a
        a = b
        b = t
        x[i] = a
        y[i] = b


def row_variance(A, var):
    n, m = A.shape
    for i in range(n):
        s = 0.0
        q = 0.0
        for j in range(m):
            t = A[i, j]
            s += t
            q += t * t
        var[i] = q / m - (s / m) ** 2


def product_variance(A, B, var):
    n, m = A.shape
    for i in range(n):
        for k in range(B.shape[1]):
            s = 0.0
            q = 0.0
            for j in range(m):
                t = A[i, j] * B[j, k]
                s += t
                q += t * t
            var[i, k] = q / m - (s / m) ** 2


def two_accumulators_one_store(A, B, C):
    n, m = A.shape
    for i in range(n):
        for j in range(B.shape[1]):
            s = 0.0
            q = 0.0
            for k in range(m):
                s += A[i, k] * B[k, j]
                q += A[i, k] - B[k, j]
            C[i, j] = s * q


def two_chains_one_element(A, B, C):
    n, m = A.shape
    for i in range(n):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(m):
                s += A[i, k] * B[k, j]
            C[i, j] = s
            q = 0.0
            for k in range(m):
                q += A[i, k] + C[i, j]
            C[i, j] = q


def accumulator_with_temporary(A, B, C):
    n, m = A.shape
    for i in range(n):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in range(m):
                t = A[i, k] * B[k, j]
                acc += t
            C[i, j] = acc


def accumulator_used_after_store(A, y, z):
    n, m = A.shape
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j]
        y[i] = s
        z[i] = s * 2.0


def accumulator_used_after_store_2d(A, B, C, D):
    n, m = A.shape
    for i in range(n):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(m):
                s += A[i, k] * B[k, j]
            C[i, j] = s
            D[i, j] = s + C[i, j]


def read_before_redefinition(x, y):
    t = 0.0
    for i in range(x.shape[0]):
        y[i] = t + x[i]
        t = x[i] * 2.0


def read_before_redefinition_store(x, y):
    t = 0.0
    for i in range(x.shape[0]):
        y[i] = t
        t = x[i] * 2.0
        y[i] = y[i] + t


def conditional_definition(x, y):
    n = x.shape[0]
    for i in range(n):
        if i < n // 2:
            t = x[i] * 2.0
        else:
            t = x[i] + 5.0
        y[i] = t


def conditional_accumulation(A, y):
    n, m = A.shape
    for i in range(n):
        s = 0.0
        for j in range(m):
            if j > i:
                s += A[i, j]
            else:
                s -= A[i, j]
        y[i] = s


def conditional_store(x, y, z):
    for i in range(x.shape[0]):
        t = x[i] * 2.0
        if i > 2:
            y[i] = t
        z[i] = 1.0


def min_max(A, lo, hi):
    n, m = A.shape
    for i in range(n):
        mn = A[i, 0]
        mx = A[i, 0]
        for j in range(m):
            mn = min(mn, A[i, j])
            mx = max(mx, A[i, j])
        lo[i] = mn
        hi[i] = mx - mn


def max_product(A, B, C):
    n, m = A.shape
    for i in range(n):
        for j in range(B.shape[1]):
            mx = -1e300
            for k in range(m):
                mx = max(mx, A[i, k] * B[k, j])
            C[i, j] = mx


def stencil_temporaries(A, B):
    n, m = A.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            c = A[i, j]
            w = A[i, j - 1]
            e = A[i, j + 1]
            B[i, j] = 0.25 * (w + e) + 0.5 * c
            c = B[i, j] - c
            A[i, j] = c


def black_scholes(S, K, T, r, v, call, put):
    for i in range(S.shape[0]):
        sq = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sq)
        d2 = d1 - v * sq
        n1 = 0.5 * (1.0 + math.tanh(0.7978845608 * (d1 + 0.044715 * d1 * d1 * d1)))
        n2 = 0.5 * (1.0 + math.tanh(0.7978845608 * (d2 + 0.044715 * d2 * d2 * d2)))
        disc = K[i] * math.exp(-r * T[i])
        call[i] = S[i] * n1 - disc * n2
        put[i] = call[i] - S[i] + disc


def temporaries_feeding_one_store(x, y):
    n = x.shape[0]
    T = np.empty(n)
    U = np.empty(n)
    for i in range(n):
        T[i] = x[i] + 1.0
    for i in range(n):
        U[i] = x[i] * 2.0
    for i in range(n):
        y[i] = T[i] - U[i]


def temporary_feeding_two_stores_rewritten(x, y, z):
    n = x.shape[0]
    T = np.empty(n)
    for i in range(n):
        T[i] = x[i] + 1.0
    for i in range(n):
        y[i] = T[i] * 3.0
        T[i] = T[i] * 2.0
    for i in range(n):
        z[i] = T[i] - y[i]


def temporaries_rotating(x, y):
    n = x.shape[0]
    P = np.zeros(n)
    Q = np.ones(n)
    for i in range(n):
        for _j in range(4):
            c = P[i] + Q[i] * x[i]
            P[i] = Q[i]
            Q[i] = c
    for i in range(n):
        y[i] = P[i] - Q[i]


def two_element_accumulators(A, y, z):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            t = A[i, j] * 2.0
            y[i] += t
            z[i] = max(z[i], t)


def accumulator_beside_its_reader(A, y, z):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            y[i] += A[i, j]
            z[i] = z[i] * 0.5 + y[i]


def two_updates_of_one_element(A, B, C):
    """Two statements reduce into C[i] with one operator: one reduction (issue 15)."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            C[i] += A[i, j]
            C[i] -= 2.0 * B[i, j]


def two_updates_of_one_element_columns(A, B, C):
    for j in range(A.shape[1]):
        for i in range(A.shape[0]):
            C[i] += A[i, j]
            C[i] = C[i] + B[i, j] * 0.5


def two_updates_of_one_scalar(A, B, C):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j]
            s = s + B[i, j]
        C[i] = s


def two_updates_one_reading_the_other(A, B, C):
    """The second update reads the accumulator: no reduction, the order stays."""
    for i in range(A.shape[0]):
        t = 0.0
        for j in range(A.shape[1]):
            t += A[i, j]
            t += B[i, j] * t
        C[i] = t


def _two_matrices_and_vector(rng):
    return rng.random((9, 7)) - 0.3, rng.random((9, 7)), rng.random(9)


def _vectors(k: int):
    return lambda rng: tuple(rng.random(11) - 0.3 for _ in range(k))


def _matrix_and(k: int):
    return lambda rng: (rng.random((9, 7)) - 0.3, *(rng.random(9) for _ in range(k)))


def _product(k: int):
    return lambda rng: (rng.random((9, 7)) - 0.3, rng.random((7, 6)) - 0.3,
                        *(rng.random((9, 6)) for _ in range(k)))


def _options(rng):
    n = 13
    return (rng.random(n) + 0.5, rng.random(n) + 0.5, rng.random(n) + 0.1, 0.05, 0.3,
            np.zeros(n), np.zeros(n))


KERNELS = {
    f.__name__: (f, args) for f, args in [
        (two_temps_one_store, _vectors(2)),
        (one_temp_two_stores, _vectors(3)),
        (redefined_from_itself, _vectors(3)),
        (redefined_afresh, _vectors(3)),
        (redefined_same_store, _vectors(2)),
        (fibonacci_rotation, _vectors(2)),
        (rotation_across_iterations, _vectors(2)),
        (swap, _vectors(2)),
        (row_variance, _matrix_and(1)),
        (product_variance, lambda rng: _product(1)(rng)),
        (two_accumulators_one_store, _product(1)),
        (two_chains_one_element, _product(1)),
        (accumulator_with_temporary, _product(1)),
        (accumulator_used_after_store, _matrix_and(2)),
        (accumulator_used_after_store_2d, _product(2)),
        (read_before_redefinition, _vectors(2)),
        (read_before_redefinition_store, _vectors(2)),
        (conditional_definition, _vectors(2)),
        (conditional_accumulation, _matrix_and(1)),
        (conditional_store, _vectors(3)),
        (min_max, _matrix_and(2)),
        (max_product, _product(1)),
        (stencil_temporaries, lambda rng: (rng.random((9, 8)), rng.random((9, 8)))),
        (black_scholes, _options),
        (temporaries_feeding_one_store, _vectors(2)),
        (temporary_feeding_two_stores_rewritten, _vectors(3)),
        (temporaries_rotating, _vectors(2)),
        (two_element_accumulators, _matrix_and(2)),
        (accumulator_beside_its_reader, _matrix_and(2)),
        (two_updates_of_one_element, _two_matrices_and_vector),
        (two_updates_of_one_element_columns, _two_matrices_and_vector),
        (two_updates_of_one_scalar, _two_matrices_and_vector),
        (two_updates_one_reading_the_other, _two_matrices_and_vector),
    ]
}


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("name", KERNELS)
def test_kernel_equals_python(rng, name, options):
    fn, args = KERNELS[name]
    check_against_python(polyopt.jit(fn, **OPTION_SETS[options]), *args(rng))


# --- what promotion does with several chains --------------------------------------------

def _promoted(fn, *args):
    k = polyopt.jit(fn)
    scop = parse_function(fn, k._sig_for(args, {}))
    deps = analyze(scop)
    return scop, find_chains(scop, deps), promote(scop, deps)


def test_two_scalars_feeding_one_store_promote_only_one(rng):
    # each chain alone may live in y[i]; both at once would compute y[i] - y[i]
    scop, chains, new = _promoted(two_temps_one_store, *_vectors(2)(rng))
    assert sorted(c.scalar for c in chains) == ["a", "b"]
    assert "a" not in new.scalars and "b" in new.scalars
    store = next(s for s in new.statements if s.source == "y[i] = a - b")
    assert [r.target for r in store.reads] == ["b", "y"]


def test_row_variance_keeps_one_accumulator_in_the_element(rng):
    scop, chains, new = _promoted(row_variance, *_matrix_and(1)(rng))
    assert sorted(c.scalar for c in chains) == ["q", "s"]
    assert "s" not in new.scalars and {"q", "t"} <= set(new.scalars)


# --- a seeded generator of loop bodies full of scalars ---------------------------------

SCALARS = ("a", "b", "c", "s", "t")
TEMPORARIES = ("u", "v", "w")
ACCUMULATORS = ("p", "q")
LOOP_RANGES = ("range(n)", "range({outer})", "range({outer} + 1, n)", "range(1, n)")


class _Body:
    """Random statements over ``x, y, z`` (n) and ``A, B, Y`` (n by n): every scalar a
    statement reads is assigned on every path before it (CPython would raise otherwise),
    and values stay small (products always have a load or a constant as one factor)."""

    def __init__(self, seed: int) -> None:
        self.r = np.random.default_rng(seed)
        self.lines: list[str] = []

    def pick(self, options):
        return options[int(self.r.integers(len(options)))]

    def leaf(self, defined: set[str], iters: tuple[str, ...]) -> str:
        loads = ["x[i]", "y[i]", *(f"A[i, {v}]" for v in iters[1:]),
                 *(f"B[{v}, {w}]" for v in iters[1:] for w in iters[1:] if v != w),
                 *(f"x[{v}]" for v in iters[1:])]
        choice = self.r.random()
        if defined and choice < 0.5:
            return self.pick(sorted(defined))
        if choice < 0.85:
            return self.pick(loads)
        return self.pick(["0.5", "1.5", "2.0"])

    def expr(self, defined: set[str], iters: tuple[str, ...], depth: int = 2) -> str:
        if depth == 0 or self.r.random() < 0.3:
            return self.leaf(defined, iters)
        a = self.expr(defined, iters, depth - 1)
        kind = self.r.random()
        if kind < 0.35:
            return f"({a} + {self.expr(defined, iters, depth - 1)})"
        if kind < 0.6:
            return f"({a} - {self.expr(defined, iters, depth - 1)})"
        if kind < 0.8:
            return f"({a} * {self.pick(['x[i]', '0.5', '1.5'])})"
        return f"{self.pick(['max', 'min'])}({a}, {self.expr(defined, iters, depth - 1)})"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def stores(self, iters: tuple[str, ...]) -> list[str]:
        return ["y[i]", "z[i]", *(f"Y[i, {v}]" for v in iters[1:])]

    def temporaries(self, indent: int, defined: set[str], iters: tuple[str, ...]) -> None:
        """Fresh temporaries feeding one or several stores, maybe redefined between them
        (``u = x[i] + 1; v = x[i] * 2; y[i] = u - v``)."""
        temps = [str(t) for t in self.r.choice(TEMPORARIES, int(self.r.integers(1, 4)),
                                               replace=False)]
        for t in temps:
            self.emit(indent, f"{t} = {self.expr(defined, iters)}")
        local = defined | set(temps)
        for _ in range(int(self.r.integers(1, 3))):
            a, b = self.pick(temps), self.pick(temps)
            value = self.pick([f"{a} - {b}", f"{a} * {b}", f"{a} + {self.expr(local, iters, 1)}"])
            self.emit(indent, f"{self.pick(self.stores(iters))} {self.pick(['=', '+='])} {value}")
            if self.r.random() < 0.3:
                t = self.pick(temps)
                self.emit(indent, self.pick([f"{t} = {t} * 2.0", f"{t} = {self.expr(local, iters)}"]))
        defined -= set(TEMPORARIES)  # read again later, they would outlive their stores

    def accumulators(self, indent: int, defined: set[str], iters: tuple[str, ...]) -> None:
        """One or two accumulators over a new inner loop, beside a temporary, then stores
        that read them (row variance's ``s`` and ``q``)."""
        accs = [str(a) for a in self.r.choice(ACCUMULATORS, int(self.r.integers(1, 3)),
                                              replace=False)]
        for a in accs:
            self.emit(indent, f"{a} = {self.pick(['0.0', '1.0', 'x[i]', 'y[i]'])}")
        it = "ijk"[len(iters)]
        inner = (*iters, it)
        self.emit(indent, f"for {it} in {self.pick(LOOP_RANGES).format(outer=iters[-1])}:")
        local = set(defined)
        if self.r.random() < 0.6:
            self.emit(indent + 1, f"u = {self.expr(set(), inner, 1)}")
            local.add("u")
        for a in accs:
            e = self.expr(local, inner, 1)
            self.emit(indent + 1, self.pick([f"{a} += {e}", f"{a} = max({a}, {e})",
                                             f"{a} = min({a}, {e})", f"{a} = {a} * 0.5 + {e}"]))
        for _ in range(int(self.r.integers(1, 3))):
            value = " - ".join(self.pick(accs) for _ in range(int(self.r.integers(1, 3))))
            self.emit(indent, f"{self.pick(self.stores(iters))} {self.pick(['=', '+='])} {value}")
        defined -= set(TEMPORARIES)
        if self.r.random() < 0.3:
            defined |= set(accs)  # read after their stores
        else:
            defined -= set(accs)

    def statement(self, indent: int, defined: set[str], iters: tuple[str, ...]) -> None:
        kind = self.r.random()
        if kind < 0.15:
            self.temporaries(indent, defined, iters)
            return
        if kind < 0.27 and len(iters) < 3:
            self.accumulators(indent, defined, iters)
            return
        kind = self.r.random()
        var = self.pick(SCALARS)
        if kind < 0.3:
            self.emit(indent, f"{var} = {self.expr(defined, iters)}")
            defined.add(var)
        elif kind < 0.5 and defined:
            var = self.pick(sorted(defined))
            e = self.expr(defined, iters, 1)
            self.emit(indent, self.pick([f"{var} += {e}", f"{var} = max({var}, {e})",
                                         f"{var} = min({var}, {e})",
                                         f"{var} = {var} * 0.5 + {e}"]))
        elif kind < 0.6 and len(defined) >= 2:
            a, b = self.r.choice(sorted(defined), 2, replace=False)
            c = self.pick([v for v in SCALARS if v not in (a, b)])
            self.emit(indent, f"{c} = {a} + {b}")
            self.emit(indent, f"{a} = {b}")
            self.emit(indent, f"{b} = {c}")
            defined.add(c)
        elif kind < 0.7:
            cond = self.pick([f"{iters[-1]} < n // 2", f"{iters[-1]} > 2"]
                             + ([f"{iters[-1]} + i >= n"] if len(iters) > 1 else []))
            self.emit(indent, f"if {cond}:")
            self.emit(indent + 1, f"{var} = {self.expr(defined, iters)}")
            if var not in defined or self.r.random() < 0.5:  # else the old value stays
                self.emit(indent, "else:")
                self.emit(indent + 1, f"{var} = {self.expr(defined, iters)}")
            defined.add(var)
        else:
            target = self.pick(self.stores(iters))
            op = self.pick(["=", "=", "+="])
            self.emit(indent, f"{target} {op} {self.expr(defined, iters)}")

    def loop(self, indent: int, defined: set[str], iters: tuple[str, ...], levels: int) -> None:
        it = "ijk"[len(iters)]
        rng = self.pick(LOOP_RANGES).format(outer=iters[-1] if iters else "n")
        self.emit(indent, f"for {it} in {rng if iters else 'range(n)'}:")
        inside = (*iters, it)
        body = set(defined)  # what the body defines may not be defined after it
        for _ in range(int(self.r.integers(1, 3))):
            self.statement(indent + 1, body, inside)
        if levels > 1:
            for _ in range(int(self.pick([1, 1, 2]))):
                self.loop(indent + 1, body, inside, levels - 1)
            for _ in range(int(self.r.integers(0, 3))):
                self.statement(indent + 1, body, inside)
        if not iters:
            return
        defined |= body if rng == "range(n)" else set()


def random_kernel(seed: int) -> str:
    """The source of a function ``kernel(x, y, z, A, B, Y)`` with one or two outer loops
    of up to three levels, whose bodies define, update, rotate and store scalars."""
    g = _Body(seed)
    g.emit(0, f"def kernel_{seed}(x, y, z, A, B, Y):")
    g.emit(1, "n = x.shape[0]")
    defined = {v for v in SCALARS if g.r.random() < 0.4}
    for v in sorted(defined):
        g.emit(1, f"{v} = {g.pick(['0.0', '1.0', '0.5'])}")
    for _ in range(int(g.r.integers(1, 3))):
        g.loop(1, defined, (), int(g.pick([1, 2, 2, 3])))
    if defined and g.r.random() < 0.3:
        g.emit(1, f"return {g.pick(sorted(defined))}")
    return "\n".join(g.lines) + "\n"


GENERATED = 28  # programs; each runs under three option sets, in turn through the matrix


def _load(source: str, name: str, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text("import math  # noqa: F401\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.mark.parametrize("seed", range(GENERATED))
def test_generated_bodies_equal_python(tmp_path, seed):
    fn = _load(random_kernel(seed), f"kernel_{seed}", tmp_path)
    rng = np.random.default_rng(seed)
    n = 6
    args = (*(rng.random(n) + 0.5 for _ in range(3)), *(rng.random((n, n)) + 0.5 for _ in range(3)))
    names = list(OPTION_SETS)
    for k in range(3):
        options = names[(3 * seed + k) % len(names)]
        try:
            check_against_python(polyopt.jit(fn, **OPTION_SETS[options]), *args)
        except AssertionError as exc:
            raise AssertionError(f"options {options}:\n{random_kernel(seed)}\n{exc}") from exc


def scalar_through_a_sweep(A, B):
    n = A.shape[0]
    s = 0.0
    for _t in range(3):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                s = s * 0.5 + A[i, j - 1]
                B[i, j] = s + A[i, j + 1]
                A[i, j] = 0.5 * B[i, j]


def test_no_time_tiling_around_a_scalar_written_two_loops_deep(rng, monkeypatch):
    # every instance writes `s`: no band of the i and j loops is permutable, and isl's
    # scheduler took 14 s per nest to find none in a generated body
    def refuse(*args, **kwargs):
        raise AssertionError("isl's scheduler was asked to time-tile")

    monkeypatch.setattr(time_tiling, "isl_schedule", refuse)
    check_against_python(polyopt.jit(scalar_through_a_sweep), rng.random((9, 9)),
                         rng.random((9, 9)))
