"""The compiler pipeline, shared by ``@polyopt.jit``, schedules and the ``polyopt`` command:
frontend model → dependences → schedule (automatic or user steps) → loop marks.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from polyopt import auto, parallel
from polyopt.deps import Dependences, analyze
from polyopt.errors import Problem, TooComplexError, UnsupportedError
from polyopt.isl_budget import ANALYSIS_OPS, SCHEDULING_OPS, budget
from polyopt.model import Scop
from polyopt.options import Options
from polyopt.schedule_tree import Node
from polyopt.transforms.contract import contract


@dataclass(frozen=True, eq=False)
class Plan:
    """A scop, its dependences, and the schedule code generation will follow."""

    scop: Scop  # the program code generation sees (temporaries may be contracted)
    deps: Dependences
    tree: Node
    source: Scop  # the program as written, for reports
    source_deps: Dependences


def plan(scop: Scop, options: Options, steps: tuple | None = None) -> Plan:
    """Analyse ``scop`` and choose its schedule: the user's ``steps`` when given
    (each checked), else the automatic scheduler (or the source order when
    ``options.auto`` is off)."""
    from polyopt.schedule import replay

    with budget(ANALYSIS_OPS, f"the dependence analysis of {scop.name}()"):
        deps = analyze(scop)
        deps.flow  # noqa: B018 - the value-based part is lazy: compute it under the budget
    _refuse_uninitialized(scop, deps)
    source, source_deps = scop, deps
    marks = dict(parallel=options.parallel, vectorize=options.vectorize, licm=options.licm,
                 strict_fp=options.strict_fp, array_copies=options.array_copies)
    if steps is not None:
        tree, req = replay(scop, deps, steps, options.strict_fp)
        tree = parallel.mark(
            scop, deps, tree, **marks,
            only_parallel=req.parallel if "parallel" in req.used else None,
            only_simd=req.simd if "simd" in req.used else None,
            only_licm=req.licm if "licm" in req.used else None,
        )
    elif options.auto:
        try:
            with budget(SCHEDULING_OPS, f"scheduling {scop.name}()"):
                scop, deps, tree = auto.schedule(scop, deps, options)
                deps.flow  # noqa: B018 - lazy, as above
        except TooComplexError as exc:
            warnings.warn(f"polyopt: {exc}; keeping the source loop order", RuntimeWarning,
                          stacklevel=3)
            scop, deps, tree = source, source_deps, source.schedule
        if options.contract:
            contracted = contract(scop, deps, tree, row_buffers=options.array_copies)
            if contracted is not scop:
                # the contracted program's source order is `tree`: analyse it afresh
                scop, deps = contracted, analyze(contracted)
                tree = contracted.schedule
        tree = parallel.mark(scop, deps, tree, **marks)
    else:
        tree = parallel.mark(scop, deps, scop.schedule, **marks)
    return Plan(scop, deps, tree, source, source_deps)


def _refuse_uninitialized(scop: Scop, deps: Dependences) -> None:
    problems = []
    for r in deps.uninitialized_reads:
        s = scop.statement(r.statement)
        problems.append(Problem(s.read_location(r.target), f"variable `{r.target}`",
                                "may be read before it is assigned (on some iterations no "
                                "assignment precedes this use)"))
    if problems:
        raise UnsupportedError(problems)
