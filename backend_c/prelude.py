"""The C helpers every generated file starts with: Python's integer and float
semantics for ``//``, ``%``, ``min``, ``max`` and ``abs``, and isl's ``floord``."""

PRELUDE = r"""#include <math.h>
#include <stdint.h>

/* branch-free, so that straight-line code using it stays one basic block (SLP) */
static inline int64_t polyopt_floord(int64_t a, int64_t b)
{ int64_t q = a / b, r = a % b; return q - (int64_t)((r != 0) & ((r < 0) != (b < 0))); }
static inline int64_t polyopt_imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t polyopt_imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* Integers wrap modulo 2^bits, as NumPy's and Numba's do: signed overflow is
   undefined in C, so +, -, * and negation go through the unsigned type.  Where Python
   raises (a division by zero, a float that no int holds) a flag is set for the caller
   to raise after the call (README "Integers"). */
#define POLYOPT_ZERO_DIVISION 1
#define POLYOPT_NAN_TO_INT 2
#define POLYOPT_INT_OVERFLOW 4
static inline void polyopt_raise(int32_t *err, int32_t code)
{ __atomic_fetch_or(err, code, __ATOMIC_RELAXED); }

#define POLYOPT_INT_HELPERS(S, T, U) \
static inline T polyopt_add_##S(T a, T b) { return (T)((U)a + (U)b); } \
static inline T polyopt_sub_##S(T a, T b) { return (T)((U)a - (U)b); } \
static inline T polyopt_mul_##S(T a, T b) { return (T)((U)a * (U)b); } \
static inline T polyopt_neg_##S(T a) { return (T)((U)0 - (U)a); } \
/* b == -1: a / b overflows for the most negative a (SIGFPE); NumPy gives -a, wrapped */ \
static inline T polyopt_floordiv_##S(T a, T b) \
{ if (b == 0) return 0; if (b == -1) return polyopt_neg_##S(a); \
  T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; } \
static inline T polyopt_mod_##S(T a, T b) \
{ if (b == 0 || b == -1) return 0; T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; } \
static inline T polyopt_floordiv_##S##_chk(T a, T b, int32_t *err) \
{ if (b == 0) polyopt_raise(err, POLYOPT_ZERO_DIVISION); return polyopt_floordiv_##S(a, b); } \
static inline T polyopt_mod_##S##_chk(T a, T b, int32_t *err) \
{ if (b == 0) polyopt_raise(err, POLYOPT_ZERO_DIVISION); return polyopt_mod_##S(a, b); } \
static inline T polyopt_min_##S(T a, T b) { return b < a ? b : a; } \
static inline T polyopt_max_##S(T a, T b) { return b > a ? b : a; } \
static inline T polyopt_abs_##S(T a) { return a < 0 ? polyopt_neg_##S(a) : a; } \
static inline T polyopt_square_##S(T a) { return polyopt_mul_##S(a, a); } \
static inline T polyopt_ipow_##S(T a, T n) \
{ U r = 1, x = (U)a; while (n > 0) { if (n & 1) r *= x; x *= x; n >>= 1; } return (T)r; }
POLYOPT_INT_HELPERS(i64, int64_t, uint64_t)
POLYOPT_INT_HELPERS(i32, int32_t, uint32_t)

/* A float converted to an int: Python raises for NaN (ValueError) and for a value the
   int cannot hold (OverflowError); C's conversion is undefined there. */
static inline int64_t polyopt_to_i64(double x, int32_t *err)
{ if (x >= -0x1p63 && x < 0x1p63) return (int64_t)x;
  polyopt_raise(err, x != x ? POLYOPT_NAN_TO_INT : POLYOPT_INT_OVERFLOW); return 0; }
static inline int32_t polyopt_to_i32(double x, int32_t *err)
{ if (x > -2147483649.0 && x < 2147483648.0) return (int32_t)x;
  polyopt_raise(err, x != x ? POLYOPT_NAN_TO_INT : POLYOPT_INT_OVERFLOW); return 0; }

/* Python's float // and % on NumPy scalars (np.floor_divide, np.remainder: npy_divmod, CPython's
   float_floor_div / float_rem except that a zero divisor gives a / b and fmod's NaN
   rather than ZeroDivisionError: array elements are NumPy scalars). */
#define POLYOPT_FLOAT_HELPERS(S, T, FMOD, FLOOR) \
static inline T polyopt_mod_##S(T a, T b) \
{ T m = FMOD(a, b); if (b == 0) return m; \
  if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else { m = copysign((T)0, b); } return m; } \
static inline T polyopt_floordiv_##S(T a, T b) \
{ if (b == 0) return a / b; \
  T m = FMOD(a, b); T d = (a - m) / b; \
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1; \
  if (d != 0) { T f = FLOOR(d); if (d - f > (T)0.5) f += 1; return f; } \
  return copysign((T)0, a / b); } \
static inline T polyopt_min_##S(T a, T b) { return b < a ? b : a; } \
static inline T polyopt_max_##S(T a, T b) { return b > a ? b : a; } \
static inline T polyopt_square_##S(T a) { return a * a; }
POLYOPT_FLOAT_HELPERS(f64, double, fmod, floor)
POLYOPT_FLOAT_HELPERS(f32, float, fmodf, floorf)
"""

