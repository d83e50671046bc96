/* ludcmp: LU decomposition followed by forward and backward substitution
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/solvers/ludcmp): the scalar
 * w carries partial sums, and the last loop runs backward.
 */
#include <stdio.h>

#define N 70
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_N n

static void kernel_ludcmp(int n, DATA_TYPE A[N][N], DATA_TYPE b[N], DATA_TYPE x[N],
                          DATA_TYPE y[N])
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w;
    }
  }

  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }

  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], b[N], x[N], y[N];
  DATA_TYPE fn = (DATA_TYPE) N, sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++) {
    x[i] = 0;
    y[i] = 0;
    b[i] = (i + 1) / fn / 2.0 + 4;
    for (j = 0; j < N; j++)
      A[i][j] = i == j ? N + 1.0 : (DATA_TYPE) ((i * j + 1) % N) / N;
  }
  kernel_ludcmp(N, A, b, x, y);
  for (i = 0; i < N; i++)
    sum += x[i] * (i % 5 + 1);
  printf("ludcmp x %.12e\n", sum);
  return 0;
}
