/* bicg: the BiCG sub-kernel, s := A^T r and q := A p, with row pointers
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/bicg); A is a
 * `double **` (an array of row pointers) and the vectors are plain pointers.
 */
#include <stdio.h>
#include <stdlib.h>

#define M 100
#define N 120

static void kernel_bicg(int m, int n, double **A, double *s, double *q, double *p, double *r)
{
  int i, j;

#pragma scop
  for (i = 0; i < m; i++)
    s[i] = 0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
}

int main(void)
{
  double **A = malloc(N * sizeof(double *));
  double *s = malloc(M * sizeof(double)), *q = malloc(N * sizeof(double));
  double *p = malloc(M * sizeof(double)), *r = malloc(N * sizeof(double));
  double sum = 0.0;
  int i, j;

  for (i = 0; i < M; i++)
    p[i] = (double) (i % M) / M;
  for (i = 0; i < N; i++) {
    r[i] = (double) (i % N) / N;
    A[i] = malloc(M * sizeof(double));
    for (j = 0; j < M; j++)
      A[i][j] = (double) (i * (j + 1) % N) / N;
  }

  kernel_bicg(M, N, A, s, q, p, r);

  for (i = 0; i < M; i++)
    sum += s[i] * (i % 7 + 1);
  for (i = 0; i < N; i++)
    sum += q[i] * (i % 5 + 2);
  printf("bicg s,q %.12e\n", sum);
  for (i = 0; i < N; i++)
    free(A[i]);
  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