#: A Python int converted to a narrower NumPy int where it meets one (``u8[i] + k``,
#: ``u8[i] = t``, ``np.uint8(t)``): NumPy raises OverflowError when the value does not
#: fit (README "Integers"); and a uint64 made a Python int (``int(u[i])``,
#: ``math.floor(u[i])``), which polyopt holds in an int64; emitted only when used.
PYINT_FIT = r"""#define POLYOPT_PYINT_OVERFLOW 8
#define POLYOPT_PYINT_PAST_INT64 256
static inline int64_t polyopt_fit(int64_t x, int64_t lo, int64_t hi, int32_t *err)
{ if (x < lo || x > hi) polyopt_raise(err, POLYOPT_PYINT_OVERFLOW); return x; }
static inline int64_t polyopt_u64_int(uint64_t x, int32_t *err)
{ if (x > (uint64_t)INT64_MAX) polyopt_raise(err, POLYOPT_PYINT_PAST_INT64); return (int64_t)x; }
"""


#: NumPy compares a uint64 with a signed int exactly (their promotion, float64, would
#: round both past 2**53): -1, 0 or 1 as ``u`` is below, equal to or above ``s``;
#: emitted only when used.
EXACT_COMPARE = r"""static inline int polyopt_cmp_u64_i64(uint64_t u, int64_t s)
{ return s < 0 ? 1 : (u > (uint64_t)s) - (u < (uint64_t)s); }
"""


#: ``np.max``/``np.min`` along an empty axis: NumPy raises ValueError (reductions
#: without an identity); the error flag's bits, emitted only when used.
EMPTY_REDUCTION = r"""#define POLYOPT_EMPTY_MAXIMUM 16
#define POLYOPT_EMPTY_MINIMUM 32
"""


#: ``**`` of two Python scalars (floats, or an int and a float) as CPython computes it,
#: where CPython gives no float: a negative base to a fractional power is a complex
#: number (polyopt raises ValueError), 0.0 to a negative power a ZeroDivisionError;
#: the error flag's bits, emitted only when used.
PYTHON_POW = r"""#define POLYOPT_COMPLEX_POW 64
#define POLYOPT_ZERO_POW 128
static inline double polyopt_pypow(double a, double b, int32_t *err)
{
  if (a < 0 && b == b && b - b == 0 && b != floor(b)) polyopt_raise(err, POLYOPT_COMPLEX_POW);
  if (a == 0 && b < 0) polyopt_raise(err, POLYOPT_ZERO_POW);
  return pow(a, b);
}
"""


#: CPython's ``math.hypot``, which is not the C library's: its own algorithm, correctly
#: rounded where the C library's is not (about 1 result in 300 differs by an ulp).  The
#: squares are summed as exact double-doubles, and one Newton step with the exact
#: residual corrects the square root; a subnormal result is the rounded integer square
#: root of the inputs' integer squares.  No product here may be contracted into an fma
#: (the residual ``sh - hh - hl`` would count ``hl`` twice): gcc contracts a product only
#: where every use is an addition, and each product also feeds an explicit fma.
PYTHON_HYPOT = r"""static inline double polyopt_pyhypot(double x, double y)
{
  double a = fabs(x), b = fabs(y);
  if (isinf(a) || isinf(b)) return INFINITY;
  if (a != a || b != b) return a + b;
  if (a < b) { double t = a; a = b; b = t; }
  if (b == 0) return a;
  if (a < 0x1p-1022) {
    unsigned __int128 A = (uint64_t)(a * 0x1p1000 * 0x1p74), B = (uint64_t)(b * 0x1p1000 * 0x1p74);
    unsigned __int128 n = A * A + B * B;
    uint64_t r = (uint64_t)sqrt((double)n);
    while ((unsigned __int128)r * r > n) r--;
    while ((unsigned __int128)(r + 1) * (r + 1) <= n) r++;
    if (n - (unsigned __int128)r * r > r) r++;
    return (double)r * 0x1p-1000 * 0x1p-74;
  }
  double up = 1.0, down = 1.0;
  if (a > 0x1p500) { up = 0x1p-600; down = 0x1p600; }
  else if (a < 0x1p-500) { up = 0x1p600; down = 0x1p-600; }
  a *= up; b *= up;
  double ah = a * a, al = fma(a, a, -ah);
  double bh = b * b, bl = fma(b, b, -bh);
  double sh = ah + bh, t = sh - ah, sl = (ah - (sh - t)) + (bh - t) + al + bl;
  double h = sqrt(sh + sl);
  double hh = h * h, hl = fma(h, h, -hh);
  h += (((sh - hh) - hl) + sl) / (2.0 * h);
  return h * down;
}
"""


