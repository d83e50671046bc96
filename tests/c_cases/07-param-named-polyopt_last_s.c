/* polyopt opt regression (hostile user, private copies and row pointers): a parameter spelled like a generated name (polyopt_last_s) is not shadowed by it. */
#include <stdio.h>
#define N 24
static void kernel(int n, int m, double A[N][N], double s[N], double out[N], double polyopt_last_s)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[i][j] * polyopt_last_s;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j] * s[m - 1 - j];
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N], out[N], s[N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * j) % 7;
  kernel(N, N - 2, A, s, out, 0.5);
  for (int j = 0; j < N; j++) printf("%.1f %.1f\n", out[j], s[j]);
  return 0;
}
