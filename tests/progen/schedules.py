"""Random legal user schedules through ``polyopt.schedule(fn)``.

The steps are drawn by :func:`test_schedule_random.step_args` (the random-schedule
property's own strategy), seeded, so a run is reproducible: a step polyopt refuses as
illegal is skipped, the others are kept, and the schedule is compiled and compared with
CPython like any option set.
"""

from __future__ import annotations

import polyopt
from progen import matrix, oracle

EXAMPLES = 3  # hypothesis tries its simplest draw first: a few examples, the richest kept


def draw_schedule(fn, seed: int, args: tuple | None = None,
                  strict_fp: bool = False) -> polyopt.Schedule:
    """A random schedule of steps polyopt accepts; checked for the types of ``args`` (a
    call of the kernel sets them) where given, else for the types inferred from the code
    (where a step legal for those may be refused when the real types are compiled)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st
    from test_schedule_random import OPS, apply, step_args

    kernel = polyopt.jit(fn, strict_fp=strict_fp)
    if args is not None:
        oracle.call(kernel, args)  # from the disk cache where the default set built it
    start = polyopt.schedule(kernel)
    chosen: list[polyopt.Schedule] = []

    @hseed(seed)
    @settings(max_examples=EXAMPLES, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def pick(data) -> None:
        s, kept = start, 0
        want = data.draw(st.integers(1, 4))
        for _ in range(4 * want):  # most random steps are illegal: try several
            if kept == want:
                break
            op = data.draw(st.sampled_from(OPS))
            args = data.draw(step_args(op, s))
            try:
                s = apply(s, op, args)
                kept += 1
            except polyopt.PolyoptError:
                continue  # an illegal or misnamed step is refused: the schedule stays legal
        chosen.append((kept, len(chosen), s))

    pick()
    return max(chosen, key=lambda x: x[:2])[2]  # the example that kept the most steps


def run_schedule(prep: oracle.Prepared, option: matrix.OptionSet) -> matrix.Result:
    state: dict[str, str] = {}

    def make():
        s = draw_schedule(prep.fn, 1000 + int(option.kwargs.get("seed", 0)), prep.args,
                          option.strict)
        state["schedule"] = str(s)
        return s.compile()

    r = matrix.run_kernel(prep, make, option)
    if r.verdict != "ok" and "schedule" in state:
        return matrix.Result(r.option, r.verdict, f"schedule: {state['schedule']}\n{r.detail}")
    return r
