/* symm: C := alpha * A * B + beta * C with A symmetric (only its lower triangle read)
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/symm): the scalar temp2
 * is a temporary private to each (i, j).
 */
#include <stdio.h>

#define M 50
#define N 60
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_M m
#define _PB_N n

static void kernel_symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[M][N],
                        DATA_TYPE A[M][M], DATA_TYPE B[M][N])
{
  int i, j, k;
  DATA_TYPE temp2;

#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[M][N], A[M][M], B[M][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      C[i][j] = (DATA_TYPE) ((i + j) % 100) / M;
      B[i][j] = (DATA_TYPE) ((N + i - j) % 100) / M;
    }
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      A[i][j] = j <= i ? (DATA_TYPE) ((i + j) % 100) / M : -999;
  kernel_symm(M, N, 1.5, 1.2, C, A, B);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      sum += C[i][j] * ((i + j) % 6 + 1);
  printf("symm C %.12e\n", sum);
  return 0;
}
