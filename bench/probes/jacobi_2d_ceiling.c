/* The ceiling of jacobi-2d's statements on this machine.

   The same work per row that polyopt generates inside a time tile: B's row i and A's
   row i - 1 in one `omp simd` loop (the statements aligned), over two small arrays that
   stay in L1/L2, one time step after another: no memory traffic, no tiling, no
   synchronisation.  Every thread of the team sweeps its own pair of arrays at the same
   time, so the figure includes what cores lose by running together (shared caches,
   clocks).  A time-tiled jacobi-2d cannot go faster than this on the same machine.

   Usage: jacobi_2d_ceiling ROWS COLS STEPS; prints "threads GFLOP/s" (best of 5). */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static inline void row_B(long i, long m, const double *restrict A, double *restrict B)
{
  #pragma omp simd
  for (long j = 1; j < m - 1; j++)
    B[i * m + j] = 0.2 * (A[i * m + j] + A[i * m + j - 1] + A[i * m + j + 1]
                          + A[(i + 1) * m + j] + A[(i - 1) * m + j]);
}

static inline void row_A(long i, long m, double *restrict A, const double *restrict B)
{
  #pragma omp simd
  for (long j = 1; j < m - 1; j++)
    A[i * m + j] = 0.2 * (B[i * m + j] + B[i * m + j - 1] + B[i * m + j + 1]
                          + B[(i + 1) * m + j] + B[(i - 1) * m + j]);
}

/* One time step: B from A, then A from B, a row of A one row behind B's. */
static void step(long n, long m, double *restrict A, double *restrict B)
{
  row_B(1, m, A, B);
  for (long i = 2; i < n - 1; i++) {
    #pragma omp simd
    for (long j = 1; j < m - 1; j++) {
      B[i * m + j] = 0.2 * (A[i * m + j] + A[i * m + j - 1] + A[i * m + j + 1]
                            + A[(i + 1) * m + j] + A[(i - 1) * m + j]);
      A[(i - 1) * m + j] = 0.2 * (B[(i - 1) * m + j] + B[(i - 1) * m + j - 1]
                                  + B[(i - 1) * m + j + 1] + B[i * m + j]
                                  + B[(i - 2) * m + j]);
    }
  }
  row_A(n - 2, m, A, B);
}

int main(int argc, char **argv)
{
  if (argc != 4) { fprintf(stderr, "usage: %s ROWS COLS STEPS\n", argv[0]); return 2; }
  long n = atol(argv[1]), m = atol(argv[2]), reps = atol(argv[3]);
  double best = 1e30, sink = 0;
  int team = 1;
  for (int r = 0; r < 5; r++) {
    double slowest = 0;
    #pragma omp parallel reduction(+:sink)
    {
      double *A = malloc(sizeof(double) * n * m), *B = malloc(sizeof(double) * n * m);
      for (long k = 0; k < n * m; k++) { A[k] = k % 7; B[k] = k % 5; }
      #pragma omp barrier
      double t0 = omp_get_wtime();
      for (long k = 0; k < reps; k++) step(n, m, A, B);
      double dt = omp_get_wtime() - t0;
      #pragma omp critical
      { if (dt > slowest) slowest = dt; team = omp_get_num_threads(); }
      sink += A[m + 1];
      free(A);
      free(B);
    }
    if (slowest < best) best = slowest;
  }
  printf("%d %.3f\n", team, team * 10.0 * (n - 2) * (m - 2) * reps / best / 1e9);
  return sink == -1.0;  /* keeps the sweeps */
}
