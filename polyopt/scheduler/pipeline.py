"""The compiler pipeline, shared by ``@polyopt.jit``, schedules and the ``polyopt`` command:
frontend model → dependences → schedule (automatic or user steps) → loop marks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypedDict

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.model.errors import (
    Problem,
    SourceLocation,
    TooComplexError,
    UnsupportedError,
    warn_user,
)
from polyopt.model.expr import Call, walk
from polyopt.model.isl_budget import ANALYSIS_OPS, MARKING_OPS, SCHEDULING_OPS, budget
from polyopt.model.options import Options
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Scop
from polyopt.scheduler import applied, auto
from polyopt.scheduler.applied import Applied, Record
from polyopt.scheduler.steps import StartAuto, Step, prange_requests, replay
from polyopt.transforms import mark_parallel
from polyopt.transforms.contract import contract


@dataclass(frozen=True, eq=False)
class Plan:
    """A scop, its dependences, and the schedule code generation will follow."""

    scop: Scop  # the program code generation sees (temporaries may be contracted)
    deps: Dependences
    tree: Node
    source: Scop  # the program as written, for reports
    source_deps: Dependences
    notes: tuple[str, ...] = ()  # what was given up, and why (isl over its budget)
    #: what was done, phase by phase, the loop marks last (:mod:`polyopt.scheduler.applied`)
    applied: tuple[Applied, ...] = ()
    origin: str = "source"  # "auto", "user" (steps), or "source" (the source order)


class _Marks(TypedDict):
    """The options that :func:`polyopt.transforms.mark_parallel.mark` takes."""

    parallel: bool
    vectorize: bool
    licm: bool
    strict_fp: bool
    array_copies: bool
    copyable: frozenset[str]


def plan(scop: Scop, options: Options, steps: tuple[Step, ...] | None = None,
         copyable: frozenset[str] = frozenset()) -> Plan:
    """Analyse ``scop`` and choose its schedule: the user's ``steps`` when given
    (each checked), else the automatic scheduler (or the source order when
    ``options.auto`` is off).  ``copyable``: the arrays the code may copy per thread
    when ``options.array_copies`` is off (a C region's, :attr:`CRegion.copyable`).

    Every isl computation runs under an operations budget.  Past the analysis's,
    the call fails with :class:`TooComplexError` (nothing is known of the program);
    past any later one, the plan falls back to the source order with its loop
    marks, and at worst to the source order run sequentially, which is always legal:
    a RuntimeWarning and ``Plan.notes`` say so.
    """
    if options.strict_fp:
        _refuse_inexact_math(scop)
    with budget(ANALYSIS_OPS, f"the dependence analysis of {scop.name}()"):
        deps = analyze(scop)
        # the value-based part is lazy and computed per variable: only the local
        # scalars' is needed here; later phases ask for theirs under their own budget
        deps.uninitialized_reads  # noqa: B018
    _refuse_uninitialized(scop, deps)
    requested = prange_requests(scop)
    if requested:  # checked as the user's own `.parallelize()` steps are
        steps = (*(steps or ()), *requested)
    marks = _Marks(parallel=options.parallel, vectorize=options.vectorize, licm=options.licm,
                   strict_fp=options.strict_fp, array_copies=options.array_copies,
                   copyable=copyable)
    try:
        if steps is not None:
            return _user_plan(scop, deps, steps, options, marks)
        if options.auto:
            return _auto_plan(scop, deps, options, marks)
    except TooComplexError as exc:
        return _source_plan(scop, deps, marks, [_note(exc)])
    return _source_plan(scop, deps, marks, [])


def _user_plan(source: Scop, source_deps: Dependences, steps: tuple[Step, ...],
               options: Options, marks: _Marks) -> Plan:
    record = Record()
    scop, deps, base = source, source_deps, None
    if steps and isinstance(steps[0], StartAuto):  # polyopt.schedule(fn, start="auto")
        scop, deps, base = automatic(source, source_deps, options, record)
        steps = steps[1:]
    with budget(SCHEDULING_OPS, f"the schedule of {scop.name}()"):
        at, tree, req = replay(scop, deps, steps, options.strict_fp, base)
        scop, deps = at.scop, at.deps
        tree = mark_parallel.mark(
            scop, deps, tree, **marks,
            only_parallel=req.parallel if "parallel" in req.used else None,
            only_simd=req.simd if "simd" in req.used else None,
            only_licm=req.licm if "licm" in req.used else None,
        )
    for step in steps:
        record.add(Applied("user step", str(step).lstrip("."), steps=(step,)))
    return Plan(scop, deps, tree, source, source_deps, (),
                (*record.applied(), *applied.marks(scop, tree)), "user")


def automatic(source: Scop, source_deps: Dependences, options: Options,
               record: Record) -> tuple[Scop, Dependences, Node]:
    """The automatic schedule with its temporaries contracted, before the loop marks."""
    with budget(SCHEDULING_OPS, f"scheduling {source.name}()"):
        scop, deps, tree = auto.schedule(source, source_deps, options, record)
    with budget(MARKING_OPS, f"marking the loops of {source.name}()"):
        if options.contract:
            contracted = contract(scop, deps, tree, row_buffers=options.array_copies)
            if contracted is not scop:
                record.note("contraction", (scop, tree), (contracted, contracted.schedule))
                # the contracted program's source order is `tree`: analyse it afresh
                scop, deps = contracted, analyze(contracted, earlier=deps)
                tree = contracted.schedule
    return scop, deps, tree


def _auto_plan(source: Scop, source_deps: Dependences, options: Options, marks: _Marks) -> Plan:
    record = Record()
    scop, deps, tree = automatic(source, source_deps, options, record)
    with budget(MARKING_OPS, f"marking the loops of {source.name}()"):
        tree = mark_parallel.mark(scop, deps, tree, **marks)
    return Plan(scop, deps, tree, source, source_deps, (),
                (*record.applied(), *applied.marks(scop, tree)), "auto")


def _source_plan(scop: Scop, deps: Dependences, marks: _Marks, notes: list[str]) -> Plan:
    """The source order with its loop marks; without them when even those are over budget."""
    what = "keeping the source loop order"
    try:
        with budget(MARKING_OPS, f"marking the loops of {scop.name}()"):
            tree = mark_parallel.mark(scop, deps, scop.schedule, **marks)
    except TooComplexError as exc:
        notes.append(_note(exc))
        tree, what = scop.schedule, "running the source loop order sequentially"
    if notes:
        notes[-1] += f"; {what}"
        warn_user("polyopt: " + "; ".join(notes))
    return Plan(scop, deps, tree, scop, deps, tuple(notes), tuple(applied.marks(scop, tree)))


def source_order(plan: Plan, exc: TooComplexError) -> Plan:
    """``plan``'s program in its source order, run sequentially (always legal, and its
    loop code quick to generate), for when generating ``plan``'s loop code went past
    isl's budget (``exc``); a RuntimeWarning and the notes say so."""
    note = f"{_note(exc)}; running the source loop order sequentially"
    warn_user(f"polyopt: {note}")
    src = plan.source
    return Plan(src, plan.source_deps, src.schedule, src, plan.source_deps,
                (*plan.notes, note))


