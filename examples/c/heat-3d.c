/* heat-3d: a 7-point heat equation stencil in 3D, TSTEPS steps between A and B
 * A PolyBench/C 4.2.1-style kernel (stencils/heat-3d).
 */
#include <stdio.h>

#define TSTEPS 10
#define N 24
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_heat_3d(int tsteps, int n, DATA_TYPE A[N][N][N], DATA_TYPE B[N][N][N])
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= TSTEPS; t++) {
    for (i = 1; i < _PB_N-1; i++) {
      for (j = 1; j < _PB_N-1; j++) {
        for (k = 1; k < _PB_N-1; k++) {
          B[i][j][k] = SCALAR_VAL(0.125) * (A[i+1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i-1][j][k])
                     + SCALAR_VAL(0.125) * (A[i][j+1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j-1][k])
                     + SCALAR_VAL(0.125) * (A[i][j][k+1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k-1])
                     + A[i][j][k];
        }
      }
    }
    for (i = 1; i < _PB_N-1; i++) {
      for (j = 1; j < _PB_N-1; j++) {
        for (k = 1; k < _PB_N-1; k++) {
          A[i][j][k] = SCALAR_VAL(0.125) * (B[i+1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i-1][j][k])
                     + SCALAR_VAL(0.125) * (B[i][j+1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j-1][k])
                     + SCALAR_VAL(0.125) * (B[i][j][k+1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k-1])
                     + B[i][j][k];
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N][N], B[N][N][N];
  DATA_TYPE sum = 0.0;
  int i, j, k;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k] = (DATA_TYPE) ((i * j + k * k + 3 * i) % 17) / 17;
  kernel_heat_3d(TSTEPS, N, A, B);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        sum += A[i][j][k] * ((i + j + k) % 3 + 1);
  printf("heat-3d A %.12e\n", sum);
  return 0;
}
