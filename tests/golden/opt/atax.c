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

/* polyopt: optimized scop region (lines 15-25) */
{
  (void)i; (void)j;  /* named by the loops as written */
  const int polyopt_team = ((double)((n <= 0) ? 0 : n) + (double)((m <= 0) ? 0 : m) + (double)(((n >= 1) && (m >= 1)) ? m : 0) * (double)(((n >= 1) && (m >= 1)) ? n : 0) + (double)(((n >= 1) && (m >= 1)) ? m : 0) * (double)(((n >= 1) && (m >= 1)) ? n : 0)) >= 1048576.0;
  if (polyopt_team && ((double)(n) - (double)(0)) >= 16384.0) {
    #pragma omp parallel for simd schedule(static)
    for (int c0 = 0; c0 < n; c0 += 1) {
      y[c0] = 0.0;
    }
  } else {
    #pragma omp simd
    for (int c0 = 0; c0 < n; c0 += 1) {
      y[c0] = 0.0;
    }
  }
  for (int c0 = 0; c0 < m; c0 += 1) {
    tmp[c0] = 0.0;
    if ((0) < n) {
      double tmp_acc;
      {
        const int i = c0;
        tmp_acc = tmp[i];
      }
      #pragma omp simd reduction(+:tmp_acc)
      for (int c1 = 0; c1 < n; c1 += 1) {
        {
          const int i = c0;
          const int j = c1;
          tmp_acc = (tmp_acc + (A[i][j] * x[j]));  /* tmp[i] = tmp[i] + A[i][j] * x[j]; */
        }
      }
      {
        const int i = c0;
        tmp[i] = tmp_acc;
      }
    }
    #pragma omp simd
    for (int c1 = 0; c1 < n; c1 += 1) {
      y[c1] = (y[c1] + (A[c0][c1] * tmp[c0]));
    }
  }
}
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
