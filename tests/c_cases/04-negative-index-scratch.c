/* polyopt opt regression (hostile user, private copies and row pointers): an array read before its first row (s[j - 1] of a pointer into a buffer) gets no per-thread copy. */
#include <stdio.h>
#include <stdlib.h>
#define N 30
static void kernel(int n, int m, double A[N][N], double *s, double out[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j - 1] = A[i][j] * 2;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j - 1] * s[m - 2 - j];
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N], out[N], buf[N + 1];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * j) % 7;
  kernel(N, N, A, buf + 1, out);
  for (int j = 0; j < N; j++) printf("%.1f\n", out[j]);
  for (int j = 0; j < N + 1; j++) printf("%.1f\n", buf[j]);
  return 0;
}
