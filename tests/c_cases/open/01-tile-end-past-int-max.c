/* polyopt opt, OPEN (hostile user): with n = INT_MAX - 8, a tile's end 100 * c0 + 99 passes INT_MAX in an int counter, and the loop is skipped. 64-bit counters fix it but make gcc leave the packed micro-kernels scalar (2mm LARGE 15x -> 2.8x the original), so they wait for a fix that keeps the int arithmetic inside the micro-kernels.
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
