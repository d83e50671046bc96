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

#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
__attribute__((noipa))
#else
__attribute__((noinline))
#endif
static void polyopt_kernel_band_body0(int n, int bw, int c0, long polyopt_extent_band_1, double band[restrict][polyopt_extent_band_1], double x[restrict], double y[restrict])
{
  #define polyopt_imin(a, b) ((a) < (b) ? (a) : (b))
  #define polyopt_imax(a, b) ((a) > (b) ? (a) : (b))
  double acc;
  acc = 0.0;
  #pragma omp simd reduction(+:acc)
  for (int c1 = polyopt_imax(0, ((-bw) + c0)); c1 <= polyopt_imin((n - 1), (bw + c0)); c1 += 1) {
    acc += (band[c0][c1 - c0 + bw] * x[c1]);
  }
  y[c0] = acc;
  #undef polyopt_imin
  #undef polyopt_imax
}

static void kernel_band(int n, int bw, double band[N][2 * BW + 1], double *x, double *y,
                        double *z, int *hist)
{
  int i, j;

/* polyopt: optimized scop region (lines 22-35) */
{
  double acc;
  #define polyopt_imin(a, b) ((a) < (b) ? (a) : (b))
  #define polyopt_imax(a, b) ((a) > (b) ? (a) : (b))
  (void)i; (void)j; (void)max; (void)acc;  /* named by the loops as written */
  const int polyopt_team = ((double)((n <= 0) ? 0 : n) + (double)(((n >= 1) && (bw >= 0)) ? n : 0) * (double)(((n >= 1) && (bw >= 0)) ? n : 0) + (double)((n <= 0) ? 0 : n) + (double)((n <= 0) ? 0 : (((n % 2) + n) - 1)) + (double)((n <= 1) ? 0 : (((-(n % 2)) + n) - 1)) + (double)((n <= 0) ? 0 : n)) >= 1048576.0;
  if (polyopt_team) {
    #pragma omp parallel for schedule(static) private(acc)
    for (int c0 = 0; c0 < n; c0 += 1) {
      polyopt_kernel_band_body0(n, bw, c0, (long)(sizeof(band[0]) / sizeof(band[0][0])), band, x, y);
    }
  } else {
    for (int c0 = 0; c0 < n; c0 += 1) {
      polyopt_kernel_band_body0(n, bw, c0, (long)(sizeof(band[0]) / sizeof(band[0][0])), band, x, y);
    }
  }
  if (polyopt_team && ((double)(n) - (double)(0)) / 2.0 >= 16384.0) {
    #pragma omp parallel for simd schedule(static)
    for (int c0 = 0; c0 < n; c0 += 2) {
      z[c0] = (fabs(y[c0]) + sqrt(((double)(c0 / 3))));
    }
  } else {
    #pragma omp simd
    for (int c0 = 0; c0 < n; c0 += 2) {
      z[c0] = (fabs(y[c0]) + sqrt(((double)(c0 / 3))));
    }
  }
  if (polyopt_team && ((double)(0) - (double)(((-n) + 1))) / 2.0 >= 16384.0) {
    #pragma omp parallel for simd schedule(static)
    for (int c0 = ((-n) + 1); c0 < 0; c0 += 2) {
      z[(-c0)] = (-y[(-c0)]);
    }
  } else {
    #pragma omp simd
    for (int c0 = ((-n) + 1); c0 < 0; c0 += 2) {
      z[(-c0)] = (-y[(-c0)]);
    }
  }
  if (polyopt_team && ((double)(0) - (double)(((-n) + 1)) + 1.0) >= 16384.0) {
    #pragma omp parallel for simd schedule(static)
    for (int c0 = ((-n) + 1); c0 <= 0; c0 += 1) {
      hist[(-c0)] = ((((-c0) % 5) * 2) + ((-c0) / 7));
    }
  } else {
    #pragma omp simd
    for (int c0 = ((-n) + 1); c0 <= 0; c0 += 1) {
      hist[(-c0)] = ((((-c0) % 5) * 2) + ((-c0) / 7));
    }
  }
  #undef polyopt_imin
  #undef polyopt_imax
}
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
