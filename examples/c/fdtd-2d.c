/* fdtd-2d: 2D finite-difference time domain, with a time-indexed source array
 * A PolyBench/C 4.2.1-style kernel (stencils/fdtd-2d).
 */
#include <stdio.h>

#define TMAX 20
#define NX 60
#define NY 70
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TMAX tmax
#define _PB_NX nx
#define _PB_NY ny

static void kernel_fdtd_2d(int tmax, int nx, int ny, DATA_TYPE ex[NX][NY], DATA_TYPE ey[NX][NY],
                           DATA_TYPE hz[NX][NY], DATA_TYPE _fict_[TMAX])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < _PB_TMAX; t++) {
    for (j = 0; j < _PB_NY; j++)
      ey[0][j] = _fict_[t];
    for (i = 1; i < _PB_NX; i++)
      for (j = 0; j < _PB_NY; j++)
        ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i-1][j]);
    for (i = 0; i < _PB_NX; i++)
      for (j = 1; j < _PB_NY; j++)
        ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j-1]);
    for (i = 0; i < _PB_NX - 1; i++)
      for (j = 0; j < _PB_NY - 1; j++)
        hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE ex[NX][NY], ey[NX][NY], hz[NX][NY], _fict_[TMAX];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < TMAX; i++)
    _fict_[i] = (DATA_TYPE) i;
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++) {
      ex[i][j] = ((DATA_TYPE) i * (j + 1)) / NX;
      ey[i][j] = ((DATA_TYPE) i * (j + 2)) / NY;
      hz[i][j] = ((DATA_TYPE) i * (j + 3)) / NX;
    }
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, _fict_);
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      sum += ex[i][j] + 2 * ey[i][j] + 3 * hz[i][j];
  printf("fdtd-2d ex,ey,hz %.12e\n", sum);
  return 0;
}
