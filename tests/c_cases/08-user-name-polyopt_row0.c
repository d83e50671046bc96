/* polyopt opt regression (hostile user, private copies and row pointers): a parameter spelled like a hoisted row pointer (polyopt_row0) is not shadowed by it. */
#include <stdio.h>
#include <stdlib.h>
#define N 23
static void kernel(int n, double **A, double *polyopt_row0, double y[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[i][j] = A[i][j] + polyopt_row0[j];
#pragma endscop
}
int main(void)
{
  int n = N, i, j;
  static double y[N][N], r[N];
  double **A = malloc(sizeof(double *) * n);
  for (i = 0; i < n; i++) { r[i] = 100 * i; A[i] = malloc(sizeof(double) * N); for (j = 0; j < N; j++) A[i][j] = (i + 2 * j) % 5; }
  kernel(n, A, r, y);
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.1f\n", y[i][j]);
  return 0;
}
