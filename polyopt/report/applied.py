"""What was done to a scop: the applied schedule of a :class:`~polyopt.scheduler.pipeline.Plan`
in source terms, for the text, JSON and HTML reports (``fn.report()``, ``polyopt deps``).

It reads what the scheduler recorded (``Plan.applied``) and the final schedule tree;
nothing is guessed back from the C.  Printed::

    What was done (the automatic schedule)
      Steps
        1. [loop order] loops i#2, j#2, k reordered to i#2, k, j#2   .interchange('j#2', 'k')
        2. [register tiling] ... (no user step: start="auto" starts after it)
      Loops
        i.tile          parallel, tiles of 128, dealt one at a time
          i             fused with i#2
      Temporaries
        B_pk: B packed into contiguous panels (B_pk)
      Parallel threshold: ...
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.backend_c.work import parallel_min_instances
from polyopt.model.names import user_text
from polyopt.model.schedule_tree import Band, LoopDim, Node, Sequence
from polyopt.model.scop import Scop, loop_label
from polyopt.scheduler.applied import Applied, block
from polyopt.scheduler.pipeline import Plan

ORIGINS = {"auto": "the automatic schedule", "user": "a user schedule",
           "source": "the source loop order"}


@dataclass(frozen=True)
class LoopRow:
    """One loop (or statement) of the final schedule, indented by ``depth``."""

    depth: int
    label: str  # the loop's name as steps name it, or a statement's name
    marks: tuple[str, ...]  # "parallel", "simd", "tiles of 64", "fused with i@12"...
    statement: bool = False


@dataclass(frozen=True)
class AppliedReport:
    origin: str  # "auto", "user", "source"
    applied: tuple[Applied, ...]
    loops: tuple[LoopRow, ...]
    temporaries: tuple[tuple[str, str], ...]  # (name, what happened to it)
    parallel_threshold: int  # statement instances under which parallel loops run on one thread

    @property
    def replay(self) -> str:
        """The user steps that reproduce the schedule, as Python."""
        start = 'start="auto"' if self.origin == "auto" else ""
        steps = [a for a in self.applied if a.phase == "user step"]
        return f"polyopt.schedule(fn{', ' if start else ''}{start})" + "".join(
            str(s) for a in steps for s in a.steps)


def applied_report(plan: Plan) -> AppliedReport:
    rows: list[LoopRow] = []
    _rows(plan.source, plan.tree, 0, rows)
    temps: list[tuple[str, str]] = []
    for a in plan.applied:
        if a.arrays and a.phase != "marks":
            temps.append((", ".join(user_text(x) for x in a.arrays), user_text(a.what)))
    for a in plan.applied:
        for x in a.arrays if a.phase == "marks" else ():
            temps.append((user_text(x), f"privatized: a copy per thread of loop "
                                        f"{user_text(a.loops[0])}"))
    return AppliedReport(plan.origin, plan.applied, tuple(rows), tuple(temps),
                         parallel_min_instances())


def _rows(source: Scop, node: Node, depth: int, out: list[LoopRow]) -> None:
    if isinstance(node, Band):
        for k, d in enumerate(node.dims):
            tiled = any(x.mark.unroll for x in _loops_below(node, k))
            out.append(LoopRow(depth + k, user_text(loop_label(source, d)),
                               _marks(source, d, tiled)))
        _rows(source, node.child, depth + len(node.dims), out)
    elif isinstance(node, Sequence):
        for c in node.children:
            _rows(source, c, depth, out)
    else:
        out.append(LoopRow(depth, node.stmt, (), statement=True))


def _loops_below(node: Band, k: int) -> list[LoopDim]:
    """The loops nested in loop ``k`` of ``node`` down its chain of bands (not across a
    sequence)."""
    out = list(node.dims[k + 1:])
    child = node.child
    while isinstance(child, Band):
        out += child.dims
        child = child.child
    return out


def _marks(source: Scop, d: LoopDim, register_tile: bool = False) -> tuple[str, ...]:
    """``register_tile``: ``d`` encloses a register tile's copies.  Those loops and the
    copies are vectorized by the compiler from the unrolled code, with no ``simd``
    pragma, so the report does not call them simd."""
    m = d.mark
    out: list[str] = []
    if m.parallel:
        out.append("parallel" + "".join(f", reduction({op}:{user_text(v)})"
                                        for op, v in m.reductions))
    if m.private_arrays:
        out.append(f"private arrays {', '.join(user_text(a) for a in m.private_arrays)}")
    if m.simd and not m.unroll and not register_tile:
        out.append("simd")
    if m.unroll:
        out.append("register-tiled (unrolled and jammed)")
    if m.scalar_replace:
        out.append("accumulator in a register")
    size = block(d)
    if ".band." in d.loop_id and d.loop_id.endswith(".tile"):
        out.append(f"time-tiled, tiles of {size}" if size else "wavefront of time tiles")
    elif ".band." in d.loop_id:
        pass  # a point loop of isl's band: its tile loops say how it was tiled
    elif d.loop_id.endswith(".reg") and size:
        out.append(f"register tiles of {size}")
    elif size and size > 1:
        out.append(f"tiles of {size}" + (", dealt one at a time" if m.round_robin else ""))
    fused = [user_text(source.loop_label(a)) for a in d.aliases if a in source.loops]
    if fused:
        out.append(f"fused with {', '.join(fused)}")
    return tuple(out)


def text(r: AppliedReport) -> str:
    out = [f"What was done ({ORIGINS.get(r.origin, r.origin)})", "  Steps"]
    if not r.applied:
        out.append("    (none)")
    for k, a in enumerate(r.applied, 1):
        how = "".join(str(s) for s in a.steps) or "(no user step)"
        out.append(f"    {k}. [{a.phase}] {user_text(a.what)}   {user_text(how)}")
    out.append(f"  Replay: {r.replay}")
    out.append("  Loops")
    width = max((2 * x.depth + len(x.label) for x in r.loops), default=0) + 2
    for x in r.loops:
        name = ("  " * x.depth + x.label).ljust(width)
        out.append(f"    {name}{', '.join(x.marks) if x.marks else ''}".rstrip())
    out.append("  Temporaries")
    out += [f"    {name}: {what}" for name, what in r.temporaries] or ["    (none changed)"]
    out.append(f"  Parallel threshold: a parallel loop runs on one thread when the call runs "
               f"fewer than {r.parallel_threshold} statement instances (POLYOPT_PARALLEL_MIN)")
    return "\n".join(out) + "\n"
