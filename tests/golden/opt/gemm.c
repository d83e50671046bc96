/* gemm: C := alpha * A * B + beta * C
 * A PolyBench/C 4.2.1-style kernel (linear-algebra/blas/gemm), written for polyopt's
 * examples: `polyopt opt gemm.c -o gemm.opt.c`, then compare the outputs of both.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
# define NI 60
#endif
#ifndef NJ
# define NJ 70
#endif
#ifndef NK
# define NK 80
#endif

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk

static void init_array(int ni, int nj, int nk, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE C[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE) ((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) (i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) (i * (j + 2) % nj) / nj;
}

#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
__attribute__((noipa))
#else
__attribute__((noinline))
#endif
static void polyopt_kernel_gemm_body0(int ni, int nj, int nk, int c0, double alpha, double beta, long polyopt_extent_C_1, double C[restrict][polyopt_extent_C_1], long polyopt_extent_A_1, double A[restrict][polyopt_extent_A_1], long polyopt_extent_B_1, double B[restrict][polyopt_extent_B_1])
{
  #pragma omp simd
  for (int c1 = 0; c1 < nj; c1 += 1) {
    C[c0][c1] *= beta;
  }
  for (int c1 = 0; c1 < nk; c1 += 1) {
    #pragma omp simd
    for (int c2 = 0; c2 < nj; c2 += 1) {
      C[c0][c2] += ((alpha * A[c0][c1]) * B[c1][c2]);
    }
  }
}

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE C[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
  int i, j, k;

/* polyopt: optimized scop region (lines 47-56) */
{
  (void)i; (void)j; (void)k;  /* named by the loops as written */
  const int polyopt_team = ((double)(((ni >= 1) && (nj >= 1)) ? ni : 0) * (double)(((ni >= 1) && (nj >= 1)) ? nj : 0) + (double)((((ni >= 1) && (nj >= 1)) && (nk >= 1)) ? ni : 0) * (double)((((ni >= 1) && (nj >= 1)) && (nk >= 1)) ? nk : 0) * (double)((((ni >= 1) && (nj >= 1)) && (nk >= 1)) ? nj : 0)) >= 1048576.0;
  if ((nj >= 1)) {
    if (polyopt_team) {
      #pragma omp parallel for schedule(static)
      for (int c0 = 0; c0 < ni; c0 += 1) {
        polyopt_kernel_gemm_body0(ni, nj, nk, c0, alpha, beta, (long)(sizeof(C[0]) / sizeof(C[0][0])), C, (long)(sizeof(A[0]) / sizeof(A[0][0])), A, (long)(sizeof(B[0]) / sizeof(B[0][0])), B);
      }
    } else {
      for (int c0 = 0; c0 < ni; c0 += 1) {
        polyopt_kernel_gemm_body0(ni, nj, nk, c0, alpha, beta, (long)(sizeof(C[0]) / sizeof(C[0][0])), C, (long)(sizeof(A[0]) / sizeof(A[0][0])), A, (long)(sizeof(B[0]) / sizeof(B[0][0])), B);
      }
    }
  }
}
}

int main(void)
{
  static DATA_TYPE C[NI][NJ], A[NI][NK], B[NK][NJ];
  DATA_TYPE alpha, beta, sum = 0.0;
  int i, j;

  init_array(NI, NJ, NK, &alpha, &beta, C, A, B);
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      sum += C[i][j] * ((i + 3 * j) % 7 + 1);
  printf("gemm C %.12e\n", sum);
  return 0;
}
