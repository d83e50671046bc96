/* trmm: B := alpha * A^T * B with A unit lower triangular
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/trmm).
 */
#include <stdio.h>

#define M 40
#define N 50
#define DATA_TYPE double
#define _PB_M m
#define _PB_N n

static void kernel_trmm(int m, int n, DATA_TYPE alpha, DATA_TYPE A[M][M], DATA_TYPE B[M][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      for (k = i + 1; k < _PB_M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[M][M], B[M][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < M; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (DATA_TYPE) ((i + j) % M) / M;
    A[i][i] = 1.0;
    for (j = 0; j < N; j++)
      B[i][j] = (DATA_TYPE) ((N + (i - j)) % N) / N;
  }
  kernel_trmm(M, N, 1.5, A, B);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      sum += B[i][j] * ((i + j) % 6 + 1);
  printf("trmm B %.12e\n", sum);
  return 0;
}
