"""The compiler pipeline, shared by ``@polyopt.jit`` and the ``polyopt`` command:
frontend model → dependences → schedule with loop marks → C.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt import parallel
from polyopt.deps import Dependences, analyze
from polyopt.errors import Problem, UnsupportedError
from polyopt.model import Scop
from polyopt.options import Options
from polyopt.schedule_tree import Node


@dataclass(frozen=True, eq=False)
class Plan:
    """A scop, its dependences, and the schedule code generation will follow."""

    scop: Scop
    deps: Dependences
    tree: Node


def plan(scop: Scop, options: Options) -> Plan:
    deps = analyze(scop)
    _refuse_uninitialized(scop, deps)
    tree = parallel.mark(scop, deps, scop.schedule, parallel=options.parallel,
                         vectorize=options.vectorize)
    return Plan(scop, deps, tree)


def _refuse_uninitialized(scop: Scop, deps: Dependences) -> None:
    problems = []
    for r in deps.uninitialized_reads:
        s = scop.statement(r.statement)
        problems.append(Problem(s.location, f"variable `{r.target}`",
                                "may be read before it is assigned (on some iterations no "
                                "assignment precedes this use)"))
    if problems:
        raise UnsupportedError(problems)
