/* doitgen: multiresolution analysis kernel (a tensor contraction through sum[])
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/kernels/doitgen).
 */
#include <stdio.h>

#define NQ 20
#define NR 25
#define NP 30
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_NQ nq
#define _PB_NR nr
#define _PB_NP np

static void kernel_doitgen(int nr, int nq, int np, DATA_TYPE A[NR][NQ][NP],
                           DATA_TYPE C4[NP][NP], DATA_TYPE sum[NP])
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < _PB_NR; r++)
    for (q = 0; q < _PB_NQ; q++) {
      for (p = 0; p < _PB_NP; p++) {
        sum[p] = SCALAR_VAL(0.0);
        for (s = 0; s < _PB_NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < _PB_NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[NR][NQ][NP], C4[NP][NP], sum[NP];
  DATA_TYPE total = 0.0;
  int i, j, k;

  for (i = 0; i < NR; i++)
    for (j = 0; j < NQ; j++)
      for (k = 0; k < NP; k++)
        A[i][j][k] = (DATA_TYPE) ((i * j + k) % NP) / NP;
  for (i = 0; i < NP; i++)
    for (j = 0; j < NP; j++)
      C4[i][j] = (DATA_TYPE) (i * j % NP) / NP;
  kernel_doitgen(NR, NQ, NP, A, C4, sum);
  for (i = 0; i < NR; i++)
    for (j = 0; j < NQ; j++)
      for (k = 0; k < NP; k++)
        total += A[i][j][k] * ((i + j + k) % 4 + 1);
  printf("doitgen A %.12e\n", total);
  return 0;
}
