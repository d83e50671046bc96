/* adi: alternating direction implicit solver for 2D heat diffusion
 * A PolyBench/C 4.2.1-style kernel (stencils/adi): coefficients computed in the
 * region from the sizes (a cast of an int parameter), decreasing loops.
 */
#include <stdio.h>

#define TSTEPS 15
#define N 40
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_adi(int tsteps, int n, DATA_TYPE u[N][N], DATA_TYPE v[N][N],
                       DATA_TYPE p[N][N], DATA_TYPE q[N][N])
{
  int t, i, j;
  DATA_TYPE DX, DY, DT;
  DATA_TYPE B1, B2;
  DATA_TYPE mul1, mul2;
  DATA_TYPE a, b, c, d, e, f;

#pragma scop
  DX = SCALAR_VAL(1.0) / (DATA_TYPE) _PB_N;
  DY = SCALAR_VAL(1.0) / (DATA_TYPE) _PB_N;
  DT = SCALAR_VAL(1.0) / (DATA_TYPE) _PB_TSTEPS;
  B1 = SCALAR_VAL(2.0);
  B2 = SCALAR_VAL(1.0);
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 / SCALAR_VAL(2.0);
  b = SCALAR_VAL(1.0) + mul1;
  c = a;
  d = -mul2 / SCALAR_VAL(2.0);
  e = SCALAR_VAL(1.0) + mul2;
  f = d;

  for (t = 1; t <= _PB_TSTEPS; t++) {
    // Column sweep
    for (i = 1; i < _PB_N - 1; i++) {
      v[0][i] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = v[0][i];
      for (j = 1; j < _PB_N - 1; j++) {
        p[i][j] = -c / (a * p[i][j-1] + b);
        q[i][j] = (-d * u[j][i-1] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * d) * u[j][i]
                   - f * u[j][i+1] - a * q[i][j-1]) / (a * p[i][j-1] + b);
      }
      v[_PB_N-1][i] = SCALAR_VAL(1.0);
      for (j = _PB_N - 2; j >= 1; j--) {
        v[j][i] = p[i][j] * v[j+1][i] + q[i][j];
      }
    }
    // Row sweep
    for (i = 1; i < _PB_N - 1; i++) {
      u[i][0] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = u[i][0];
      for (j = 1; j < _PB_N - 1; j++) {
        p[i][j] = -f / (d * p[i][j-1] + e);
        q[i][j] = (-a * v[i-1][j] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * a) * v[i][j]
                   - c * v[i+1][j] - d * q[i][j-1]) / (d * p[i][j-1] + e);
      }
      u[i][_PB_N-1] = SCALAR_VAL(1.0);
      for (j = _PB_N - 2; j >= 1; j--) {
        u[i][j] = p[i][j] * u[i][j+1] + q[i][j];
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE u[N][N], v[N][N], p[N][N], q[N][N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      u[i][j] = (DATA_TYPE) (i + N - j) / N;
  kernel_adi(TSTEPS, N, u, v, p, q);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += u[i][j] * ((i + j) % 3 + 1);
  printf("adi u %.12e\n", sum);
  return 0;
}
