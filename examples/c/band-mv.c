/* band-mv: a banded matrix-vector product and a few vector updates
 * Not a PolyBench kernel: it shows the rest of the C subset polyopt accepts:
 * min/max bounds written as calls and as ternary macros, strided and
 * decreasing loops (+= 2, --, >=), pointer dereferences, a scalar temporary
 * declared inside the region, math calls, and C's integer / and % in values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 200
#define BW 3
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int max(int a, int b) { return a > b ? a : b; }

static void kernel_band(int n, int bw, double band[N][2 * BW + 1], double *x, double *y,
                        double *z, int *hist)
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    double acc = 0.0;  // a scalar temporary, private to each i
    for (j = max(0, i - bw); j <= MIN(n - 1, i + bw); j++)
      acc += band[i][j - i + bw] * x[j];
    *(y + i) = acc;
  }
  for (i = 0; i < n; i += 2)
    z[i] = fabs(y[i]) + sqrt((double) (i / 3));
  for (i = n - 1; i >= 1; i -= 2)
    z[i] = -y[i];
  for (i = n - 1; i >= 0; i--)
    hist[i] = (i % 5) * 2 + i / 7;
#pragma endscop
}

int main(void)
{
  static double band[N][2 * BW + 1], x[N], y[N], z[N];
  static int hist[N];
  double sum = 0.0;
  long isum = 0;
  int i, j;

  for (i = 0; i < N; i++) {
    x[i] = (double) (i % 17) / 17 - 0.5;
    for (j = 0; j < 2 * BW + 1; j++)
      band[i][j] = (double) ((i + 1) * (j + 2) % 11) / 11;
  }
  kernel_band(N, BW, band, x, y, z, hist);
  for (i = 0; i < N; i++) {
    sum += y[i] * (i % 3 + 1) + z[i] * (i % 7 + 1);
    isum += hist[i];
  }
  printf("band-mv y,z %.12e hist %ld\n", sum, isum);
  return 0;
}
