/* lu: in-place LU decomposition without pivoting
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/lu).
 */
#include <stdio.h>

#define N 80
#define DATA_TYPE double
#define _PB_N n

static void kernel_lu(int n, DATA_TYPE A[N][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
      A[i][j] /= A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      for (k = 0; k < i; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  /* A diagonally dominant matrix: no pivoting needed. */
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (i == j) ? N + 1.0 : (DATA_TYPE) ((i * j + 3) % N) / N;
  kernel_lu(N, A);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += A[i][j] * ((i + 2 * j) % 3 + 1);
  printf("lu A %.12e\n", sum);
  return 0;
}
