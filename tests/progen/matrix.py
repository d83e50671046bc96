"""The option matrix: every way a program is compiled, and how each run is classified.

Verdicts:

* ``ok``: the results match CPython's (bit-exact under ``strict_fp``, within the error
  bound otherwise, integers exactly);
* ``wrong``: they do not;
* ``unstable``: they do not, but only by more than the error bounds, and the CPython run
  compared floats that rounding may move across each other: a branch may have gone the
  other way (a chaotic recurrence that a contracted multiply-add moves across a
  threshold), so the difference is not sure to be polyopt's;
* ``refused``: :class:`polyopt.UnsupportedError` (the generator left the subset);
* ``error``: any other exception (a polyopt error that is no documented refusal of
  unsupported input, or a plain Python traceback);
* ``crash``: the process died (only seen by a runner that runs programs in subprocesses).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from polyopt.backend_c.work import parallel_min_fixed

import polyopt
from progen import oracle

VERDICTS = ("ok", "wrong", "error", "crash", "refused", "unstable")


@dataclass(frozen=True)
class OptionSet:
    name: str
    kwargs: dict[str, Any] = field(default_factory=dict, hash=False)
    kind: str = "jit"  # jit | schedule | cli | c
    #: the small-call threshold the kernel is generated with (None: the environment's,
    #: which the fuzz runner sets to 0, so that every call runs its loops on a team)
    parallel_min: int | None = None

    @property
    def strict(self) -> bool:
        return bool(self.kwargs.get("strict_fp"))


JIT_SETS = (
    OptionSet("default"),
    OptionSet("fuse_max", {"fuse": "max"}),
    OptionSet("fuse_none", {"fuse": "none"}),
    OptionSet("tile444", {"tile": (4, 4, 4), "unroll_jam": False}),
    OptionSet("tile23", {"tile": (2, 3), "unroll_jam": False}),
    OptionSet("strict_fp", {"strict_fp": True}),
    OptionSet("sequential", {"parallel": False, "vectorize": False}),
    OptionSet("unroll_jam", {"unroll_jam": True, "tile": (4, 4, 4)}),
    # a threshold of the programs' own size: calls and loops on both sides of it take
    # the team and the in-order copies (AstWalker._versioned, _team_for)
    OptionSet("small_calls", parallel_min=256),
)
SCHEDULE_SETS = tuple(OptionSet(f"schedule{k}", {"seed": k}, "schedule") for k in range(3))
FRONTEND_SETS = (OptionSet("cli_py", {}, "cli"), OptionSet("c_region", {}, "c"))
ALL_SETS = JIT_SETS + SCHEDULE_SETS + FRONTEND_SETS
BY_NAME = {o.name: o for o in ALL_SETS}


@dataclass(frozen=True)
class Result:
    option: str
    verdict: str
    detail: str = ""


def classify_exception(exc: BaseException) -> str:
    if isinstance(exc, polyopt.UnsupportedError):
        return "refused"
    return "error"


def describe(exc: BaseException) -> str:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return "".join(tb[-6:]) if not isinstance(exc, polyopt.PolyoptError) else (
        f"{type(exc).__name__}: {exc}\n" + "".join(tb[-3:]))


def run_kernel(prep: oracle.Prepared, make: Callable[[], Any], option: OptionSet) -> Result:
    """Build a kernel with ``make`` and compare one call with CPython."""
    try:
        kernel = make()
        actual = oracle.call(kernel, prep.args)
    except Exception as exc:  # noqa: BLE001 - every exception is a verdict
        return Result(option.name, classify_exception(exc), describe(exc))
    exact = option.strict and oracle.bit_exact_possible(prep.program)
    diff = oracle.compare(prep, actual, exact)
    return Result(option.name, "ok" if diff is None else difference(prep, exact), diff or "")


def difference(prep: oracle.Prepared, exact: bool) -> str:
    """The verdict of results that differ: ``wrong``, or ``unstable`` where they were
    compared within error bounds and a branch of the program may have gone the other way."""
    return "unstable" if prep.unsure_branches and not exact else "wrong"


KERNELS: dict[tuple[str, str], Any] = {}  # (program, option set) -> the kernel built


def jit_kernel(prep: oracle.Prepared, option: OptionSet):
    """The kernel for ``option``, built once per program (the command-line check reuses the
    default one's plans)."""
    key = (oracle.source_key(prep.program), option.name, option.strict)
    if key not in KERNELS:
        if len(KERNELS) > 64:
            KERNELS.clear()
        KERNELS[key] = polyopt.jit(prep.fn, **option.kwargs)
    return KERNELS[key]


def run_jit(prep: oracle.Prepared, option: OptionSet) -> Result:
    if option.parallel_min is None:
        return run_kernel(prep, lambda: jit_kernel(prep, option), option)
    with parallel_min_fixed(option.parallel_min):  # the first call generates the code
        return run_kernel(prep, lambda: jit_kernel(prep, option), option)


def bit_exact_instead(prep: oracle.Prepared, option: OptionSet) -> OptionSet:
    """``option`` with ``strict_fp`` where the program has no error bounds to compare
    within (an int of a float near a jump: finding 021) and bit-exact results are
    possible: the transformations are still checked, against CPython's exact results."""
    if (prep.int_jumps and option.kind in ("jit", "schedule") and not option.strict
            and oracle.bit_exact_possible(prep.program)):
        return replace(option, kwargs={**option.kwargs, "strict_fp": True})
    return option


def run_option(prep: oracle.Prepared, option: OptionSet, workdir) -> Result:
    option = bit_exact_instead(prep, option)
    if option.kind == "jit":
        return run_jit(prep, option)
    if option.kind == "schedule":
        from progen import schedules

        return schedules.run_schedule(prep, option)
    if option.kind == "cli":
        from progen import frontends

        return frontends.run_cli(prep, option, workdir)
    if option.kind == "c":
        from progen import frontends

        return frontends.run_c(prep, option, workdir)
    raise ValueError(option.kind)
