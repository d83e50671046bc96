/* polyopt opt regression (hostile user, private copies and row pointers): a loop on per-thread copies that runs no iteration copies nothing (its scratch pointer is NULL). */
#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double A[n][m], double *s, double *out)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[i][j] * 2 + j;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j] * s[m - 1 - j];
  }
#pragma endscop
}
int main(void)
{
  double out[1] = {0};
  /* no rows: the scratch buffer is never touched, so none is passed */
  kernel(0, 1000000, NULL, NULL, out);
  printf("%.1f\n", out[0]);
  return 0;
}
