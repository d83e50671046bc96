"""Names, not positions: the one module that converts between isl dimension
positions and the names the rest of polyopt speaks of, and between the names users
write and the internal ones isl and C can take.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

import islpy as isl

dim_type = isl.dim_type

# --- user names and the names isl and C see -------------------------------------------
#
# A user's identifier may be an isl keyword (``mod``, ``floor``, ``NaN``: isl's parser
# matches these case-insensitively), non-ASCII (``β``, which isl cannot read and C may
# not accept), or a name the generated C itself uses (``double``, ``sqrt``, ``malloc``).
# Such a name becomes an internal one that encodes it reversibly, so messages and
# reports can show the user's spelling again (:func:`user_text`) without a table:
# ``polyopt_u<len>_<name>`` for ASCII names, ``polyopt_x<utf-8 hex>_`` otherwise.

# the words isl's lexer treats specially (isl_stream.c), compared case-insensitively
ISL_KEYWORDS = frozenset("""
    exists and or implies not infty infinity nan min max rat true false ceild floord mod
    ceil floor
""".split())

_ASCII_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INTERNAL = re.compile(r"polyopt_(?P<scope>s\d+_)?(?:u(?P<len>\d+)_|x(?P<hex>(?:[0-9a-f]{2})+)_)")


def isl_safe(name: str) -> bool:
    """Whether ``name`` can stand in isl's text syntax and C as it is."""
    return bool(_ASCII_IDENT.match(name)) and name.lower() not in ISL_KEYWORDS and \
        not name.startswith("polyopt_")


def internal_name(name: str) -> str:
    """The reversible internal spelling of a user's name (see :func:`user_text`)."""
    if _ASCII_IDENT.match(name):
        return f"polyopt_u{len(name)}_{name}"
    return f"polyopt_x{name.encode('utf-8').hex()}_"


def scoped_name(name: str, k: int) -> str:
    """The ``k``-th name for a declaration of ``name`` that shadows another one (C's block
    scopes, :mod:`polyopt.frontends.c_shadowing`): distinct in C and isl, and spelled
    ``name`` by :func:`user_text` in messages, but not in C (``whole_names``), where
    the two must stay apart."""
    m = _INTERNAL.match(name)
    whole = m is not None and m.group("scope") is None and len(name) == m.end() + (
        int(m.group("len")) if m.group("len") is not None else 0)
    inner = name if whole else internal_name(name)  # already the internal spelling
    return f"polyopt_s{k}_{inner[len('polyopt_'):]}"


def user_text(text: str, whole_names: bool = False) -> str:
    """``text`` with every internal name (also inside a longer identifier, such as a
    size parameter ``polyopt_u3_mod_shape0``) spelled as the user wrote it.

    ``whole_names``: only names that stand alone, as C code needs: a name derived from
    an internal one (``polyopt_u7_implies_acc``) was chosen not to collide with the
    program's names, which the user's spelling (``implies_acc``) might."""
    if "polyopt_" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        m = _INTERNAL.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        end = m.end() + int(m.group("len")) if m.group("len") is not None else m.end()
        if whole_names and (m.group("scope") is not None
                            or end < len(text) and (text[end].isalnum() or text[end] == "_")
                            or m.start() > 0 and (text[m.start() - 1].isalnum()
                                                  or text[m.start() - 1] == "_")):
            out.append(text[pos:end])
        else:
            out.append(text[pos:m.start()])
            out.append(text[m.end():end] if m.group("len") is not None
                       else bytes.fromhex(m.group("hex")).decode("utf-8", "replace"))
        pos = end


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
C_RESERVED_PATTERN = re.compile(
    r"(U?INT(8|16|32|64|MAX|PTR)?_|(U?INT_(LEAST|FAST)\d+)_|M_|FP_|MATH_|SIZE_|PTRDIFF_"
    r"|SIG_ATOMIC_|WCHAR_|WINT_|DBL_|FLT_|LDBL_|omp_|kmp_|__|_[A-Z])")




def c_frontend_renames(name: str) -> bool:
    """Whether the C frontend renames a variable of a C file: isl cannot read it, or the
    code polyopt generates around a region (OpenMP, its --verify harness) needs it."""
    return not isl_safe(name) or name in C_RESERVED or name.startswith(("omp_", "kmp_"))


