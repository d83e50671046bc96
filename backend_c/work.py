"""How much work a kernel call does, estimated at run time, so that small calls run
their `parallel for` loops on one thread (an OpenMP ``if`` clause).

Waking a sleeping OpenMP team can cost more than a small call's whole work
(docs/design/backend-c.md).  The estimate is the number of statement instances, each
statement's domain counted as its bounding box (exact counts would need barvinok);
it decides only how many threads run, never what is computed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import islpy as isl

from polyopt.model import names
from polyopt.model.errors import TooComplexError, warn_user
from polyopt.model.isl_budget import ESTIMATE_OPS, budget

if TYPE_CHECKING:  # the threshold is read on a warm start, which never sees a scop
    from polyopt.model.scop import Scop

#: Below this many statement instances (about a millisecond of serial work) a call
#: runs on one thread.  ``POLYOPT_PARALLEL_MIN`` overrides it when code is generated
#: (the test suite sets 0, so that its small problems still run every parallel loop
#: on a team).
PARALLEL_MIN_INSTANCES = 1 << 20
# a tuned threshold (polyopt.tune) in force while one kernel is generated
_FIXED: ContextVar[int | None] = ContextVar("polyopt_parallel_min", default=None)


def parallel_min_instances() -> int:
    fixed = _FIXED.get()
    if fixed is not None:
        return fixed
    text = os.environ.get("POLYOPT_PARALLEL_MIN", "")
    if not text:
        return PARALLEL_MIN_INSTANCES
    try:
        value = int(text)
    except ValueError:
        value = -1
    # the range polyopt.tune.load accepts for its parallel_min
    if 0 <= value <= 2**62:
        return value
    if text not in _warned:  # once per value: it is read for every kernel generated
        _warned.add(text)
        warn_user(f"polyopt: POLYOPT_PARALLEL_MIN={text!r} is not a whole number of "
                  f"statement instances from 0 to 2**62 (write 1000000, not 1e6); it is "
                  f"ignored and the default {PARALLEL_MIN_INSTANCES} applies")
    return PARALLEL_MIN_INSTANCES


_warned: set[str] = set()


@contextmanager
def parallel_min_fixed(instances: int) -> Iterator[None]:
    """Generate code with this threshold, whatever ``POLYOPT_PARALLEL_MIN`` says."""
    token = _FIXED.set(instances)
    try:
        yield
    finally:
        _FIXED.reset(token)


def entry_instances(threshold: int) -> int:
    """The instances one entry of a parallel loop needs for a team, where the call's
    work reaches ``threshold``: a team that is already awake forks and joins in a few
    microseconds, not the wake-up the call's threshold pays for."""
    return threshold >> 6


def team_flag(work: str | None, threshold: int) -> str:
    """The C value of the team flag: whether ``work`` (a C count of statement
    instances; None where it has no bound) reaches ``threshold``."""
    return "1" if work is None else f"({work}) >= {threshold}.0"


def instance_estimate(scop: Scop,
                      print_expr: Callable[[isl.AstExpr], str] | None = None) -> str | None:
    """A C expression (double) over the parameters bounding the instances a call runs,
    or None when isl cannot bound some statement's domain; ``print_expr`` writes an isl
    expression as C (a C region's own spelling; by default a kernel's)."""
    build = isl.AstBuild.from_context(scop.context)
    terms: list[str] = []
    # statements of one nest share their domain but for its name: each is bounded once
    # (the same set, printed alike, gives the same bound)
    bounded: dict[str, str] = {}
    for st in scop.statements:
        shape = str(st.domain.reset_tuple_id())
        if shape not in bounded:
            try:
                with budget(ESTIMATE_OPS, "bounding the instances of a call"):
                    extents = names.dim_extents(st.domain)
                    bounded[shape] = _product(build, scop, extents, print_expr)
            except (isl.Error, TooComplexError):
                return None  # a domain of many pieces: a team whatever the sizes
        terms.append(bounded[shape])
    return " + ".join(terms) or None


def _product(build: isl.AstBuild, scop: Scop, extents: list[isl.PwAff],
             print_expr: Callable[[isl.AstExpr], str] | None) -> str:
    """The product of a domain's extents, in C."""
    from polyopt.backend_c.ast_expr import ast_expr  # code generation only: not on a warm start

    text = print_expr or ast_expr
    factors: list[str] = []
    for e in extents:
        total = names.total_at_least_zero(e, scop.context)  # 0 where the domain is empty
        factors.append(text(build.expr_from_pw_aff(total)))
    return " * ".join(f"(double){f}" for f in factors) or "1.0"
