/* seidel-2d: a 9-point Gauss-Seidel stencil (in place, so every loop carries a dependence)
 * A PolyBench/C 4.2.1-style kernel (stencils/seidel-2d).
 */
#include <stdio.h>

#define TSTEPS 10
#define N 70
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_seidel_2d(int tsteps, int n, DATA_TYPE A[N][N])
{
  int t, i, j;

#pragma scop
  for (t = 0; t <= _PB_TSTEPS - 1; t++)
    for (i = 1; i <= _PB_N - 2; i++)
      for (j = 1; j <= _PB_N - 2; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                   + A[i][j-1] + A[i][j] + A[i][j+1]
                   + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / SCALAR_VAL(9.0);
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = ((DATA_TYPE) i * (j + 2) + 2) / N;
  kernel_seidel_2d(TSTEPS, N, A);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += A[i][j] * ((2 * i + j) % 7 + 1);
  printf("seidel-2d A %.12e\n", sum);
  return 0;
}