def _named(name: str | None) -> str:
    """``name`` of a parameter: isl parameters are identified by their names."""
    if name is None:
        raise ValueError("an isl parameter without a name")
    return name


def param_names(obj: isl.Set | isl.Map | isl.UnionSet | isl.UnionMap) -> list[str]:
    space = obj.get_space()
    return [_named(space.get_dim_name(dim_type.param, k))
            for k in range(space.dim(dim_type.param))]


def involved_params(s: isl.Set) -> set[str]:
    """The parameters that ``s``'s constraints mention."""
    return set(param_names(s.drop_unused_params()))


def keep_params(s: isl.Set, keep: Collection[str]) -> isl.Set:
    """``s`` over the parameters ``keep`` only, the others projected out (exact where ``s``
    does not involve them)."""
    for k in reversed(range(s.dim(dim_type.param))):
        if _named(s.get_dim_name(dim_type.param, k)) not in keep:
            s = s.project_out(dim_type.param, k, 1)
    return s


def params_where_first_dim_runs(s: isl.Set) -> isl.Set:
    """The parameter values for which dimension 0 of ``s``, bounded only by the
    constraints that mention it, takes a value: where a loop over it would run."""
    return s.drop_constraints_not_involving_dims(dim_type.set, 0, 1).params()


def tuple_name(s: isl.Set | isl.BasicSet) -> str:
    return s.get_tuple_name()


def in_tuple_name(m: isl.Map | isl.BasicMap) -> str:
    return m.get_tuple_name(dim_type.in_)


def out_tuple_name(m: isl.Map | isl.BasicMap) -> str:
    return m.get_tuple_name(dim_type.out)


def n_out(m: isl.Map | isl.BasicMap) -> int:
    return m.dim(dim_type.out)


def n_in(m: isl.Map | isl.BasicMap) -> int:
    return m.dim(dim_type.in_)




def maps_of(um: isl.UnionMap) -> list[isl.Map]:
    out: list[isl.Map] = []
    um.foreach_map(out.append)
    return out


def sets_of(us: isl.UnionSet) -> list[isl.Set]:
    out: list[isl.Set] = []
    us.foreach_set(out.append)
    return out




def single_value(s: isl.Set, k: int) -> int | None:
    """The value of set dimension ``k`` when it is the same for every point, else None."""
    if s.is_empty():
        return None
    lo = s.dim_min(k)
    hi = s.dim_max(k)
    if lo.is_cst() and hi.is_cst():
        a = _pw_const(lo)
        b = _pw_const(hi)
        if a is not None and a == b:
            return a
    return None


def dim_bounds(s: isl.Set, k: int) -> tuple[int | None, int | None]:
    """Constant lower and upper bound of set dimension ``k`` (None when unbounded/parametric)."""
    if s.is_empty():
        return None, None
    lo = s.dim_min(k)
    hi = s.dim_max(k)
    return (_pw_const(lo) if lo.is_cst() else None, _pw_const(hi) if hi.is_cst() else None)


def dim_range(s: isl.Set, k: int) -> tuple[isl.PwAff, isl.PwAff]:
    """The least and greatest value of set dimension ``k``, as functions of the
    parameters (defined where ``s`` is not empty)."""
    return s.dim_min(k), s.dim_max(k)


def _pw_const(pa: isl.PwAff) -> int | None:
    vals: list[int] = []

    def take(_set: isl.Set, aff: isl.Aff) -> None:
        v = aff.get_constant_val()
        if v.is_int():
            vals.append(int(v.to_python()))

    pa.foreach_piece(take)
    if len(vals) >= 1 and all(v == vals[0] for v in vals):
        return vals[0]
    return None




def bounded_params(context: isl.Set, limit: int) -> isl.Set:
    """The parameter values of ``context``'s space within ``-limit .. limit``."""
    out = isl.Set.universe(context.get_space())
    for k in range(out.dim(dim_type.param)):
        out = out.lower_bound_val(dim_type.param, k, isl.Val(-limit)).upper_bound_val(
            dim_type.param, k, isl.Val(limit))
    return out


def fix_params(s: isl.Set, values: Mapping[str, int]) -> isl.Set:
    """``s`` where each parameter named in ``values`` has its value there."""
    for k in range(s.dim(dim_type.param)):
        name = _named(s.get_dim_name(dim_type.param, k))
        if name in values:
            s = s.fix_val(dim_type.param, k, isl.Val(values[name]))
    return s


