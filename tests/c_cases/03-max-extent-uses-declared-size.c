/* polyopt opt regression (hostile user, private copies and row pointers): a copy holds the rows the region touches (max(m, 3)), not the declared extent of the parameter. */
#include <stdio.h>
#include <stdlib.h>
#define N 100
static void kernel(int n, int m, double A[N], double s[N], double out[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[j] + i;
    for (j = 0; j < 3; j++)
      s[j] = A[j] - i;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j];
  }
#pragma endscop
}
int main(void)
{
  static double A[N], out[N];
  double *s = malloc(sizeof(double) * 5);   /* m = 5: the region touches s[0..4] */
  for (int j = 0; j < N; j++) A[j] = j;
  kernel(N, 5, A, s, out);
  for (int j = 0; j < N; j++) printf("%.1f\n", out[j]);
  for (int j = 0; j < 5; j++) printf("%.1f\n", s[j]);
  free(s);
  return 0;
}
