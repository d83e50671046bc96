"""One ``#pragma scop`` region of a C function as a :class:`~polyopt.model.scop.Scop`,
wrapped in a :class:`~polyopt.model.c_region.CRegion` that keeps what writing the
region back needs (C types of its names, declared extents, the original text).

Names are classified by :mod:`.c_scope`, statements walked by :mod:`.c_statements`,
and statements and loops built by the scop builder the Python frontend uses too
(:mod:`.scop_builder`): each assignment is a statement with its domain, accesses and
typed body; loops become bands of the original schedule tree.  An array extent C
does not give (a pointer, ``A[]``) becomes a parameter of its own::

    void f(int n, double *p, double A[][20])    // p: [p_extent0], A: [A_extent0][20]
"""

from __future__ import annotations

from polyopt.frontends.c_affine import AffineConverter, text
from polyopt.frontends.c_counters import skeleton
from polyopt.frontends.c_scope import RegionScope
from polyopt.frontends.c_source import RegionSource
from polyopt.frontends.c_statements import RegionWalker
from polyopt.frontends.c_types import CType, Symbol
from polyopt.frontends.refusal import NotAffine
from polyopt.frontends.scop_builder import Place, ScopBuilder, sequence
from pycparser import c_ast

from polyopt.model import isl_text
from polyopt.model.aff import TRUE, Lin
from polyopt.model.c_region import CArray, CRegion, CScalar
from polyopt.model.dtypes import DType, ValueType
from polyopt.model.errors import Problem
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Array, Scalar, ScalarKind, Scop


def build_region(src: RegionSource) -> tuple[CRegion | None, list[Problem]]:
    """The region's model, or None and every problem found in it."""
    scope = RegionScope(src)
    scop = ScopBuilder()
    problems: list[Problem] = []
    nodes = RegionWalker(scope, scop, problems).block(list(src.items), Place())
    if problems:
        return None, problems
    return _assemble(scope, scop, nodes), []


def _assemble(scope: RegionScope, scop: ScopBuilder, nodes: list[Node]) -> CRegion:
    src = scope.src
    extent_params: list[str] = []
    arrays_c: dict[str, CArray] = {}
    arrays: dict[str, Array] = {}
    for n, sym in scope.arrays.items():
        shape, dims = _shape(scope, n, sym, extent_params)
        assert sym.type.dtype is not None
        arrays[n] = Array(n, sym.type.dtype, shape)
        arrays_c[n] = CArray(n, sym.type.base, dims, sym.scope, sym.type.const)
    scalars: dict[str, Scalar] = {}
    scalars_c: dict[str, CScalar] = {}
    for n, t in scope.locals.items():
        assert t.dtype is not None
        live = scope.is_live(n)
        in_region = n in scope.names.decls
        scalars_c[n] = CScalar(n, t.base, True, live, in_region, n in scope.names.top_level)
        if live:  # its value flows in or out: a zero-dimensional array, never privatized
            arrays[n] = Array(n, t.dtype, ())
        else:
            scalars[n] = Scalar(n, ValueType(t.dtype), ScalarKind.LOCAL)
    for n, rt in scope.readonly.items():
        if n in scope.locals:
            continue
        dtype = rt.dtype if rt is not None and rt.dtype is not None else DType.INT32
        scalars[n] = Scalar(n, ValueType(dtype), ScalarKind.ARGUMENT)
        scalars_c[n] = CScalar(n, rt.base if rt is not None else "int", False, False, False)
    params = tuple(scope.params)
    model = Scop(
        name=src.function.decl.name, filename=src.filename, params=params,
        context=isl_text.make_param_set(params, TRUE), arrays=arrays, scalars=scalars,
        statements=scop.statements(params, scope.locals), loops=dict(scop.loops),
        schedule=sequence(nodes),
    )
    iter_types = {n: (scope.iterator_type(n) or CType("int", (), DType.INT32)).base
                  for n in scope.names.iterators}
    line = src.lines[src.start_line - 1]
    counters = [n for n, t in scope.names.iterators.items() if t is None and scope.is_live(n)]
    steps = skeleton(tuple(src.items), counters) if counters else None
    return CRegion(
        scop=model, function=src.function.decl.name, index=src.index,
        start_line=src.start_line, end_line=src.end_line,
        indent=line[: len(line) - len(line.lstrip())], iterator_types=iter_types,
        arrays=arrays_c, scalars=scalars_c, params=dict(scope.params),
        original=text(c_ast.Compound(list(src.items))),
        names_in_file=src.names_in_file, typedefs=src.typedefs,
        extent_params=tuple(extent_params), function_line=_definition_start(src),
        function_params=_parameter_names(src.function),
        counters_after=text(steps) if steps is not None else "",
        outside_locals=_outside_locals(scope),
    )


def _outside_locals(scope: RegionScope) -> tuple[str, ...]:
    """The function's locals, declared before the region, that the region names."""
    named = {*scope.names.iterators, *scope.locals, *scope.readonly}
    return tuple(sorted(n for n in named if n not in scope.names.decls and (
        sym := scope.src.scope.get(n)) is not None and sym.scope == "local"))


def _definition_start(src: RegionSource) -> int:
    """The first line of the region's function definition (``static void`` may stand on a
    line of its own above the name): lines are taken back from the declarator's while
    they continue it (not blank, no directive, not the end of a declaration, a comment
    or a block).  0 when the position is unknown."""
    coord = src.function.decl.coord
    if coord is None or not 0 < coord.line <= len(src.lines):
        return 0
    line = int(coord.line)
    while line > 1:
        above = src.lines[line - 2].strip()
        if not above or above.startswith("#") or above.endswith((";", "}", "{", "*/")) \
                or above.startswith("//"):
            break
        line -= 1
    return line


def _parameter_names(fn: c_ast.FuncDef) -> tuple[str, ...]:
    args = getattr(fn.decl.type, "args", None)
    params = getattr(args, "params", None) or []
    return tuple(p.name for p in params if getattr(p, "name", None))


def _shape(scope: RegionScope, name: str, sym: Symbol,
           extent_params: list[str]) -> tuple[tuple[Lin, ...], tuple[str | None, ...]]:
    """Extents as affine expressions (a fresh parameter, added to ``extent_params``,
    where C gives none) and as C text (None where C gives none)."""
    shape: list[Lin] = []
    dims: list[str | None] = []
    for k, dim in enumerate(sym.type.dims):
        extent: Lin | None = None
        declared = dim if dim is not None and not sym.type.pointer_levels[k] else None
        if declared is not None:
            try:
                a = AffineConverter(lambda node: scope.param(node.name, None)).aff(declared)
                extent = a if isinstance(a, Lin) else None
            except NotAffine:
                extent = None
        dims.append(text(declared) if declared is not None else None)
        if extent is None:
            extra = f"{name}_extent{k}"
            while extra in scope.src.names_in_file or extra in scope.params:
                extra += "_"
            scope.params[extra] = "long"
            extent_params.append(extra)
            extent = Lin.var(extra)
        shape.append(extent)
    return tuple(shape), tuple(dims)