def counter_set(context: isl.Set, counters: list[str]) -> isl.Set:
    """The universe over ``context``'s parameters and one set dimension per loop counter
    of an isl AST, named ``counters``: where an AST's conditions are intersected."""
    space = isl.Space.set_from_params(context.get_space()).add_dims(dim_type.set, len(counters))
    for k, c in enumerate(counters):
        space = space.set_dim_name(dim_type.set, k, c)
    return isl.Set.universe(space)


def named_var(universe: isl.Set, name: str) -> isl.PwAff | None:
    """The value of the counter or parameter ``name`` on ``universe`` (a
    :func:`counter_set`), or None when it has neither."""
    space = universe.get_space()
    ls = isl.LocalSpace.from_space(space)
    for kind in (dim_type.set, dim_type.param):
        k = space.find_dim_by_name(kind, name)
        if k >= 0:
            return isl.PwAff.var_on_domain(ls, kind, k)
    return None


def instances_of(where: isl.Set, values: list[isl.PwAff], stmt: str) -> isl.Set:
    """The points ``stmt[values]`` for the counter values in ``where``: the statement
    instances an AST node runs."""
    if not values:
        return isl.Set.from_params(where.params()).set_tuple_name(stmt)
    m = isl.Map.from_pw_aff(values[0])
    for v in values[1:]:
        m = m.flat_range_product(isl.Map.from_pw_aff(v))
    return where.apply(m).set_tuple_name(stmt)


def id_list(names: list[str]) -> isl.IdList:
    lst = isl.IdList.alloc(isl.DEFAULT_CONTEXT, len(names))
    for n in names:
        lst = lst.add(isl.Id(n))
    return lst


def aff_terms(aff: isl.Aff, iterators: tuple[str, ...]) -> tuple[dict[str, int], int] | None:
    """``aff`` (over a statement's iterators and the parameters) as integer coefficients
    by name plus a constant; None when it has divisions or rational coefficients."""
    if aff.dim(dim_type.div) > 0:
        return None
    coeffs: dict[str, int] = {}
    for k, name in enumerate(iterators):
        v = aff.get_coefficient_val(dim_type.in_, k)
        if not v.is_int():
            return None
        if not v.is_zero():
            coeffs[name] = int(v.to_python())
    for k in range(aff.dim(dim_type.param)):
        v = aff.get_coefficient_val(dim_type.param, k)
        if not v.is_int():
            return None
        if not v.is_zero():
            coeffs[_named(aff.get_dim_name(dim_type.param, k))] = int(v.to_python())
    c = aff.get_constant_val()
    if not c.is_int():
        return None
    return coeffs, int(c.to_python())


def dim_max_affine(s: isl.Set, k: int) -> tuple[dict[str, int], int] | None:
    """An upper bound on set dimension ``k`` of ``s`` as one affine function of the
    parameters (coefficients by name, constant): the largest value over ``s`` without
    its existential divisions (a larger set, so still a bound).  None where that largest
    value is piecewise or not affine."""
    pieces = pw_aff_pieces(s.remove_divs().dim_max(k))
    return aff_terms(pieces[0], ()) if len(pieces) == 1 else None


def depends_on(s: isl.Set, k: int, other: int) -> bool:
    """Whether the values set dimension ``k`` of ``s`` takes depend on dimension ``other``:
    trmm's ``k in range(i + 1, m)`` depends on ``i``.  ``s`` projected onto the two is
    then smaller than the product of its projections onto each."""
    n = s.dim(dim_type.set)
    lo, hi = sorted((k, other))
    two = (s.project_out(dim_type.set, hi + 1, n - hi - 1)
           .project_out(dim_type.set, lo + 1, hi - lo - 1)
           .project_out(dim_type.set, 0, lo).reset_tuple_id())
    box = two.project_out(dim_type.set, 1, 1).flat_product(two.project_out(dim_type.set, 0, 1))
    return not box.is_subset(two)


def is_product(m: isl.Map) -> bool:
    """Whether ``m`` relates every point of its domain to every point of its range."""
    return isl.Map.from_domain_and_range(m.domain(), m.range()).is_subset(m)


