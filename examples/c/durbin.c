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

#pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];

  for (k = 1; k < _PB_N; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = SCALAR_VAL(0.0);
    for (i = 0; i < k; i++) {
      sum += r[k-i-1] * y[i];
    }
    alpha = - (r[k] + sum) / beta;

    for (i = 0; i < k; i++) {
      z[i] = y[i] + alpha * y[k-i-1];
    }
    for (i = 0; i < k; i++) {
      y[i] = z[i];
    }
    y[k] = alpha;
  }
#pragma endscop
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
