"""The prelude's helpers for the narrow types (bool, int8/16, the unsigned ints, float16),
emitted only in files whose kernel uses one, so the C of other kernels stays as it was.

Integer helpers follow README "Integers" for every width: +, -, * and negation wrap
(computed in an unsigned type at least as wide as ``unsigned int``, since C promotes
narrower operands to ``int``, where a product of two int16 could overflow); ``//`` and
``%`` floor; a zero divisor gives 0 (or sets the error flag).  float16 computes in float
and rounds each result, as NumPy's float16 loops do.
"""

from __future__ import annotations

from polyopt.model.dtypes import DType
from polyopt.model.expr import Call, Cast, walk
from polyopt.model.scop import Scop

NARROW = r"""#include <stdbool.h>
POLYOPT_INT_HELPERS(i16, int16_t, uint32_t)
POLYOPT_INT_HELPERS(i8, int8_t, uint32_t)

/* unsigned: Python's floor division is C's; -a wraps as NumPy's does */
#define POLYOPT_UINT_HELPERS(S, T, U) \
static inline T polyopt_add_##S(T a, T b) { return (T)((U)a + (U)b); } \
static inline T polyopt_sub_##S(T a, T b) { return (T)((U)a - (U)b); } \
static inline T polyopt_mul_##S(T a, T b) { return (T)((U)a * (U)b); } \
static inline T polyopt_neg_##S(T a) { return (T)((U)0 - (U)a); } \
static inline T polyopt_floordiv_##S(T a, T b) { return b == 0 ? 0 : (T)(a / b); } \
static inline T polyopt_mod_##S(T a, T b) { return b == 0 ? 0 : (T)(a % b); } \
static inline T polyopt_floordiv_##S##_chk(T a, T b, int32_t *err) \
{ if (b == 0) polyopt_raise(err, POLYOPT_ZERO_DIVISION); return polyopt_floordiv_##S(a, b); } \
static inline T polyopt_mod_##S##_chk(T a, T b, int32_t *err) \
{ if (b == 0) polyopt_raise(err, POLYOPT_ZERO_DIVISION); return polyopt_mod_##S(a, b); } \
static inline T polyopt_min_##S(T a, T b) { return b < a ? b : a; } \
static inline T polyopt_max_##S(T a, T b) { return b > a ? b : a; } \
static inline T polyopt_abs_##S(T a) { return a; } \
static inline T polyopt_square_##S(T a) { return polyopt_mul_##S(a, a); } \
static inline T polyopt_ipow_##S(T a, T n) \
{ U r = 1, x = (U)a; while (n > 0) { if (n & 1) r *= x; x *= x; n >>= 1; } return (T)r; }
POLYOPT_UINT_HELPERS(u64, uint64_t, uint64_t)
POLYOPT_UINT_HELPERS(u32, uint32_t, uint32_t)
POLYOPT_UINT_HELPERS(u16, uint16_t, uint32_t)
POLYOPT_UINT_HELPERS(u8, uint8_t, uint32_t)
static inline bool polyopt_min_b(bool a, bool b) { return a & b; }
static inline bool polyopt_max_b(bool a, bool b) { return a | b; }

/* A float converted to a narrow int: the range check of polyopt_to_i32 (README "Integers") */
#define POLYOPT_TO_INT(S, T, LOW, HIGH) \
static inline T polyopt_to_##S(double x, int32_t *err) \
{ if (x > (LOW) - 1.0 && x < (HIGH) + 1.0) return (T)x; \
  polyopt_raise(err, x != x ? POLYOPT_NAN_TO_INT : POLYOPT_INT_OVERFLOW); return 0; }
POLYOPT_TO_INT(i16, int16_t, -32768.0, 32767.0)
POLYOPT_TO_INT(i8, int8_t, -128.0, 127.0)
POLYOPT_TO_INT(u32, uint32_t, 0.0, 4294967295.0)
POLYOPT_TO_INT(u16, uint16_t, 0.0, 65535.0)
POLYOPT_TO_INT(u8, uint8_t, 0.0, 255.0)
static inline uint64_t polyopt_to_u64(double x, int32_t *err)
{ if (x > -1.0 && x < 0x1p64) return (uint64_t)x;
  polyopt_raise(err, x != x ? POLYOPT_NAN_TO_INT : POLYOPT_INT_OVERFLOW); return 0; }
/* A NumPy float stored in an unsigned array: NumPy truncates it to a signed int (int32
   for uint8 and uint16, int64 for the wider ones) and wraps (-1.5 -> 255 in uint8); a
   uint64 takes [2**63, 2**64) as it is.  Past those, NumPy's cast is invalid (a warning
   and any value): raised here as for a Python float. */
static inline uint64_t polyopt_np_to_u64(double x, int32_t *err)
{ return x < 0x1p63 ? (uint64_t)polyopt_to_i64(x, err) : polyopt_to_u64(x, err); }
static inline uint32_t polyopt_np_to_u32(double x, int32_t *err)
{ return (uint32_t)polyopt_to_i64(x, err); }
static inline uint16_t polyopt_np_to_u16(double x, int32_t *err)
{ return (uint16_t)polyopt_to_i32(x, err); }
static inline uint8_t polyopt_np_to_u8(double x, int32_t *err)
{ return (uint8_t)polyopt_to_i32(x, err); }
/* The same for int8 and int16 where NumPy casts an array (astype, np.int8(), a slice
   store): through int32, wrapping (300.2 -> 44, -129.5 -> 127). */
static inline int16_t polyopt_np_to_i16(double x, int32_t *err)
{ return (int16_t)(uint16_t)(uint32_t)polyopt_to_i32(x, err); }
static inline int8_t polyopt_np_to_i8(double x, int32_t *err)
{ return (int8_t)(uint8_t)(uint32_t)polyopt_to_i32(x, err); }
"""

#: float16 through gcc's _Float16 (gcc >= 12 on x86-64, AArch64); emitted only when used
FLOAT16 = r"""#ifndef __FLT16_MAX__
#error "polyopt: float16 arrays need a C compiler with _Float16 (gcc >= 12 on x86-64 or AArch64); convert the arrays to float32"
#endif
static inline _Float16 polyopt_floordiv_f16(_Float16 a, _Float16 b)
{ return (_Float16)polyopt_floordiv_f32(a, b); }
static inline _Float16 polyopt_mod_f16(_Float16 a, _Float16 b) { return (_Float16)polyopt_mod_f32(a, b); }
static inline _Float16 polyopt_min_f16(_Float16 a, _Float16 b) { return b < a ? b : a; }
static inline _Float16 polyopt_max_f16(_Float16 a, _Float16 b) { return b > a ? b : a; }
static inline _Float16 polyopt_square_f16(_Float16 a) { return (_Float16)((float)a * (float)a); }
"""

_WIDE = frozenset({DType.INT32, DType.INT64, DType.FLOAT32, DType.FLOAT64})


def narrow_prelude(scop: Scop) -> str:
    """The helpers ``scop``'s types need beyond the prelude's: "" when it uses only
    int32, int64, float32 and float64 (a comparison's bool is an int in C: it needs none)."""
    used = {a.dtype for a in scop.arrays.values()} | {s.type.dtype for s in scop.scalars.values()}
    for st in scop.statements:
        used |= {e.type.dtype for e in walk(st.value) if not e.type.dtype.is_bool
                 or isinstance(e, Cast) or (isinstance(e, Call) and e.fn in ("min", "max"))}
    if not used - _WIDE:
        return ""
    return NARROW + (FLOAT16 if DType.FLOAT16 in used else "")
