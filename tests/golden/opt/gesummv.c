/* gesummv: y := alpha * A x + beta * B x
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/gesummv).
 */
#include <stdio.h>

#define N 130
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_N n

#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
__attribute__((noipa))
#else
__attribute__((noinline))
#endif
static void polyopt_kernel_gesummv_body0(int n, int c0, double alpha, double beta, double tmp[restrict], double y[restrict], long polyopt_extent_A_1, double A[restrict][polyopt_extent_A_1], double x[restrict], long polyopt_extent_B_1, double B[restrict][polyopt_extent_B_1])
{
  tmp[c0] = 0.0;
  y[c0] = 0.0;
  if ((0) < n) {
    double tmp_acc;
    double y_acc;
    {
      const int i = c0;
      tmp_acc = tmp[i];
    }
    {
      const int i = c0;
      y_acc = y[i];
    }
    #pragma omp simd reduction(+:tmp_acc) reduction(+:y_acc)
    for (int c1 = 0; c1 < n; c1 += 1) {
      {
        const int i = c0;
        const int j = c1;
        tmp_acc = ((A[i][j] * x[j]) + tmp_acc);  /* tmp[i] = A[i][j] * x[j] + tmp[i]; */
      }
      {
        const int i = c0;
        const int j = c1;
        y_acc = ((B[i][j] * x[j]) + y_acc);  /* y[i] = B[i][j] * x[j] + y[i]; */
      }
    }
    {
      const int i = c0;
      tmp[i] = tmp_acc;
    }
    {
      const int i = c0;
      y[i] = y_acc;
    }
  }
  y[c0] = ((alpha * tmp[c0]) + (beta * y[c0]));
}

static void kernel_gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[N][N],
                           DATA_TYPE B[N][N], DATA_TYPE tmp[N], DATA_TYPE x[N], DATA_TYPE y[N])
{
  int i, j;

/* polyopt: optimized scop region (lines 16-26) */
{
  (void)i; (void)j;  /* named by the loops as written */
  const int polyopt_team = ((double)((n <= 0) ? 0 : n) + (double)((n <= 0) ? 0 : n) + (double)((n <= 0) ? 0 : n) * (double)((n <= 0) ? 0 : n) + (double)((n <= 0) ? 0 : n) * (double)((n <= 0) ? 0 : n) + (double)((n <= 0) ? 0 : n)) >= 1048576.0;
  if (polyopt_team) {
    #pragma omp parallel for schedule(static)
    for (int c0 = 0; c0 < n; c0 += 1) {
      polyopt_kernel_gesummv_body0(n, c0, alpha, beta, tmp, y, (long)(sizeof(A[0]) / sizeof(A[0][0])), A, x, (long)(sizeof(B[0]) / sizeof(B[0][0])), B);
    }
  } else {
    for (int c0 = 0; c0 < n; c0 += 1) {
      polyopt_kernel_gesummv_body0(n, c0, alpha, beta, tmp, y, (long)(sizeof(A[0]) / sizeof(A[0][0])), A, x, (long)(sizeof(B[0]) / sizeof(B[0][0])), B);
    }
  }
}
}

int main(void)
{
  static DATA_TYPE A[N][N], B[N][N], tmp[N], x[N], y[N];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++) {
    x[i] = (DATA_TYPE) (i % N) / N;
    for (j = 0; j < N; j++) {
      A[i][j] = (DATA_TYPE) ((i * j + 1) % N) / N;
      B[i][j] = (DATA_TYPE) ((i * j + 2) % N) / N;
    }
  }
  kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y);
  for (i = 0; i < N; i++)
    sum += y[i] * (i % 3 + 1);
  printf("gesummv y %.12e\n", sum);
  return 0;
}
