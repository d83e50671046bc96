/* 2mm: D := alpha * A * B * C + beta * D, through the temporary tmp
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/2mm).
 */
#include <stdio.h>

#define NI 40
#define NJ 50
#define NK 55
#define NL 60

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk
#define _PB_NL nl

static void kernel_2mm(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta,
                       DATA_TYPE tmp[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ],
                       DATA_TYPE C[NJ][NL], DATA_TYPE D[NI][NL])
{
  int i, j, k;

#pragma scop
  /* D := alpha*A*B*C + beta*D */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      tmp[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NK; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < _PB_NJ; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE tmp[NI][NJ], A[NI][NK], B[NK][NJ], C[NJ][NL], D[NI][NL];
  DATA_TYPE alpha = 1.5, beta = 1.2, sum = 0.0;
  int i, j;

  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (DATA_TYPE) ((i * j + 1) % NI) / NI;
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (DATA_TYPE) (i * (j + 1) % NJ) / NJ;
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++)
      C[i][j] = (DATA_TYPE) ((i * (j + 3) + 1) % NL) / NL;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      D[i][j] = (DATA_TYPE) (i * (j + 2) % NK) / NK;

  kernel_2mm(NI, NJ, NK, NL, alpha, beta, tmp, A, B, C, D);

  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      sum += D[i][j] * ((i + 2 * j) % 5 + 1);
  printf("2mm D %.12e\n", sum);
  return 0;
}
