/* gcc 12.2 -O3 -march=<AVX-512 host> -fno-math-errno miscompiles kern_r: its result
   differs from kern_p, the same loop nest without `restrict` (u and A never overlap,
   so `restrict` is honoured).  -fno-tree-loop-distribution, -fno-tree-loop-vectorize,
   -O2, or a target without AVX-512 (-mavx2) each give the right result. */
#include <stdint.h>
#include <stdio.h>

#define BODY                                                                          \
  for (int64_t c0 = 1 - n; c0 <= 0; c0 += 1)                                         \
    for (int64_t j = 0; j < n - 1; j += 1)                                            \
      for (int64_t k = 0; k < n; k += 1) {                                            \
        if (c0 + j == 0)                                                              \
          u[k] = u[k] * 1.5 + (k < n - 1 ? u[k + 1] : 0.0);                           \
        else if (j >= 1)                                                              \
          A[k * n + (j - 1)] *= 0.5;                                                  \
        A[(n - k - 1) * n + (n - j - 1)] -=                                           \
            (j > 1) ? 2.0 : (u[n - j - 1] - ((c0 == 0) ? A[(j + 1) * n] : A[j * n + k])); \
      }

__attribute__((noinline)) void kern_r(int64_t n, double *restrict u, double *restrict A) { BODY }
__attribute__((noinline)) void kern_p(int64_t n, double *u, double *A) { BODY }

int main(void)
{
  double u[2][8], A[2][64];
  unsigned s = 1;
  for (int i = 0; i < 8; i++) { s = s * 1103515245 + 12345; u[0][i] = u[1][i] = (double)(s >> 16) / 65536.0 - 0.3; }
  for (int i = 0; i < 64; i++) { s = s * 1103515245 + 12345; A[0][i] = A[1][i] = (double)(s >> 16) / 65536.0 - 0.3; }
  kern_r(8, u[0], A[0]);
  kern_p(8, u[1], A[1]);
  int bad = 0;
  for (int i = 0; i < 8; i++) bad += u[0][i] != u[1][i];
  for (int i = 0; i < 64; i++) bad += A[0][i] != A[1][i];
  printf("%s: %d elements differ\n", bad ? "miscompiled" : "ok", bad);
  return bad != 0;
}
