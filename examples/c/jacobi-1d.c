/* jacobi-1d: a 3-point Jacobi stencil, TSTEPS steps between A and B
 * A PolyBench/C 4.2.1-style kernel (stencils/jacobi-1d).
 */
#include <stdio.h>

#define TSTEPS 30
#define N 400
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_jacobi_1d(int tsteps, int n, DATA_TYPE A[N], DATA_TYPE B[N])
{
  int t, i;

#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      B[i] = 0.33333 * (A[i-1] + A[i] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N], B[N];
  DATA_TYPE sum = 0.0;
  int i;

  for (i = 0; i < N; i++) {
    A[i] = ((DATA_TYPE) i + 2) / N;
    B[i] = ((DATA_TYPE) (i * i % 7) + 3) / N;
  }
  kernel_jacobi_1d(TSTEPS, N, A, B);
  for (i = 0; i < N; i++)
    sum += A[i] * (i % 5 + 1);
  printf("jacobi-1d A %.12e\n", sum);
  return 0;
}
