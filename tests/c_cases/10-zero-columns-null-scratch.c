/* polyopt opt regression (hostile user, private copies and row pointers): a copy of no element calls no memcpy on a NULL scratch pointer. */
#include <stdio.h>
static void kernel(int n, int m, const double *A, double *s, double *out)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[i * 0 + j] * i;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j];
  }
#pragma endscop
}
int main(void)
{
  double A[1] = {1}, out[3] = {0, 0, 0};
  /* m = 0: the scratch buffer is never touched, so none is passed */
  kernel(3, 0, A, NULL, out);
  printf("%.1f %.1f %.1f\n", out[0], out[1], out[2]);
  return 0;
}