def lexmax_affine(s: isl.Set, k: int) -> tuple[dict[str, int], int] | None:
    """Dimension ``k`` of the lexicographically largest point of ``s``, as one affine
    function of the parameters (coefficients by name, constant); None where it is
    piecewise or not affine."""
    pieces = pw_aff_pieces(s.lexmax_pw_multi_aff().get_pw_aff(k))
    return aff_terms(pieces[0], ()) if len(pieces) == 1 else None


def below(s: isl.Set, k: int, value: int) -> isl.Set:
    """The points of ``s`` whose dimension ``k`` is below ``value``."""
    c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(s.get_space()))
    c = c.set_coefficient_val(dim_type.set, k, -1).set_constant_val(value - 1)
    return s.add_constraint(c)


def total_at_least_zero(pa: isl.PwAff, context: isl.Set) -> isl.PwAff:
    """``pa``, or 0 where it is below 0 or undefined: a total function of the parameters
    over ``context`` (an extent, a count of rows, where a domain may be empty)."""
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(pa.get_domain_space()))
    return pa.union_max(zero.intersect_domain(context)).gist(context)


def pw_aff_pieces(pa: isl.PwAff) -> list[isl.Aff]:
    out: list[isl.Aff] = []
    pa.foreach_piece(lambda _s, a: out.append(a))
    return out


def union_pw_aff_parts(upa: isl.UnionPwAff) -> list[isl.PwAff]:
    out: list[isl.PwAff] = []
    upa.foreach_pw_aff(out.append)
    return out


def pw_aff_tuple_name(pa: isl.PwAff) -> str:
    return pa.get_space().get_tuple_name(dim_type.in_)


def band_members(node: isl.ScheduleNode) -> list[isl.UnionPwAff]:
    mupa = node.band_get_partial_schedule()
    return [mupa.get_at(k) for k in range(node.band_n_member())]


def children(node: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    return [node.child(k) for k in range(node.n_children())]


def rename_set(s: isl.Set, name: str) -> isl.Set:
    return s.set_tuple_name(name)


def rename_map_domain(m: isl.Map, name: str) -> isl.Map:
    return m.set_tuple_name(dim_type.in_, name)


def name_dims(s: isl.Set, dims: tuple[str, ...]) -> isl.Set:
    """``s`` with its set dimensions named ``dims``, in order."""
    for k, d in enumerate(dims):
        s = s.set_dim_name(dim_type.set, k, d)
    return s


def has_local_variables(s: isl.Set) -> bool:
    """Whether some piece of ``s`` has an existentially quantified variable (a stride,
    a floor division, a projection)."""
    return any(b.dim(dim_type.div) > 0 for b in s.get_basic_sets())


def has_iterator_stride(s: isl.Set) -> bool:
    """Whether ``s`` keeps its dimensions on a lattice (a loop stepping by more than 1,
    an ``i % 2 == 0`` test): an equality between its dimensions and a local variable
    (``i = 3e + 1``).  A local variable in inequalities only (the partial tiles that a
    split leaves, ``6e <= i < 6e + 6``) or of the parameters alone (``i < n // 2``) is
    none."""
    # a projection can leave local variables isl has no expression for (get_div fails):
    # compute_divs names them all
    for b in s.compute_divs().get_basic_sets():
        n_div, n_set = b.dim(dim_type.div), b.dim(dim_type.set)
        on_dims = [k for k in range(n_div) if _div_of_dims(b.get_div(k))]
        for c in b.get_constraints():
            if not c.is_equality():
                continue
            divs = [k for k in range(n_div) if not c.get_coefficient_val(dim_type.div, k).is_zero()]
            if divs and (any(k in on_dims for k in divs) or any(
                    not c.get_coefficient_val(dim_type.set, k).is_zero() for k in range(n_set))):
                return True
    return False


def _div_of_dims(aff: isl.Aff) -> bool:
    """A local variable defined by the set's dimensions (or one isl cannot name)."""
    return bool(aff.is_nan() or aff.involves_dims(dim_type.in_, 0, aff.dim(dim_type.in_)))


def dim_extents(s: isl.Set) -> list[isl.PwAff]:
    """``max - min + 1`` of every set dimension of ``s``, as functions of the parameters
    (defined where ``s`` is not empty)."""
    return [s.dim_max(k).sub(s.dim_min(k)).add_constant_val(isl.Val.one(s.get_ctx()))
            for k in range(s.dim(dim_type.set))]
