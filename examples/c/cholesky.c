/* cholesky: in-place Cholesky decomposition A = L L^T
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/cholesky).
 */
#include <stdio.h>
#include <math.h>

#define N 60
#define DATA_TYPE double
#define SQRT_FUN(x) sqrt(x)
#define _PB_N n

static void kernel_cholesky(int n, DATA_TYPE A[N][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    // j < i
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[j][k];
      }
      A[i][j] /= A[j][j];
    }
    // i == j case
    for (k = 0; k < i; k++) {
      A[i][i] -= A[i][k] * A[i][k];
    }
    A[i][i] = SQRT_FUN(A[i][i]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  /* A symmetric, diagonally dominant (hence positive definite) matrix. */
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = i == j ? N + 1.0 : (DATA_TYPE) ((i + j) % 9) / 9;
  kernel_cholesky(N, A);
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      sum += A[i][j] * ((i + j) % 4 + 1);
  printf("cholesky A %.12e\n", sum);
  return 0;
}
