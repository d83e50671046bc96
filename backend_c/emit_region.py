"""C for one ``#pragma scop`` region, printed in its file's own terms.

The region's statements are executed in the order of a schedule tree (with
OpenMP marks) by the same isl AST walker that prints whole kernels
(:class:`~polyopt.backend_c.ast_walk.AstWalker`), but everything is spelled the
way the file spells it: arrays are indexed ``A[i][j]`` through their own
declarations, scalars are used by name, loop counters are declared locally,
and no helper outside the region is needed (the few integer helpers isl's
bounds use are ``#define``-d inside the block and ``#undef``-ed after it)::

    /* polyopt: optimized scop region (lines 16-25) */
    {
      #pragma omp parallel for schedule(static)
      for (int c0 = 0; c0 < ni; c0 += 1) {
        for (int c1 = 0; c1 < nj; c1 += 1)
          C[c0][c1] *= beta;
      ...
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl
from polyopt.backend_c.ast_expr import AstText
from polyopt.backend_c.ast_walk import AstWalker
from polyopt.backend_c.cexpr import BodyPrinter, float_text, lin
from polyopt.backend_c.code import fresh
from polyopt.backend_c.prelude import PREFETCH_MACRO
from polyopt.backend_c.region_copies import RegionCopies
from polyopt.backend_c.region_outline import RegionOutliner
from polyopt.backend_c.work import instance_estimate, parallel_min_instances, team_flag

from polyopt.model.aff import Lin
from polyopt.model.c_region import CRegion
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import PolyoptError
from polyopt.model.expr import Binary, Call, Cast, Expr, Literal, Load, Name
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import LoopMark, Node
from polyopt.model.scop import ArrayKind, ScalarKind, Scop, Statement

C_TYPES = {DType.INT32: "int", DType.INT64: "long long", DType.FLOAT32: "float",
           DType.FLOAT64: "double", DType.BOOL: "_Bool", DType.INT8: "signed char",
           DType.INT16: "short", DType.UINT8: "unsigned char", DType.UINT16: "unsigned short",
           DType.UINT32: "unsigned int", DType.UINT64: "unsigned long long",
           DType.FLOAT16: "_Float16"}
_HELPERS = {
    "polyopt_floord": "#define polyopt_floord(n, d) "
                      "(((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))",
    "polyopt_imin": "#define polyopt_imin(a, b) ((a) < (b) ? (a) : (b))",
    "polyopt_imax": "#define polyopt_imax(a, b) ((a) > (b) ? (a) : (b))",
    "polyopt_prefetch": PREFETCH_MACRO,
    "polyopt_int_start": "#define polyopt_int_start(x) ((x) > 2147483647LL ? 2147483647 : "
                         "(x) < -2147483647LL - 1 ? -2147483647 - 1 : (int)(x))",
}


_LONG_TYPES = ("long",)


def c_int(v: int) -> str:
    """An integer constant as plain C (``long long`` beyond ``int``'s range)."""
    return str(v) if -(2**31) < v < 2**31 else f"{v}LL"


def _bound_int(v: int) -> str:
    """An integer constant of a loop bound: ``long long`` from 2^15 on, so that its
    product with an int parameter (a large tile size's ``1073741827 * tsteps``) does
    not overflow ``int``."""
    return str(v) if -(2**15) < v < 2**15 else f"{v}LL"


def c_literal(value: int | float, t: ValueType) -> str:
    """A literal of type ``t`` in plain C, without polyopt's prelude."""
    if t.dtype.is_float:
        text = float_text(float(value), '__builtin_nan("")', "__builtin_inf()")
        if t.dtype is DType.FLOAT32:
            return f"{text}f" if "builtin" not in text else f"((float){text})"
        return f"((_Float16){text})" if t.dtype is DType.FLOAT16 else text
    v = int(value)
    if t.dtype.bits < 32 or t.dtype is DType.INT32:  # char, short: int constants, as C's
        text = c_int(v)
    else:
        text = f"{v}{'U' if t.dtype.is_unsigned else ''}{'' if t.dtype.bits == 32 else 'LL'}"
    return f"({text})" if v < 0 else text


def _implicit(source: DType, target: DType) -> bool:
    """No cast is printed: the same type, or char, short or _Bool to int, which C's integer
    promotion does by itself."""
    return source == target or (target is DType.INT32 and source.bits < 32 and not source.is_float)


class CBodyPrinter(BodyPrinter):
    """Statement bodies of a C region: the file's arrays and scalars, C's operators.

    ``env`` maps statement iterators to the C text of their value (the AST's loop
    counters), so ``C[i][j]`` prints as ``C[c0][c1]``.
    """

    def __init__(self, ranks: dict[str, int]) -> None:
        super().__init__({})
        self.ranks = ranks
        self.env: dict[str, str] = {}
        self.helpers: set[str] = set()  # polyopt_floord, where a subscript divides

    def index(self, ix: Lin) -> str:
        """A subscript, iterators replaced by their values: ``c0 - c1 - 1``."""
        parts: list[str] = []
        for atom, c in ix.terms:
            if isinstance(atom, str):
                text = self.env.get(atom, atom)
            else:
                text = lin(Lin(((atom, 1),)), self.env)
                self.helpers.add("polyopt_floord")
            if c != 1:  # an iterator's value may be `-1`: `-i` must not print `--1`
                text = _operand(text)
            parts.append(text if c == 1 else f"-{text}" if c == -1 else f"{c_int(c)} * {text}")
        if ix.const or not parts:
            parts.append(c_int(ix.const))
        return " + ".join(parts).replace("+ -", "- ")

    def load(self, array: str, indices: tuple[Lin, ...]) -> str:
        local = self.substitute.get((array, indices))
        if local is not None:
            return local
        if self.hoisted is None:
            row = self.rows.get((array, indices[:-1])) if self.rows else None
            if row is not None:
                return f"{row}[{self.index(indices[-1])}]"
            return array + "".join(f"[{self.index(ix)}]" for ix in indices)
        # in a register tile: each element read once per iteration, its subscripts in the
        # loop counters, simplified (the panel element A_pk[(8 * c4 + 3) / 8][k][3])
        if self.lin_env and all(v in self.lin_env for ix in indices for v in ix.names()):
            env, self.env = self.env, {}
            text = array + "".join(f"[{self.index(ix.substitute(self.lin_env))}]"
                                   for ix in indices)
            self.env = env
        else:
            text = array + "".join(f"[{self.index(ix)}]" for ix in indices)
        return self.hoisted.local(array, text)

    def _node(self, e: Expr, texts: dict[int, str]) -> str:
        if isinstance(e, Literal):
            return c_literal(e.value, e.type)
        if isinstance(e, Name):  # an iterator's value, as an operand (`-i` at i = -1)
            return _operand(self.env[e.name]) if e.name in self.env else e.name
        if isinstance(e, Cast):
            if _implicit(e.operand.type.dtype, e.type.dtype):
                return texts[id(e.operand)]
            return f"(({C_TYPES[e.type.dtype]}){texts[id(e.operand)]})"
        if isinstance(e, Call):
            return f"{e.fn}({', '.join(texts[id(a)] for a in e.args)})"
        return super()._node(e, texts)

    def _typed(self, e: Expr, text: str, t: ValueType) -> str:
        if _implicit(e.type.dtype, t.dtype):
            return text
        if isinstance(e, Literal):
            return c_literal(e.value, t)
        return f"(({C_TYPES[t.dtype]}){text})"


class RegionDialect:
    """A region's statements in the file's terms: ``A[i][j]``, named scalars, the
    iterators' own types."""

    # private copies of the arrays laid out as one block (region_copies.py)
    privatizes_arrays = True
    user_compiles = True
    ranges_rows = False  # a region cannot add the prelude's helpers to the user's file

    def __init__(self, region: CRegion, scop: Scop) -> None:
        self.region = region
        self.scop = scop
        self.body = CBodyPrinter({n: a.rank for n, a in scop.arrays.items()})
        self.text = AstText(_bound_int, wide_products=True)
        # int counters unless an iterator is long: with long ones gcc's SLP leaves the
        # packed micro-kernels scalar (2mm LARGE 15x -> 2.8x the original); a tile's
        # last counter value can then pass INT_MAX (tests/c_cases/open)
        wide = any(any(w in t.split() for w in _LONG_TYPES) for t in region.iterator_types.values())
        self.index_type = "long" if wide else "int"
        # arrays whose last subscript goes through a pointer (``double **A``, ``double
        # *A[N]``): their row pointers are read once before a simd loop (ast_walk.RowHoist)
        self.pointer_rows = frozenset(n for n, a in region.arrays.items()
                                      if len(a.dims) >= 2 and a.dims[-1] is None)

    def row_text(self, array: str, prefix: tuple[Lin, ...], env: dict[str, str]) -> str:
        """``A[c0]``: a row pointer, its subscripts' iterators given their values."""
        saved, self.body.env = self.body.env, env
        text = array + "".join(f"[{self.body.index(ix)}]" for ix in prefix)
        self.body.env = saved
        return text

    def element(self, target: str, indices: tuple[Lin, ...]) -> str:
        hoisted, self.body.hoisted = self.body.hoisted, None  # an element written: never hoisted
        text = self.body.load(target, indices)
        self.body.hoisted = hoisted
        return text

    def element_ctype(self, target: str) -> str:
        arr = self.region.arrays.get(target)
        if arr is not None:
            return arr.base
        if target in self.region.scalars:
            return self.region.scalars[target].base
        return C_TYPES[self.scop.element_type(target)]

    def prefetch(self, target: str, indices: tuple[Lin, ...]) -> str | None:
        """``polyopt_prefetch(C, (i) * (sizeof(C[0]) / ...) + (j), double);``: the flat
        index over the extents the array's type has, as ``sizeof`` gives them (a helper
        function does not see the variables a VLA was declared with, nor a number's
        macro: the file may be compiled with another ``-D``); None through a pointer or
        for a region's own buffer."""
        arr = self.region.arrays.get(target)
        if arr is None or len(arr.dims) != len(indices) or None in arr.dims[1:]:
            return None
        hoisted, self.body.hoisted = self.body.hoisted, None
        subs = [self.body.index(ix) for ix in indices]
        self.body.hoisted = hoisted
        flat = subs[0]
        for k, sub in enumerate(subs[1:], 1):
            extent = f"(long)(sizeof({target}{'[0]' * k}) / sizeof({target}{'[0]' * (k + 1)}))"
            flat = f"({flat}) * ({extent}) + ({sub})"
        return f"polyopt_prefetch({target}, {flat}, {arr.base});"

    def bind(self, var: str, value: str) -> str:
        return f"const {self.region.iterator_types.get(var, 'int')} {var} = {value};"

    def statement_line(self, stmt: Statement, values: list[str]) -> str | None:
        """``target = value;``, or ``target op= rhs;`` as the file wrote it."""
        self.body.env = dict(zip(stmt.iterators, values, strict=True))
        target = self.element(stmt.target, stmt.indices)
        rhs = _update_rhs(stmt)
        if rhs is not None:
            line = f"{target} {stmt.update_op}= {self.body.expr(rhs)};"
        else:
            line = f"{target} = {self.body.expr(stmt.value)};"
        self.body.substitute = {}
        self.body.env = {}
        return line

    def reduction_target(self, var: str) -> str:
        return var

    def may_reduce(self, mark: LoopMark, rename: dict[str, str]) -> bool:
        # OpenMP cannot reduce through a pointer: such a loop runs as written
        return not any(rename.get(var) is None and var in self.region.arrays
                       and not self.region.arrays[var].is_fixed for _, var in mark.reductions)


def _operand(text: str) -> str:
    """``text`` as an operand of unary minus or ``*``: a name or a number as it is,
    anything else (``-1``, ``c0 + 1``) in parentheses unless one pair holds it all."""
    if text.isidentifier() or text.isdigit():
        return text
    if text.startswith("("):
        depth = 0
        for k, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                if k == len(text) - 1:
                    return text
                break
    return f"({text})"


def _update_rhs(stmt: Statement) -> Expr | None:
    """The right-hand side when the statement reads ``target op= rhs``."""
    op = stmt.update_op
    if op is None:
        return None
    value = stmt.value
    while isinstance(value, Cast):
        value = value.operand
    if not isinstance(value, Binary) or value.op not in (op, "c" + op):
        return None
    lhs = value.lhs
    while isinstance(lhs, Cast):
        lhs = lhs.operand
    if isinstance(lhs, Load) and lhs.array == stmt.target and lhs.indices == stmt.indices:
        return value.rhs
    if isinstance(lhs, Name) and lhs.name == stmt.target and not stmt.indices:
        return value.rhs
    return None


@dataclass(frozen=True)
class RegionCode:
    """What replaces a region: its block, and the functions (its micro-kernels, see
    :mod:`polyopt.backend_c.region_outline`) to insert before the region's function."""

    block: str
    helpers: str = ""


def emit_region(region: CRegion, tree: Node, scop: Scop | None = None,
                openmp: bool = True) -> str:
    """The C block that replaces ``region`` (from its ``#pragma scop`` line to its
    ``#pragma endscop`` line), lines indented like the pragma, ending with a newline;
    every statement inside it (no helper functions).

    ``scop`` is the scop ``tree`` schedules (a plan's, which transformations may have
    given new statements and local scalars); by default the region's own.
    """
    return emit_region_code(region, tree, scop, openmp, outline=False).block


def emit_region_code(region: CRegion, tree: Node, scop: Scop | None = None,
                     openmp: bool = True, outline: bool = True) -> RegionCode:
    """:func:`emit_region`, with the register tiles' loops in helper functions where
    ``outline`` (gcc vectorizes them badly inside the user's function)."""
    scop = region.scop if scop is None else scop
    extra = sorted(set(scop.arrays) - set(region.arrays) - set(region.scalars))
    unsupported = [a for a in extra if scop.arrays[a].kind is not ArrayKind.TEMPORARY]
    if unsupported:
        raise PolyoptError(f"{region.label}: the schedule introduces arrays "
                           f"({', '.join(unsupported)}), which C regions do not support yet")
    dialect = RegionDialect(region, scop)
    taken = set(region.names_in_file) | set(scop.params) | set(scop.arrays)
    taken |= set(scop.scalars) | set(region.iterator_types)
    # the block is printed in the file's spelling (user_text): a new name must not be a
    # user's name either (a parameter `polyopt_n_s` is `polyopt_u11_polyopt_n_s` here)
    taken |= {user_text(t, whole_names=True) for t in taken}
    threshold = parallel_min_instances()  # 0: every run on a team, no flag
    team = fresh("polyopt_team", taken) if openmp and threshold else None
    if team is not None:
        taken.add(team)
    walker = AstWalker(scop, openmp, dialect, taken)
    walker.pragmas.team = team
    build = isl.AstBuild.from_context(scop.context)
    walker.use_copies(RegionCopies(walker.code, region, walker.pragmas,
                                   lambda pa: dialect.text(build.expr_from_pw_aff(pa)), taken))
    outliner = None
    if outline:
        ctypes = {n: region.scalars[n].base if n in region.scalars else C_TYPES[s.type.dtype]
                  for n, s in scop.scalars.items()}
        ctypes |= {n: C_TYPES[a.dtype] for n, a in scop.arrays.items() if n not in ctypes}
        outliner = RegionOutliner(
            region, scop, walker.code, walker.pragmas, walker.counters, dialect.index_type,
            ctypes,
            lambda a: [_at_least(dialect.body.index(d), 1) for d in scop.arrays[a].shape[1:]],
            _HELPERS, set(taken))
        walker.use_outliner(outliner)
    if scop.statements:
        walker.print_tree(tree)
    body = walker.code.lines
    allocate, free = heap_buffers(scop, extra, dialect)
    outer = [f"{s.base} {s.name};" for s in region.scalars.values()
             if s.declared_in_region and s.top_level]
    inner = [f"  {s.base} {s.name};" for s in region.scalars.values()
             if s.declared_in_region and not s.top_level]
    inner += [f"  {C_TYPES[v.type.dtype]} {n};" for n, v in scop.scalars.items()
              if n not in region.scalars and v.kind is ScalarKind.LOCAL]
    team_line = []
    if walker.pragmas.team_used:  # printed after the helper macros, which it may call
        team_line.append(f"  const int {team} = "
                         f"{team_flag(team_work(region, dialect.text), threshold)};")
    called = dialect.text.helpers | dialect.body.helpers  # or by a line printed in place:
    used = [name for name in _HELPERS  # a micro-kernel no helper could hold
            if name in called or any(f"{name}(" in line for line in body)]
    lines = [f"/* polyopt: optimized scop region (lines {region.start_line}-{region.end_line}) */",
             *outer, "{", *inner]
    lines += [f"  {_HELPERS[name]}" for name in used]
    declared = [*region.outside_locals, *(s.name for s in region.scalars.values()
                                          if s.declared_in_region)]
    if declared:  # (the block's bindings may shadow them: `const int i = c0;`)
        lines.append("  " + " ".join(f"(void){n};" for n in declared)
                     + "  /* named by the loops as written */")
    lines += team_line + allocate + body + free
    lines += [f"  #undef {name}" for name in used]
    lines.append("}")
    if region.counters_after:
        lines.append("/* polyopt: the loop counters used after the region, stepped to the "
                     "values its loops leave them */")
        lines += region.counters_after.rstrip("\n").split("\n")
    block = "".join(f"{region.indent}{x}\n" if x else "\n" for x in lines)
    return RegionCode(block, "".join(h + "\n" for h in outliner.helpers) if outliner else "")


def team_work(region: CRegion, text: AstText) -> str | None:
    """The region's statement instances (as written) in C over its sizes, which decide
    whether a run is worth a thread team; None where isl cannot bound them or the count
    would name an extent the file does not give (a parameter of the model only)."""
    work = instance_estimate(region.scop, text)
    if work is None or any(re.search(rf"\b{p}\b", work) for p in region.extent_params):
        return None
    return work


def heap_buffers(scop: Scop, arrays: list[str],
                 dialect: RegionDialect) -> tuple[list[str], list[str]]:
    """Declarations and frees of the temporary arrays a schedule added (packed panels),
    scoped to the region's block: on the heap (a panel copy of a whole operand is too
    large for the stack), as pointers to variable-length rows so that the statements
    index them ``A_pk[ip][k][il]`` like the file's own arrays.  ``__builtin_malloc``
    needs no header.  The size is computed in ``size_t`` (``sizeof`` first), a
    negative extent counts as 0 (the loops then do not run; a row type keeps at least
    1, as C requires), and one element more keeps ``malloc(0)`` from returning NULL::

        double (*A_pk)[(nk > 0 ? nk : 1)][8] = __builtin_malloc(sizeof(double)
            * (((ni + 7) / 8) > 0 ? ...) * (nk > 0 ? nk : 0) * 8 + sizeof(double));
        if (!A_pk) __builtin_abort();
        ...
        __builtin_free(A_pk);
    """
    allocate: list[str] = []
    free: list[str] = []
    for name in arrays:
        ctype = C_TYPES[scop.arrays[name].dtype]
        dims = [dialect.body.index(d) for d in scop.arrays[name].shape]
        rows = "".join(f"[{_at_least(d, 1)}]" for d in dims[1:])
        size = "".join(f" * {_at_least(d, 0)}" for d in dims)
        declared = f"(*{name}){rows}" if rows else f"*{name}"
        allocate += [f"  {ctype} {declared} = __builtin_malloc(sizeof({ctype}){size} + "
                     f"sizeof({ctype}));",
                     f"  if (!{name}) __builtin_abort();"]
        free.append(f"  __builtin_free({name});")
    return allocate, free


def _at_least(extent: str, low: int) -> str:
    """``extent``, or ``low`` where it is smaller (a constant stays as it is)."""
    if extent.lstrip("-").isdigit():
        return str(max(int(extent), low))
    return f"(({extent}) > {low} ? ({extent}) : {low})"


def size_guards(region: CRegion) -> str:
    """Preprocessor checks that the macros the region's C was written for have the
    values it was written with: the C holds ``c0 <= 10`` for ``t <= TSTEPS``, so a build
    with another ``-DTSTEPS`` stops with an error saying so instead of running 10 steps.

        #if (TSTEPS) != (10)
        #error "polyopt opt wrote kernel_heat_3d() region 1 (lines 21-44) for TSTEPS = 10: ..."
        #endif

    ``#if`` compares integers only: a float macro (``#define SCALE 0.5``) is checked by
    a static assertion, which GNU C compilers evaluate on floats (``__extension__``:
    not an integer constant expression to ISO C, and -pedantic would say so); and every
    macro's type, which ``#if`` does not see::

        #if defined(__GNUC__) && !defined(__cplusplus)
        __extension__ _Static_assert((SCALE) == (0.5), "polyopt opt wrote ... for SCALE = 0.5: ...");
        __extension__ _Static_assert(__builtin_types_compatible_p(__typeof__(TSTEPS), __typeof__(10)), "...");
        __extension__ _Static_assert(__builtin_types_compatible_p(DATA_TYPE, double), "...");
        #endif
    """
    def why(name: str, value: str) -> str:
        return (f"polyopt opt wrote {region.label} for {name} = {value}: compile with that "
                f"value, or run polyopt opt again with -D{name}=...")

    out = []
    for name, value in region.size_macros:
        out += [f"#if ({name}) != ({value})", f"#error \"{why(name, value)}\"", "#endif"]
    if region.size_macros or region.float_macros or region.type_macros:
        # the value's type too: `i - K` is unsigned with -DK=3u, `F[i] + SCALE` float
        # with -DSCALE=0.5f, where the C written computes with `3` and `0.5`
        out.append("#if defined(__GNUC__) && !defined(__cplusplus)")
        out += [f"__extension__ _Static_assert(({name}) == ({value}), \"{why(name, value)}\");"
                for name, value in region.float_macros]
        out += [f"__extension__ _Static_assert(__builtin_types_compatible_p(__typeof__({name}), "
                f"__typeof__({value})), \"{why(name, value + ' (of that type)')}\");"
                for name, value in (*region.size_macros, *region.float_macros)]
        # a type macro (`#define DATA_TYPE float`) is written as its type
        out += [f"__extension__ _Static_assert(__builtin_types_compatible_p({name}, {value}), "
                f"\"{why(name, value)}\");" for name, value in region.type_macros]
        out.append("#endif")
    return "".join(line + "\n" for line in out)


def replace_regions(text: str, blocks: list[tuple[CRegion, str]],
                    helpers: Sequence[tuple[CRegion, str]] = ()) -> str:
    """``text`` with each region's lines (pragmas included) replaced by its block, and
    each region's helper functions inserted before the first line of its function;
    every other byte is unchanged."""
    lines = text.splitlines(keepends=True)
    edits = [(r.start_line, r.end_line, block) for r, block in blocks]
    edits += [(r.function_line, r.function_line - 1, code) for r, code in helpers if code]
    out: list[str] = []
    cursor = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        out += lines[cursor:start - 1]
        newline = _newline_of(lines[max(end, start) - 1])
        out.append(new.replace("\n", newline) if newline != "\n" else new)
        cursor = max(cursor, end)
    out += lines[cursor:]
    return "".join(out)


def _newline_of(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n"
