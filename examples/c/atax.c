/* atax: y := A^T (A x), with heap arrays passed as pointers
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/atax); the arrays are
 * `double (*A)[N]` and `double *` here, the pointer forms of A[M][N] and x[N].
 */
#include <stdio.h>
#include <stdlib.h>

#define M 90
#define N 110

static void kernel_atax(int m, int n, double (*A)[N], double *x, double *y, double *tmp)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    y[i] = 0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = malloc(sizeof(double[M][N]));
  double *x = malloc(N * sizeof(double));
  double *y = malloc(N * sizeof(double));
  double *tmp = malloc(M * sizeof(double));
  double sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    x[i] = 1 + (i / (double) N);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double) ((i + j) % N) / (5 * M);

  kernel_atax(M, N, A, x, y, tmp);

  for (i = 0; i < N; i++)
    sum += y[i] * (i % 9 + 1);
  printf("atax y %.12e\n", sum);
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
