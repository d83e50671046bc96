/* polyopt opt regression (hostile user, private copies and row pointers): a copy of a variable-length array keeps its declared extents after the size variable changes. */
#include <stdio.h>
#include <stdlib.h>
#define N 8
static double out[N], A[N][N];
static void kernel(int n, int w)
{
  int i, j;
  double t[3][w];          /* the row length is fixed here */
  int m = w;
  w = 1;                   /* and no longer follows w */
  for (i = 0; i < 3; i++) for (j = 0; j < m; j++) t[i][j] = 0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++) {
      t[0][j] = A[i][j] * 0.5;
      t[1][j] = A[j][i] + 1;
    }
    for (j = 0; j < m; j++)
      out[i] = out[i] + t[0][j] * t[1][m - 1 - j];
  }
#pragma endscop
  for (i = 0; i < 3; i++) { for (j = 0; j < m; j++) printf("%.1f ", t[i][j]); printf("\n"); }
}
int main(void)
{
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * j) % 7;
  kernel(N, N);
  for (int j = 0; j < N; j++) printf("%.1f\n", out[j]);
  return 0;
}
