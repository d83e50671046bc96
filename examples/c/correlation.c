/* correlation: the correlation matrix of M variables observed N times
 * A PolyBench/C 4.2.1-style kernel (datamining/correlation): math calls, a
 * read-only scalar, a ternary in a value and a statement outside any loop.
 */
#include <stdio.h>
#include <math.h>

#define M 50
#define N 60
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define _PB_M m
#define _PB_N n

static void kernel_correlation(int m, int n, DATA_TYPE float_n, DATA_TYPE data[N][M],
                               DATA_TYPE corr[M][M], DATA_TYPE mean[M], DATA_TYPE stddev[M])
{
  int i, j, k;
  DATA_TYPE eps = SCALAR_VAL(0.1);

#pragma scop
  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (j = 0; j < _PB_M; j++) {
    stddev[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = SQRT_FUN(stddev[j]);
    /* Near-zero standard deviations would divide by zero below. */
    stddev[j] = stddev[j] <= eps ? SCALAR_VAL(1.0) : stddev[j];
  }

  /* Center and reduce the column vectors. */
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= SQRT_FUN(float_n) * stddev[j];
    }

  /* The m x m correlation matrix. */
  for (i = 0; i < _PB_M - 1; i++) {
    corr[i][i] = SCALAR_VAL(1.0);
    for (j = i + 1; j < _PB_M; j++) {
      corr[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[_PB_M - 1][_PB_M - 1] = SCALAR_VAL(1.0);
#pragma endscop
}

int main(void)
{
  static DATA_TYPE data[N][M], corr[M][M], mean[M], stddev[M];
  DATA_TYPE float_n = (DATA_TYPE) N, sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE) ((i * 37 + j * 101 + i * j * 7) % 97) / 97 + (j == 3 ? 0.0 : i * 0.01);
  kernel_correlation(M, N, float_n, data, corr, mean, stddev);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      sum += corr[i][j] * ((i + 2 * j) % 5 + 1);
  printf("correlation corr %.12e\n", sum);
  return 0;
}
