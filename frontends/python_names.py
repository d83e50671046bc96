"""The Python frontend's renaming of local names that isl or the generated C cannot use.

A function's arguments and variables become isl dimensions and C identifiers.  A name
isl reads as a keyword (``mod``, ``ceil``, ``NaN``), a non-ASCII one (``β``) or one the
generated C reserves (``double``, ``sqrt``, ``malloc``, ``omp_get_num_threads``) is
renamed throughout the function to :func:`polyopt.names.internal_name`'s spelling, which
messages and reports turn back into the user's (:func:`polyopt.names.user_text`).  Only
local names are renamed: as in Python, a name assigned anywhere in the function is local
everywhere in it, and any other name (a builtin, a module, a global constant) keeps its
meaning.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re

from polyopt.frontends.python_source import FunctionSource

from polyopt.names import internal_name, isl_safe
from polyopt.signature import Signature

# C keywords and the types, macros and functions of the headers the generated C includes
# (<math.h>, <stdint.h>, <stdlib.h>, <string.h>, <omp.h>) and of the program around it
C_RESERVED = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while
    _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert
    _Thread_local bool complex imaginary true false NULL main errno
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t
    intmax_t uintmax_t size_t ptrdiff_t float_t double_t
    NAN INFINITY HUGE_VAL HUGE_VALF HUGE_VALL INT64_C INT32_C UINT64_C UINT32_C
    isnan isinf isfinite isnormal signbit fpclassify isgreater isgreaterequal isless
    islessequal islessgreater isunordered
    sqrt exp exp2 expm1 log log2 log10 log1p pow fabs sin cos tan asin acos atan atan2 sinh
    cosh tanh asinh acosh atanh floor ceil trunc round lround llround rint lrint llrint
    nearbyint fmod remainder remquo copysign fmin fmax fdim fma hypot cbrt erf erfc tgamma
    lgamma frexp ldexp modf scalbn scalbln ilogb logb nextafter nexttoward nan
    abs labs llabs div ldiv lldiv
    malloc calloc realloc free aligned_alloc posix_memalign abort exit atexit quick_exit
    _Exit getenv system qsort bsearch rand srand atoi atol atof strtod strtol
    memcpy memmove memset memcmp memchr strlen strcpy strncpy strcmp strncmp strcat strchr
    printf fprintf sprintf snprintf puts putchar stdin stdout stderr FILE
""".split())
# the math functions' float forms, the macros of <stdint.h>, <math.h> and <float.h>
# (INT64_MAX, M_PI, FP_NAN, DBL_MAX...), OpenMP's API, and reserved C identifiers
_C_RESERVED_PATTERN = re.compile(
    r"(U?INT(8|16|32|64|MAX|PTR)?_|(U?INT_(LEAST|FAST)\d+)_|M_|FP_|MATH_|SIZE_|PTRDIFF_"
    r"|SIG_ATOMIC_|WCHAR_|WINT_|DBL_|FLT_|LDBL_|omp_|kmp_|__|_[A-Z])")


def needs_renaming(name: str) -> bool:
    base = name[:-1] if name.endswith(("f", "l")) else name
    return (not isl_safe(name) or name in C_RESERVED or base in C_RESERVED
            or bool(_C_RESERVED_PATTERN.match(name)))


def local_names(fdef: ast.FunctionDef) -> list[str]:
    """The function's arguments and assigned names, in order of first appearance."""
    out: dict[str, None] = {}
    for a in (*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs):
        out[a.arg] = None
    for a in (fdef.args.vararg, fdef.args.kwarg):
        if a is not None:
            out[a.arg] = None
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out[n.id] = None
    return list(out)


def renaming(src: FunctionSource) -> dict[str, str]:
    """User name -> internal name, for the local names that need one."""
    return {n: internal_name(n) for n in local_names(src.tree) if needs_renaming(n)}


def renamed_source(src: FunctionSource, names: dict[str, str]) -> FunctionSource:
    """``src`` with ``names`` renamed in a copy of its tree (positions unchanged)."""
    if not names:
        return src
    tree = copy.deepcopy(src.tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id]
        elif isinstance(n, ast.arg) and n.arg in names:
            n.arg = names[n.arg]
    return dataclasses.replace(src, tree=tree)


def renamed_signature(sig: Signature | None, names: dict[str, str]) -> Signature | None:
    if sig is None or not names:
        return sig
    return Signature(tuple((names.get(n, n), t) for n, t in sig.args))
