/* mvt: x1 := x1 + A y1 and x2 := x2 + A^T y2, on global arrays
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/mvt).
 */
#include <stdio.h>

#define N 150
#define DATA_TYPE double
#define _PB_N n

DATA_TYPE A[N][N];
DATA_TYPE x1[N], x2[N], y_1[N], y_2[N];

static void kernel_mvt(int n)
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
#pragma endscop
}

int main(void)
{
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < N; i++) {
    x1[i] = (DATA_TYPE) (i % N) / N;
    x2[i] = (DATA_TYPE) ((i + 1) % N) / N;
    y_1[i] = (DATA_TYPE) ((i + 3) % N) / N;
    y_2[i] = (DATA_TYPE) ((i + 4) % N) / N;
    for (j = 0; j < N; j++)
      A[i][j] = (DATA_TYPE) (i * j % N) / N;
  }

  kernel_mvt(N);

  for (i = 0; i < N; i++)
    sum += x1[i] * (i % 3 + 1) + x2[i] * (i % 4 + 1);
  printf("mvt x1,x2 %.12e\n", sum);
  return 0;
}
