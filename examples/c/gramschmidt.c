/* gramschmidt: QR decomposition by modified Gram-Schmidt
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/gramschmidt): the
 * scalar nrm and a square root.
 */
#include <stdio.h>
#include <math.h>

#define M 50
#define N 40
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define _PB_M m
#define _PB_N n

static void kernel_gramschmidt(int m, int n, DATA_TYPE A[M][N], DATA_TYPE R[N][N],
                               DATA_TYPE Q[M][N])
{
  int i, j, k;
  DATA_TYPE nrm;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < _PB_M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < _PB_N; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < _PB_M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[M][N], R[N][N], Q[M][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (((DATA_TYPE) ((i * j) % M) / M) * 100) + 10 + (i == j ? 50 : 0);
      Q[i][j] = 0.0;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      R[i][j] = 0.0;
  kernel_gramschmidt(M, N, A, R, Q);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += R[i][j] * ((i + j) % 3 + 1);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      sum += Q[i][j] * ((i + 2 * j) % 5 + 1);
  printf("gramschmidt R,Q %.12e\n", sum);
  return 0;
}
