/* durbin: Levinson-Durbin recursion for a Toeplitz system
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/durbin): scalar
 * temporaries (alpha, beta, sum) carried from one iteration to the next.
 */
#include <stdio.h>

#define N 120
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_N n

static void kernel_durbin(int n, DATA_TYPE r[N], DATA_TYPE y[N])
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;
  int i, k;

/* polyopt: optimized scop region (lines 20-41) */
{
  (void)alpha; (void)beta; (void)i; (void)k; (void)sum;  /* named by the loops as written */
  y[0] = (-r[0]);
  beta = 1.0;
  alpha = (-r[0]);
  for (int c0 = 1; c0 < n; c0 += 1) {
    beta = ((1.0 - (alpha * alpha)) * beta);
    sum = 0.0;
    #pragma omp simd reduction(+:sum)
    for (int c1 = 0; c1 < c0; c1 += 1) {
      sum += (r[c0 - c1 - 1] * y[c1]);
    }
    alpha = ((-(r[c0] + sum)) / beta);
    #pragma omp simd
    for (int c1 = 0; c1 < c0; c1 += 1) {
      z[c1] = (y[c1] + (alpha * y[c0 - c1 - 1]));
    }
    #pragma omp simd
    for (int c1 = 0; c1 < c0; c1 += 1) {
      y[c1] = z[c1];
    }
    y[c0] = alpha;
  }
}
}

int main(void)
{
  static DATA_TYPE r[N], y[N];
  DATA_TYPE sum = 0.0;
  int i;

  for (i = 0; i < N; i++)
    r[i] = (N + 1 - i) / (N * 200.0);
  kernel_durbin(N, r, y);
  for (i = 0; i < N; i++)
    sum += y[i] * (i % 6 + 1);
  printf("durbin y %.12e\n", sum);
  return 0;
}
