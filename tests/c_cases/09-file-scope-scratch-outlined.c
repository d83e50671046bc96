/* polyopt opt regression (hostile user, private copies and row pointers): an outlined parallel body works on the thread's copy of a file-scope array, not on the array. */
#include <stdio.h>
#define N 8
#define M 5
static double s[M], A[N][M], out[N];
static void kernel(int n, int m)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      s[j] = A[i][j] + i;
    for (j = 0; j < m; j++)
      out[i] = out[i] + s[j];
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) A[i][j] = i * j % 3;
  kernel(N, M);
  for (int i = 0; i < N; i++) printf("%.1f\n", out[i]);
  for (int j = 0; j < M; j++) printf("s[%d] = %.1f\n", j, s[j]);
  return 0;
}
