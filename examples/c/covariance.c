/* covariance: the covariance matrix of M variables observed N times
 * A PolyBench/C 4.2.1-style kernel (datamining/covariance).
 */
#include <stdio.h>

#define M 60
#define N 70
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_M m
#define _PB_N n

static void kernel_covariance(int m, int n, DATA_TYPE float_n, DATA_TYPE data[N][M],
                              DATA_TYPE cov[M][M], DATA_TYPE mean[M])
{
  int i, j, k;

#pragma scop
  // The mean of every column.
  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  // Center the data.
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      data[i][j] -= mean[j];

  // The upper triangle, mirrored to the lower one.
  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - SCALAR_VAL(1.0));
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE data[N][M], cov[M][M], mean[M];
  DATA_TYPE float_n = (DATA_TYPE) N, sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE) ((i * 37 + j * 101 + i * j * 7) % 97) / 97;
  kernel_covariance(M, N, float_n, data, cov, mean);
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      sum += cov[i][j] * ((i + j) % 4 + 1);
  printf("covariance cov %.12e\n", sum);
  return 0;
}
