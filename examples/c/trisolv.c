/* trisolv: forward substitution L x = b for a lower triangular L
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/trisolv).
 */
#include <stdio.h>

#define N 200
#define DATA_TYPE double
#define _PB_N n

static void kernel_trisolv(int n, DATA_TYPE L[N][N], DATA_TYPE x[N], DATA_TYPE b[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE L[N][N], x[N], b[N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++) {
    x[i] = -999;
    b[i] = i;
    for (j = 0; j <= i; j++)
      L[i][j] = (DATA_TYPE) (i + N - j + 1) * 2 / N;
  }
  kernel_trisolv(N, L, x, b);
  for (i = 0; i < N; i++)
    sum += x[i] * (i % 4 + 1);
  printf("trisolv x %.12e\n", sum);
  return 0;
}
