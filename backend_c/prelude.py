"""The C helpers every generated file starts with: Python's integer and float
semantics for ``//``, ``%``, ``min``, ``max`` and ``abs``, and isl's ``floord``."""

PRELUDE = r"""#include <math.h>
#include <stdint.h>

/* branch-free, so that straight-line code using it stays one basic block (SLP) */
static inline int64_t polyopt_floord(int64_t a, int64_t b)
{ int64_t q = a / b, r = a % b; return q - (int64_t)((r != 0) & ((r < 0) != (b < 0))); }
static inline int64_t polyopt_imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t polyopt_imax(int64_t a, int64_t b) { return a > b ? a : b; }

#define POLYOPT_INT_HELPERS(S, T) \
static inline T polyopt_floordiv_##S(T a, T b) \
{ if (b == 0) return 0; T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; } \
static inline T polyopt_mod_##S(T a, T b) \
{ if (b == 0) return 0; T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; } \
static inline T polyopt_min_##S(T a, T b) { return b < a ? b : a; } \
static inline T polyopt_max_##S(T a, T b) { return b > a ? b : a; } \
static inline T polyopt_abs_##S(T a) { return a < 0 ? -a : a; } \
static inline T polyopt_square_##S(T a) { return a * a; } \
static inline T polyopt_ipow_##S(T a, T n) \
{ T r = 1; while (n > 0) { if (n & 1) r *= a; a *= a; n >>= 1; } return r; }
POLYOPT_INT_HELPERS(i64, int64_t)
POLYOPT_INT_HELPERS(i32, int32_t)

/* Python's float // and % (CPython's float_floor_div / float_rem). */
#define POLYOPT_FLOAT_HELPERS(S, T, FMOD, FLOOR) \
static inline T polyopt_mod_##S(T a, T b) \
{ T m = FMOD(a, b); if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = copysign((T)0, b); } return m; } \
static inline T polyopt_floordiv_##S(T a, T b) \
{ T m = FMOD(a, b); T d = (a - m) / b; \
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1; \
  if (d != 0) { T f = FLOOR(d); if (d - f > (T)0.5) f += 1; return f; } \
  return copysign((T)0, a / b); } \
static inline T polyopt_min_##S(T a, T b) { return b < a ? b : a; } \
static inline T polyopt_max_##S(T a, T b) { return b > a ? b : a; } \
static inline T polyopt_square_##S(T a) { return a * a; }
POLYOPT_FLOAT_HELPERS(f64, double, fmod, floor)
POLYOPT_FLOAT_HELPERS(f32, float, fmodf, floorf)
"""

#: Declarations of glibc's vector math under our own names; emitted only when used.
VECTOR_MATH = r"""/* glibc's vector exp/log/sin/cos (libmvec, at most 4 ulp in float64), declared under our
   own names so that only float32 results use them (polyopt.backend_c.cexpr); glibc's
   math.h declares its vector variants only under -ffast-math. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(_OPENMP) && !defined(__clang__)
#pragma omp declare simd notinbranch
extern double polyopt_vexp(double) __asm__("exp");
#pragma omp declare simd notinbranch
extern double polyopt_vlog(double) __asm__("log");
#pragma omp declare simd notinbranch
extern double polyopt_vsin(double) __asm__("sin");
#pragma omp declare simd notinbranch
extern double polyopt_vcos(double) __asm__("cos");
#else
#define polyopt_vexp exp
#define polyopt_vlog log
#define polyopt_vsin sin
#define polyopt_vcos cos
#endif
"""


#: What a parallel loop with per-thread copies of arrays needs (private arrays, array
#: reductions);
#: emitted only when used.
PRIVATE_ARRAYS = r"""#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
#endif"""
