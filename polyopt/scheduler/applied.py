"""What the scheduler did: one :class:`Applied` record per change a phase made, noted
as the phase runs (:class:`Record`) and kept in the plan, so that reports say what was
done without reading the C.

A record says what changed in source terms and, when user steps make the same change
from the schedule before it, those steps (:mod:`polyopt.scheduler.steps`)::

    Applied("loop order", "loops j, k interchanged", loops=("j", "k"),
            steps=(Interchange("j", "k"),))

Promotion, index-set splitting, time tiling, register tiling, packing and contraction
have no user step: their records carry none, and ``polyopt.schedule(fn, start="auto")``
starts from the automatic schedule they produce instead of replaying them.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.model.aff import FloorDiv
from polyopt.model.schedule_tree import Band, LoopDim, Node, loops, statements
from polyopt.model.scop import Scop, loop_label
from polyopt.scheduler.steps import (
    Distribute,
    Fuse,
    Interchange,
    Licm,
    Parallelize,
    ReductionInterchange,
    Step,
    Tile,
    Vectorize,
)


@dataclass(frozen=True)
class Applied:
    """One change a phase made to the schedule or the program."""

    phase: str  # "loop order", "fusion", "tiling", "register tiling", "marks"...
    what: str  # one sentence, in source terms
    loops: tuple[str, ...] = ()  # the loops it names, as steps name them
    arrays: tuple[str, ...] = ()  # the arrays or scalars it names
    steps: tuple[Step, ...] = ()  # user steps making the same change; () when none can


#: phases no user step can replay (``polyopt.schedule(fn, start="auto")`` starts after them)
AUTOMATIC_ONLY = frozenset({"accumulator promotion", "index-set splitting", "time tiling",
                            "register tiling", "contraction"})


class Record:
    """The changes noted while one schedule is computed (frozen by :meth:`applied`)."""

    def __init__(self) -> None:
        self._items: list[Applied] = []

    def note(self, phase: str, before: tuple[Scop, Node], after: tuple[Scop, Node]) -> None:
        """What ``phase`` changed from ``before`` to ``after``."""
        if before[0] is after[0] and before[1] is after[1]:
            return
        found = changes(phase, before, after)
        if phase in AUTOMATIC_ONLY and found:
            # no user step replays these phases: one record of the loops, without steps
            # (distributions inside it are its own business), and one of the storage
            storage = [a for a in found if a.arrays]
            whats = dict.fromkeys(a.what for a in found if not a.arrays
                                  and not a.what.endswith("distributed"))
            found = storage + ([Applied(phase, "; ".join(whats), tuple(dict.fromkeys(
                x for a in found for x in a.loops)))] if whats else [])
        self._items += found

    def add(self, item: Applied) -> None:
        self._items.append(item)

    def applied(self) -> tuple[Applied, ...]:
        return tuple(self._items)


def note(record: Record | None, phase: str, before: tuple[Scop, Node],
         after: tuple[Scop, Node]) -> None:
    """:meth:`Record.note` when there is a record (the scheduler runs without one too)."""
    if record is not None:
        record.note(phase, before, after)


def block(dim: LoopDim) -> int | None:
    """The size of the blocks a tile loop runs over (None for a point loop)."""
    for _, e in dim.exprs:
        if len(e.terms) == 1 and isinstance(e.terms[0][0], FloorDiv) and not e.const:
            return e.terms[0][0].den
        return None
    return None


def changes(phase: str, before: tuple[Scop, Node], after: tuple[Scop, Node]) -> list[Applied]:
    """The changes from ``before`` to ``after``, each with the steps that make it."""
    (s0, t0), (s1, t1) = before, after
    out = _program_changes(phase, s0, t0, s1, t1)
    dims0 = {d.loop_id: d for d, _ in loops(t0)}
    for d, _ in loops(t0):
        for a in d.aliases:
            dims0.setdefault(a, d)
    out += _fusions(phase, s0, dims0, t1)
    out += _new_loops(phase, s0, dims0, s1, t1)
    out += _reorders(phase, s0, dims0, t0, t1)
    if phase == "reduction interchange":
        out += _swaps(phase, s0, dims0, t1)
    return out


def _swaps(phase: str, s0: Scop, dims0: dict[str, LoopDim], t1: Node) -> list[Applied]:
    """Pairs of loops that kept their places but swapped iterators for the statements of
    the inner one (the reduction interchange), one record per pair."""
    moved: dict[str, frozenset[str]] = {}  # loop id -> the statements it runs otherwise
    out: list[Applied] = []
    for d, path in loops(t1):  # outer loops first
        old = dims0.get(d.loop_id)
        if old is None or old.loop_id != d.loop_id:
            continue
        mine = frozenset(s for s, e in d.exprs if (s, e) not in old.exprs)
        if not mine:
            continue
        moved[d.loop_id] = mine
        around = [o for band in path if isinstance(band, Band) for o in band.dims
                  if o is not d and mine <= moved.get(o.loop_id, frozenset())]
        if around:
            pair = (loop_label(s0, dims0[around[-1].loop_id]), loop_label(s0, old))
            lines = ", ".join(s0.describe_statement(s) for s in sorted(mine))
            out.append(Applied(phase, f"loops {pair[0]} and {pair[1]} swapped for {lines} "
                                      "(the loop's other statements stay in place)", pair,
                               steps=(ReductionInterchange(*pair),)))
    return out


def _program_changes(phase: str, s0: Scop, t0: Node, s1: Scop, t1: Node) -> list[Applied]:
    out: list[Applied] = []
    gone = [s for s in statements(t0) if s not in set(statements(t1))]
    new = [s for s in statements(t1) if s not in set(statements(t0))]
    if gone or new:
        out.append(Applied(phase, f"statements {', '.join(gone) or '-'} become "
                                  f"{', '.join(new) or '-'}"))
    added = [a for a in s1.arrays if a not in s0.arrays]
    removed = [a for a in s0.arrays if a not in s1.arrays]
    scalars = [v for v in s0.scalars if v not in s1.scalars]
    if added or removed or scalars:
        out.append(Applied(phase, _storage(phase, removed + scalars, added),
                           arrays=tuple(removed + scalars + added)))
    return out


def _storage(phase: str, gone: list[str], added: list[str]) -> str:
    """How the phase changed where values are stored."""
    if phase == "accumulator promotion":
        return f"scalar {', '.join(gone)} kept in the array element it is stored to"
    if phase == "contraction":
        into = f"a buffer of rows per thread, {', '.join(added)}" if added \
            else "a private scalar"
        return f"temporary {', '.join(gone)} contracted into {into}"
    if added and all(a.endswith("_pk") for a in added) and not gone:
        return (f"{', '.join(a.removesuffix('_pk') for a in added)} packed into contiguous "
                f"panels ({', '.join(added)})")
    parts = [f"{', '.join(gone)} no longer stored"] if gone else []
    return "; ".join(parts + ([f"new temporary {', '.join(added)}"] if added else []))


def _fusions(phase: str, s0: Scop, dims0: dict[str, LoopDim], t1: Node) -> list[Applied]:
    out = []
    for d, _ in loops(t1):
        old = dims0.get(d.loop_id)
        for a in d.aliases:
            if old is None or a in old.aliases or a == old.loop_id or a not in dims0:
                continue
            first, second = loop_label(s0, old), loop_label(s0, dims0[a])
            if first == second:
                continue
            out.append(Applied(phase, f"loops {first} and {second} fused", (first, second),
                               steps=(Fuse(first, second),)))
    return out


def _origin(loop_id: str, dims0: dict[str, LoopDim]) -> LoopDim | None:
    """The loop of the old tree a new loop was made from (``L1.2`` and ``L1.tile`` from
    ``L1``)."""
    head = loop_id
    while "." in head:
        head = head.rsplit(".", 1)[0]
        if head in dims0:
            return dims0[head]
    return None


def _new_loops(phase: str, s0: Scop, dims0: dict[str, LoopDim], s1: Scop,
               t1: Node) -> list[Applied]:
    out: list[Applied] = []
    groups: list[list[tuple[str, int]]] = []  # tile loops nested in one another
    last: Node | None = None
    distributed: list[str] = []
    rescheduled: list[str] = []  # loops isl's scheduler made (time tiling)
    for d, path in loops(t1):
        if d.loop_id in dims0:
            continue
        origin = _origin(d.loop_id, dims0)
        size = block(d)
        name = loop_label(s0, origin) if origin is not None else loop_label(s1, d)
        if ".band." in d.loop_id:
            rescheduled.append(f"{name} (tiles of {size})" if size else name)
        elif d.loop_id.endswith(".tile") and size is not None and origin is not None:
            if last is None or (path[-1] is not last and path[-2:-1] != (last,)):
                groups.append([])
            groups[-1].append((name, size))
            last = path[-1]
        elif d.loop_id.endswith(".reg") and size is not None:
            out.append(Applied(phase, f"loop {name} in register tiles of {size}", (name,)))
        elif origin is not None and d.label.startswith(name + "#") and "." not in d.label:
            if name not in distributed:
                distributed.append(name)
    for name in distributed:
        out.append(Applied(phase, f"loop {name} distributed", (name,),
                           steps=(Distribute(name),)))
    for chain in groups:
        names = tuple(n for n, _ in chain)
        sizes = tuple(s for _, s in chain)
        # no user step says it when a tile size is past what a user may ask for (a tile
        # as large as the loop, from tile=MAX_TILE_SIZE) or a name repeats
        steps: tuple[Step, ...] = ((Tile(names, sizes),) if len(set(names)) == len(names)
                                   and Tile.problem_with((names, sizes)) is None else ())
        out.append(Applied(phase, f"loops {', '.join(names)} tiled "
                                  f"{' x '.join(map(str, sizes))}", names, steps=steps))
    if rescheduled:
        out.append(Applied(phase, "rescheduled by isl's scheduler (skewed where dependences "
                                  f"need it) into loops {', '.join(rescheduled)}",
                           tuple(rescheduled)))
    return out


def _order(t: Node, stmt: str, known: set[str]) -> list[str]:
    return [d.loop_id for d, path in loops(t) if d.loop_id in known
            and stmt in statements(path[-1]) and _is_point(d)]


def _is_point(d: LoopDim) -> bool:
    return all(isinstance(x, str) for _, e in d.exprs for x, _ in e.terms) or not d.exprs


def _reorders(phase: str, s0: Scop, dims0: dict[str, LoopDim], t0: Node,
              t1: Node) -> list[Applied]:
    out: list[Applied] = []
    known = {d.loop_id for d, _ in loops(t0)} & {d.loop_id for d, _ in loops(t1)}
    seen: set[tuple[str, ...]] = set()
    for stmt in statements(t1):
        if stmt not in statements(t0):
            continue
        was, now = _order(t0, stmt, known), _order(t1, stmt, known)
        if sorted(was) != sorted(now) or was == now or tuple(now) in seen:
            continue
        seen.add(tuple(now))
        current, swaps = list(was), []
        for p, want in enumerate(now):
            q = current.index(want)
            if q != p:
                a, b = loop_label(s0, dims0[current[p]]), loop_label(s0, dims0[want])
                swaps.append(Interchange(a, b))
                current[p], current[q] = current[q], current[p]
        names = tuple(loop_label(s0, dims0[x]) for x in now)
        old = ", ".join(loop_label(s0, dims0[x]) for x in was)
        out.append(Applied(phase, f"loops {old} reordered to {', '.join(names)}", names,
                           steps=tuple(swaps)))
    return out



def marks(scop: Scop, tree: Node) -> list[Applied]:
    """The loop marks code generation follows: OpenMP ``parallel for`` (with reductions
    and private copies), ``simd``, and accumulators kept in registers (LICM)."""
    out: list[Applied] = []
    for d, _ in loops(tree):
        name, m = loop_label(scop, d), d.mark
        if m.parallel:
            extra = [f"reduction({op}:{var})" for op, var in m.reductions]
            extra += [f"a private copy of {a} per thread" for a in m.private_arrays]
            if m.round_robin:
                extra.append("tiles dealt one at a time")
            what = f"loop {name} runs in parallel" + (f" ({'; '.join(extra)})" if extra else "")
            out.append(Applied("marks", what, (name,), m.private_arrays,
                               steps=(Parallelize(name),)))
        if m.simd and not m.unroll:
            out.append(Applied("marks", f"loop {name} vectorized (omp simd)", (name,),
                               steps=(Vectorize(name),)))
        if m.scalar_replace:
            out.append(Applied("marks", f"loop {name} keeps its accumulator in a register",
                               (name,), steps=(Licm(name),)))
    return out
