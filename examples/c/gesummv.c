/* gesummv: y := alpha * A x + beta * B x
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/gesummv).
 */
#include <stdio.h>

#define N 130
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_N n

static void kernel_gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[N][N],
                           DATA_TYPE B[N][N], DATA_TYPE tmp[N], DATA_TYPE x[N], DATA_TYPE y[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
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
