/* gemver: a rank-2 update of A followed by two matrix-vector products
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/gemver).
 */
#include <stdio.h>

#define N 120
#define DATA_TYPE double
#define _PB_N n

static void kernel_gemver(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[N][N],
                          DATA_TYPE u1[N], DATA_TYPE v1[N], DATA_TYPE u2[N], DATA_TYPE v2[N],
                          DATA_TYPE w[N], DATA_TYPE x[N], DATA_TYPE y[N], DATA_TYPE z[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];

  for (i = 0; i < _PB_N; i++)
    x[i] = x[i] + z[i];

  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N];
  DATA_TYPE fn = (DATA_TYPE) N, sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++) {
    u1[i] = i;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < N; j++)
      A[i][j] = (DATA_TYPE) (i * j % N) / N;
  }
  kernel_gemver(N, 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z);
  for (i = 0; i < N; i++)
    sum += w[i] * (i % 5 + 1);
  printf("gemver w %.12e\n", sum);
  return 0;
}
