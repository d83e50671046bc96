/* polyopt opt regression (hostile user, private copies and row pointers): a loop on per-thread copies that runs no iteration reads nothing of a buffer smaller than the extent. */
#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double *A, double *s, double *out)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[j] * i;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j];
  }
#pragma endscop
}
int main(int argc, char **argv)
{
  double out[1] = {0};
  double *A = malloc(sizeof(double) * 64);
  double *s = malloc(sizeof(double) * 4);   /* n = 0: the region touches nothing */
  for (int j = 0; j < 64; j++) A[j] = j;
  kernel(argc - 1, 64, A, s, out);
  printf("%.1f\n", out[0]);
  free(A); free(s);
  return 0;
}
