"""The Python frontend: a function of loops over NumPy arrays becomes a :class:`Scop`.

The accepted language is documented in the README ("What polyopt accepts").
Everything else is reported, all at once, as :class:`polyopt.UnsupportedError`
pointing at the construct.

The function is converted in passes until the types of its local scalars settle:
a scalar's type is the join of every value assigned to it, and a read before a
later, wider assignment must already see the wider type::

    t = 0          # pass 1: t is int; pass 2: t is float (joined with `t = t + A[i]`)
    for i in range(n):
        t = t + A[i]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import islpy as isl
from polyopt.frontends.python_arguments import check_argument_kinds, declare_arguments
from polyopt.frontends.python_array_shapes import Key, Unified, size_checks, solve
from polyopt.frontends.python_environment import Environment
from polyopt.frontends.python_names import renamed_signature, renamed_source, renaming
from polyopt.frontends.python_scope import FunctionScope
from polyopt.frontends.python_source import FunctionSource, function_source
from polyopt.frontends.python_statements import StatementWalker
from polyopt.frontends.python_symbols import WIDE_LOCAL, FunctionFacts, Symbols
from polyopt.frontends.scop_builder import Place, ScopBuilder, sequence

from polyopt.model import isl_text
from polyopt.model.aff import Cmp, Lin, conj
from polyopt.model.dtypes import ValueType
from polyopt.model.errors import ArgumentTypeError, Problem, UnsupportedError
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Array, Requirement, Scalar, ScalarKind, Scop, Statement
from polyopt.model.signature import Signature

_INFERRED = (" (with argument types inferred from the code, as no call or signature gave "
             "them: a subscripted name is a float64 array of the rank subscripted, another "
             "name a number; call the kernel first, or give it a signature: the "
             "polyopt command's --signature)")

#: words of a refusal that argument types may cause (`A[i]` of a 1-D A, a float bound)
_TYPED = re.compile(r"\b(type|dtype|float|int|integer|bool|array|scalar|number|dimension|rank)s?\b")

#: passes before the local scalar types are taken as they are (each pass can only widen)
_TYPE_PASSES = 6


def parse_function(fn: object, signature: Signature | None = None) -> Scop:
    """The polyhedral model of ``fn`` for ``signature`` (inferred from use when None)."""
    src = function_source(fn)
    # names isl or C cannot take are renamed; messages spell them as the user did
    renames = renaming(src)
    src = renamed_source(src, renames)
    signature = renamed_signature(signature, renames)
    if signature is not None:
        try:
            check_argument_kinds(src, signature)
        except TypeError as exc:
            raise ArgumentTypeError(user_text(str(exc))) from None
    env = Environment.of(fn)
    env.check_builtins(src)
    facts = FunctionFacts.of(src, env)
    local_types: dict[str, ValueType] = {}
    unified: dict[Key, Unified] = {}
    python_ints: frozenset[str] = frozenset()
    for _ in range(_TYPE_PASSES):
        try:
            attempt = _convert(facts, signature, local_types, unified, python_ints)
        except RecursionError:
            raise _too_deep(src) from None
        if (attempt.local_types == local_types and attempt.unified == unified
                and attempt.python_ints <= python_ints):
            break
        local_types, unified = attempt.local_types, attempt.unified
        # once: a pass that types the local a narrow int reads `s1 + m` as one, and would
        # drop it, but CPython's `s1 = 0; s1 += m` holds the Python int until a narrow
        # int is assigned (fuzz 3803, program 52)
        python_ints = python_ints | attempt.python_ints
    if not attempt.problems:
        attempt = _path_types(facts, signature, attempt, unified, python_ints)
    if attempt.problems:
        problems = sorted(attempt.problems, key=lambda p: (p.location.line, p.location.col))
        if signature is None and _TYPED.search(problems[0].reason):
            # the inferred types may be what is wrong, not the code (not for a `while`
            # loop's refusal, which no signature changes: hostile session 48b, 07)
            problems[0] = replace(problems[0], reason=problems[0].reason + _INFERRED)
        raise UnsupportedError(problems)
    assert attempt.scop is not None
    return attempt.scop


def _path_types(facts: FunctionFacts, signature: Signature | None, attempt: _Attempt,
                unified: Mapping[Key, Unified], python_ints: frozenset[str]) -> _Attempt:
    """``attempt``, or its problems where a local's value depends on the path taken.

    A local has one type, the join of the values assigned to it; one that is assigned a
    Python scalar and NumPy values (``s = 1``, then ``s -= B64[i]`` and ``s -= A8[i]``
    in the two branches of an ``if``) holds the Python scalar until a NumPy value is
    assigned, and CPython computes with it then: ``s - A8[i]`` is a uint8 where the
    ``else`` branch runs first, an int64 after the other.  Each assignment is converted
    again with such locals typed as their Python scalars; a NumPy type other than the
    local's own there means two types, refused as for two assignments in a row
    (hostile session 41a, findings 06 and 07)."""
    weak: dict[str, ValueType] = {}
    for target, vtype in attempt.assigned:
        if vtype.weak:
            weak.setdefault(target.id, vtype)
    # the user's int locals: an accumulator of array code (`np.sum(a32)`) starts at 0 on
    # purpose, and is typed as NumPy's sum is.  Not floats: a float64 where CPython
    # computes a float32 on some path is as precise or more (documented, README)
    probed = {n: t for n, t in weak.items() if n in facts.local_names and t.dtype.is_int
              and n in attempt.local_types and not attempt.local_types[n].weak}
    if not probed:
        return attempt
    probe = _convert(facts, signature, {**attempt.local_types, **probed}, unified, python_ints)
    # the refusal of two types in a row, met in the probe (`s -= A8[i]` after `s = 1`)
    problems = [p for p in probe.problems
                if any(p.construct.startswith(f"`{n}` holding ") for n in probed)]
    seen = {p.construct.split("`")[1] for p in problems}
    for target, vtype in probe.assigned:
        name = target.id
        want = attempt.local_types.get(name)
        if name not in probed or name in seen or vtype.weak or want is None or vtype == want:
            continue
        seen.add(name)
        problems.append(Problem(
            facts.src.location(target), f"`{name}`",
            f"is compiled as one {want.dtype.value} local, but CPython's holds a "
            f"{vtype.dtype.value} here where it still held the Python int assigned before: "
            "CPython computes on each value in its own type; convert the values to one "
            f"type (`{name} = np.{want.dtype.value}(...)`) or use two locals"))
    if not problems:
        return attempt
    return replace(attempt, scop=None, problems=tuple(problems))


@dataclass(frozen=True)
class _Attempt:
    """One pass: the scop (None when there are problems), the local scalar types and
    the array dimensions unified with others (for the next pass)."""

    scop: Scop | None
    problems: tuple[Problem, ...]
    local_types: dict[str, ValueType]
    unified: dict[Key, Unified]
    python_ints: frozenset[str]  # locals assigned a Python int
    assigned: tuple[tuple[ast.Name, ValueType], ...] = ()  # each local's assignments


def _convert(facts: FunctionFacts, signature: Signature | None,
             prior_types: Mapping[str, ValueType], unified: Mapping[Key, Unified],
             python_ints: frozenset[str]) -> _Attempt:
    symbols = Symbols(facts, dict(prior_types), unified, python_ints)
    problems = declare_arguments(symbols, signature)
    scop = ScopBuilder()
    walker = StatementWalker(FunctionScope(symbols), scop, problems)
    nodes = walker.block(list(facts.src.tree.body), Place(), top=True)
    solved = solve(symbols.shapes.equations, unified, symbols.param_sources, _auto(symbols))
    if problems:
        return _Attempt(None, tuple(problems), symbols.local_types, solved,
                        frozenset(symbols.python_ints), tuple(symbols.assigned))
    return _Attempt(_assemble(symbols, scop, [*walker.bindings.fills, *nodes]), (),
                    symbols.local_types, solved, frozenset(symbols.python_ints),
                    tuple(symbols.assigned))


def _assemble(symbols: Symbols, scop: ScopBuilder, nodes: list[Node]) -> Scop:
    """The Scop of a pass without problems; allocation fills run first."""
    arrays = {
        n: Array(n, a.dtype, tuple(symbols.extent(n, d) for d in range(a.rank)), a.kind,
                 clamped=a.clamped, origin=a.origin)
        for n, a in symbols.arrays.items()
    }
    params = tuple(symbols.params)
    context = isl_text.make_param_set(
        params, conj(*(Cmp(">=", Lin.var(p), Lin.constant(0)) for p in symbols.param_sources))
    )
    scalars = {n: Scalar(n, t, ScalarKind.ARGUMENT) for n, t in symbols.scalar_args.items()}
    for n, t in symbols.local_types.items():
        stored = WIDE_LOCAL if symbols.held_wide(n) else symbols.prior_types.get(n, t)
        scalars[n] = Scalar(n, stored, ScalarKind.LOCAL)
    taken = set(symbols.params)
    check_names = {k: symbols.facts.fresh(f"{k[0]}_shape{k[1]}", taken) for k in symbols.unified}
    checks = size_checks(symbols.unified, symbols.extent, symbols.shapes.equations, check_names,
                         _auto(symbols))
    src = symbols.facts.src
    statements = scop.statements(params, symbols.local_types)
    return Scop(
        name=src.tree.name, filename=src.filename, params=params, context=context,
        arrays=arrays, scalars=scalars, statements=statements,
        loops=dict(scop.loops), schedule=sequence(nodes), returns=symbols.returns,
        arg_order=symbols.arg_order, param_sources=dict(symbols.param_sources),
        size_checks=checks, check_sources={n: k for k, n in check_names.items()},
        requirements=(*scop.requirements(params), *_unbound_return(symbols, statements, context)),
    )


def _unbound_return(symbols: Symbols, statements: tuple[Statement, ...],
                    context: isl.Set) -> tuple[Requirement, ...]:
    """A returned local that only statements in loops or branches assign: CPython raises
    ``UnboundLocalError`` where none of them runs (``for i in range(n): t = x[i]``, then
    ``return t``, at ``n = 0``), and so does the call, for those sizes."""
    ret = symbols.returns
    if ret is None or ret.is_array or ret.name not in symbols.local_types:
        return ()
    runs = isl.Set.empty(context.get_space())
    for s in statements:
        if s.target == ret.name:
            runs = runs.union(s.domain.params())
    unbound = context.subtract(runs)
    if unbound.is_empty():
        return ()
    text = f"cannot access local variable '{ret.name}' where it is not associated with a value"
    return (Requirement(unbound, text, "UnboundLocalError"),)


def _auto(symbols: Symbols) -> dict[str, Key]:
    """The size parameters polyopt named (``A_shape1``), not the user (``n, m = A.shape``)."""
    return {n: k for n, k in symbols.param_sources.items() if n.startswith(f"{k[0]}_shape{k[1]}")}


def _too_deep(src: FunctionSource) -> UnsupportedError:
    """The clean refusal of an expression nested beyond what the converter recurses
    through, at the statement holding the deepest one."""
    best: tuple[int, ast.AST] = (0, src.tree)
    stack: list[tuple[ast.AST, int, ast.AST]] = [(src.tree, 0, src.tree)]
    while stack:
        node, depth, stmt = stack.pop()
        if isinstance(node, ast.stmt):
            stmt, depth = node, 0
        if depth > best[0]:
            best = (depth, stmt)
        stack.extend((c, depth + 1, stmt) for c in ast.iter_child_nodes(node))
    return UnsupportedError([src.problem(
        best[1], "expression", f"is nested {best[0]} levels deep, more than polyopt handles "
        "(split it into several statements)")])


__all__ = ["parse_function"]
