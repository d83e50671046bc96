/* polyopt opt regression (hostile user): a 2^30 tile size's coefficient times an int parameter overflowed int in the time-tiled bounds, and the loops ran zero times.
polyopt options: --tile-sizes 1073741824,3
*/
#include <stdio.h>
#define N 8
static void kern(int tsteps, int n, double A[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                 + A[i][j-1] + A[i][j] + A[i][j+1]
                 + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
#pragma endscop
}
int main(void){
  static double A[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = ((i * j) % 11) / 3.0;
  kern(2, N, A);
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%a\n", A[i][j]);
  return 0;
}
