/* polyopt opt regression (hostile user): with n = INT_MAX - 8 and --tile-sizes 100, a tile's end 100 * c0 + 99 passed INT_MAX in int arithmetic and the loop was skipped; a C region's products of a counter are long long (100LL * c0), its counters stay int so that gcc's SLP keeps the micro-kernels packed.
polyopt options: --tile-sizes 100
*/
#include <stdio.h>
#define N 8
static void kern(int n, double B[N][N])
{
  int i, j;
#pragma scop
  for (i = n; i < n + N; i++)
    for (j = 0; j < N; j++)
      B[i - n][j] = B[j][i - n] + 0.5;
#pragma endscop
}
int main(void){
  static double B[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) B[i][j] = i - j;
  kern(2147483647 - 8, B);   /* n + N - 1 = INT_MAX - 1: no overflow in the original */
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%a\n", B[i][j]);
  return 0;
}
