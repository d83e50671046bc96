/* jacobi-2d: a 5-point Jacobi stencil, TSTEPS steps between A and B
 * A PolyBench/C 4.2.1-style kernel (stencils/jacobi-2d).
 */
#include <stdio.h>

#define TSTEPS 20
#define N 90
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], B[N][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = ((DATA_TYPE) i * (j + 2) + 2) / N;
      B[i][j] = ((DATA_TYPE) i * (j + 3) + 3) / N;
    }
  kernel_jacobi_2d(TSTEPS, N, A, B);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += A[i][j] * ((i + j) % 5 + 1);
  printf("jacobi-2d A %.12e\n", sum);
  return 0;
}