#: A write prefetch of one element's cache line; emitted only when used.  The address
#: is integer arithmetic: the element may lie past the array (the next register tile
#: of a matmul that has none), and a prefetch never faults, but a pointer formed past
#: an array would be undefined.  ``PREFETCH_MACRO`` is the same for a C region's block.
PREFETCH_MACRO = (
    "#if defined(__GNUC__)\n"
    "#define polyopt_prefetch(base, index, type) __builtin_prefetch((const void *)"
    "((__UINTPTR_TYPE__)(base) + (__UINTPTR_TYPE__)(index) * sizeof(type)), 1, 3)\n"
    "#else\n"
    "#define polyopt_prefetch(base, index, type) ((void)0)\n"
    "#endif")
PREFETCH = PREFETCH_MACRO + "\n"


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


#: lgamma without its global side effect (``signgam``), which threads would race on;
#: emitted only when used.  glibc and the BSDs have the reentrant forms.
LGAMMA = r"""extern double lgamma_r(double, int *);
extern float lgammaf_r(float, int *);
static inline double polyopt_lgamma(double x) { int s; return lgamma_r(x, &s); }
static inline float polyopt_lgammaf(float x) { int s; return lgammaf_r(x, &s); }
"""


#: NumPy's ``maximum``/``minimum`` of floats (and so ``np.max``/``np.min``): a NaN
#: operand is the result, on either side, where ``max()``/``min()`` (``polyopt_max``)
#: return whichever operand a comparison with the NaN picks; emitted only when used.
NAN_MINMAX = r"""static inline double polyopt_maximum_f64(double a, double b)
{ return (a != a || b != b) ? a + b : (a > b ? a : b); }
static inline double polyopt_minimum_f64(double a, double b)
{ return (a != a || b != b) ? a + b : (a < b ? a : b); }
static inline float polyopt_maximum_f32(float a, float b)
{ return (a != a || b != b) ? a + b : (a > b ? a : b); }
static inline float polyopt_minimum_f32(float a, float b)
{ return (a != a || b != b) ? a + b : (a < b ? a : b); }
#ifdef __FLT16_MAX__
static inline _Float16 polyopt_maximum_f16(_Float16 a, _Float16 b)
{ return (a != a || b != b) ? a + b : (a > b ? a : b); }
static inline _Float16 polyopt_minimum_f16(_Float16 a, _Float16 b)
{ return (a != a || b != b) ? a + b : (a < b ? a : b); }
#endif
"""


#: What a parallel loop with per-thread copies of arrays needs (private arrays, array
#: reductions);
#: emitted only when used.
OMP_RUNTIME = r"""#ifdef _OPENMP
#include <omp.h>
#else
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
#endif"""
PRIVATE_ARRAYS = "#include <stdlib.h>\n#include <string.h>\n" + OMP_RUNTIME


#: The blocks of a loop printed in ranges of rows (backend_c/ranged.py): as many as the
#: team has threads, or a multiple, each at most ``per`` rows (of register tiles) and
#: none empty, and where block ``b`` starts; emitted only when used (with OMP_RUNTIME).
ROW_RANGES = r"""static inline int64_t polyopt_row_blocks(int64_t count, int64_t per, int team)
{
  int64_t t = team ? (int64_t)omp_get_max_threads() : 1;
  if (t < 1) t = 1;
  int64_t n = t * ((count + per * t - 1) / (per * t));
  return n < count ? n : count;
}
static inline int64_t polyopt_row_start(int64_t first, int64_t count, int64_t blocks, int64_t b)
{
  int64_t extra = count % blocks;
  return first + b * (count / blocks) + (b < extra ? b : extra);
}"""