def _note(exc: TooComplexError) -> str:
    return str(exc).split(". Simplify")[0]


def _refuse_inexact_math(scop: Scop) -> None:
    """strict_fp promises CPython's bits, and ``math.lgamma`` (a Python float, weak) is
    CPython's own approximation, not the C library's: they differ by up to thousands of
    ulps near its zeros.  (A C region's ``lgamma`` is the C library's, as written.)"""
    problems = [
        Problem(_at_word(s.location, "lgamma"), "`math.lgamma` under strict_fp",
                "CPython computes it with its own approximation, not the C library's "
                "lgamma, so its bits cannot be promised; compile without strict_fp to "
                "call the C library's (within about 1e-15 of CPython's)")
        for s in scop.statements
        if any(isinstance(n, Call) and n.fn == "lgamma" and n.type.weak for n in walk(s.value))]
    if problems:
        raise UnsupportedError(problems[:1])


def _at_word(loc: SourceLocation, word: str) -> SourceLocation:
    """``loc`` (a statement's) moved to the first ``word`` on its line after its column,
    where the line has it (the model keeps a location per statement, not per call)."""
    k = loc.text.find(word, loc.col - 1)
    return replace(loc, col=k + 1) if k >= 0 else loc


def _refuse_uninitialized(scop: Scop, deps: Dependences) -> None:
    problems = []
    for r in deps.uninitialized_reads:
        s = scop.statement(r.statement)
        problems.append(Problem(s.read_location(r.target), f"variable `{r.target}`",
                                "may be read before it is assigned (on some iterations no "
                                "assignment precedes this use)"))
    if problems:
        raise UnsupportedError(problems)
