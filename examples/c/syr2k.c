/* syr2k: C := alpha * (A * B^T + B * A^T) + beta * C on the lower triangle
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/syr2k).
 */
#include <stdio.h>

#define M 40
#define N 50
#define DATA_TYPE double
#define _PB_M m
#define _PB_N n

static void kernel_syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[N][N],
                         DATA_TYPE A[N][M], DATA_TYPE B[N][M])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++)
      for (j = 0; j <= i; j++) {
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
      }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[N][N], A[N][M], B[N][M];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (DATA_TYPE) ((i * j + 1) % N) / N;
      B[i][j] = (DATA_TYPE) ((i * j + 2) % M) / M;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      C[i][j] = (DATA_TYPE) ((i * j + 3) % N) / M;
  kernel_syr2k(N, M, 1.5, 1.2, C, A, B);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += C[i][j] * ((i + 2 * j) % 5 + 1);
  printf("syr2k C %.12e\n", sum);
  return 0;
}
