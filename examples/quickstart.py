"""polyopt in one minute: compile a matrix multiplication written as plain loops.

Run with `make demo`.  It prints the dependence report, the generated C, checks
the compiled result against the original Python, and times both.
"""

from __future__ import annotations

import time

import numpy as np

import polyopt


@polyopt.jit
def gemm(alpha, beta, C, A, B):
    ni, nj = C.shape
    nk = A.shape[1]
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
            for k in range(nk):
                C[i, j] += alpha * A[i, k] * B[k, j]


def median_time(fn, *args, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main() -> None:
    rng = np.random.default_rng(0)
    n = 120
    A, B, C = rng.random((n, n)), rng.random((n, n)), rng.random((n, n))

    print("=" * 72)
    print(gemm.report(1.5, 1.2, C, A, B))
    print("=" * 72)
    print("Generated C (the kernel function):\n")
    src = gemm.c_source(1.5, 1.2, C, A, B)
    print(src[src.index("void polyopt_gemm"):])
    print("=" * 72)

    expected = C.copy()
    gemm.py_func(1.5, 1.2, expected, A, B)
    got = C.copy()
    t0 = time.perf_counter()
    gemm(1.5, 1.2, got, A, B)
    first = time.perf_counter() - t0
    ok = np.allclose(got, expected, rtol=1e-12, atol=1e-12)
    print(f"compiled result matches Python: {ok}  (first call, with compilation: {first:.3f} s)")
    if not ok:
        raise SystemExit("MISMATCH: the compiled kernel disagrees with Python")

    t_py = median_time(gemm.py_func, 1.5, 1.2, C.copy(), A, B, repeat=1)
    t_c = median_time(gemm, 1.5, 1.2, C.copy(), A, B, repeat=5)
    print(f"plain Python: {t_py * 1e3:9.2f} ms")
    print(f"polyopt:      {t_c * 1e3:9.2f} ms   ({t_py / t_c:,.0f}x faster, n={n})")


if __name__ == "__main__":
    main()
