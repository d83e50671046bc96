/* The multiply-add peak of this machine, measured rather than assumed.

   Every thread of the team runs twelve independent chains of vector multiply-adds in
   registers (no memory traffic), as wide as the compiler's target vectors (64 bytes
   with AVX-512, else 32), for float64 and float32: enough chains to cover the latency
   of two multiply-add pipes, few enough to stay in AVX2's sixteen registers.  All
   threads run at the same time, so shared clocks count.  GFLOP/s counts a multiply-add
   as two operations, as the benchmarks' GFLOP/s do.

   Usage: fma_peak; prints "threads fp64-GFLOP/s fp32-GFLOP/s" (best of 3). */
#include <stdio.h>
#include <omp.h>

#if defined(__AVX512F__)
#define VBYTES 64
#else
#define VBYTES 32
#endif
#define CHAINS 12
#define STEPS 20000000L

typedef double vd __attribute__((vector_size(VBYTES)));
typedef float vf __attribute__((vector_size(VBYTES)));

#define CHAIN_LOOP(T, sink)                                                   \
  do {                                                                        \
    T acc[CHAINS], a, b;                                                      \
    for (int l = 0; l < (int)(VBYTES / sizeof(a[0])); l++) {                  \
      a[l] = 1; b[l] = 1e-9f;                                                 \
      for (int c = 0; c < CHAINS; c++) acc[c][l] = 1e-9f * (c + 1);           \
    }                                                                         \
    for (long s = 0; s < STEPS; s++) {                                        \
      _Pragma("GCC unroll 12")                                                \
      for (int c = 0; c < CHAINS; c++) acc[c] = acc[c] * a + b;               \
      __asm__ volatile("" : "+x"(a));  /* a is not a constant: no folding */  \
    }                                                                         \
    for (int c = 0; c < CHAINS; c++) sink += (double)acc[c][0];               \
  } while (0)

static double gflops(int f32)
{
  double best = 0, sink = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = omp_get_wtime();
    int team = 1;
    #pragma omp parallel reduction(+:sink)
    {
      #pragma omp single
      team = omp_get_num_threads();
      if (f32) CHAIN_LOOP(vf, sink); else CHAIN_LOOP(vd, sink);
    }
    double s = omp_get_wtime() - t0;
    double lanes = f32 ? VBYTES / 4 : VBYTES / 8;
    double g = team * (double)STEPS * CHAINS * lanes * 2 / s / 1e9;
    if (g > best) best = g;
  }
  if (sink == 42) puts("");  /* keeps the chains live */
  return best;
}

int main(void)
{
  int team = 1;
  #pragma omp parallel
  #pragma omp single
  team = omp_get_num_threads();
  double f64 = gflops(0), f32 = gflops(1);
  printf("%d %.1f %.1f\n", team, f64, f32);
  return 0;
}
