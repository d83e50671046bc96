/* 3mm: G := (A * B) * (C * D), through the temporaries E and F
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/3mm).
 */
#include <stdio.h>

#define NI 30
#define NJ 35
#define NK 40
#define NL 45
#define NM 50
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk
#define _PB_NL nl
#define _PB_NM nm

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm, DATA_TYPE E[NI][NJ],
                       DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ], DATA_TYPE F[NJ][NL],
                       DATA_TYPE C[NJ][NM], DATA_TYPE D[NM][NL], DATA_TYPE G[NI][NL])
{
  int i, j, k;

#pragma scop
  /* E := A*B */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      E[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C*D */
  for (i = 0; i < _PB_NJ; i++)
    for (j = 0; j < _PB_NL; j++) {
      F[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NM; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E*F */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++) {
      G[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NJ; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE E[NI][NJ], A[NI][NK], B[NK][NJ], F[NJ][NL], C[NJ][NM], D[NM][NL], G[NI][NL];
  DATA_TYPE sum = 0.0;
  int i, j;

  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (DATA_TYPE) ((i * j + 1) % NI) / (5 * NI);
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (DATA_TYPE) ((i * (j + 1) + 2) % NJ) / (5 * NJ);
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NM; j++)
      C[i][j] = (DATA_TYPE) (i * (j + 3) % NL) / (5 * NL);
  for (i = 0; i < NM; i++)
    for (j = 0; j < NL; j++)
      D[i][j] = (DATA_TYPE) ((i * (j + 2) + 2) % NK) / (5 * NK);
  kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      sum += G[i][j] * ((i + j) % 7 + 1);
  printf("3mm G %.12e\n", sum);
  return 0;
}
