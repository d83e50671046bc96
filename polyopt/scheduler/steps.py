"""Schedule steps: one checked transformation each, replayed in order on the source
program (see :mod:`polyopt.user_schedule` for the user's API).

Each step is a frozen dataclass whose fields are its arguments, strings and ints only,
so that it serializes (:func:`steps_from_json`) and prints as the Python call that makes
it again: ``Tile(("i", "k"), (64, 64))`` prints ``.tile(['i', 'k'], [64, 64])``.  A step
checks its arguments when it is made and the transformation's legality when it is
applied (:meth:`Step.apply`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from polyopt.analysis.dependences import analyze
from polyopt.model.errors import PolyoptError, ScheduleFormatError
from polyopt.model.names import user_text
from polyopt.model.options import MAX_SKEW_FACTOR, tile_sizes_problem
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Loop, Scop
from polyopt.scheduler.replay import RequestKind, Requests, Source
from polyopt.scheduler.replay import replay as replay  # the pipeline imports it from here
from polyopt.transforms.align import align, parallel_alignment
from polyopt.transforms.fuse import distribute, fuse
from polyopt.transforms.interchange import interchange
from polyopt.transforms.licm import check_licm
from polyopt.transforms.parallelize import check_parallel, check_vectorize
from polyopt.transforms.reduction_interchange import interchange_reduction
from polyopt.transforms.skew import skew
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import taken_ids
from polyopt.transforms.unroll_jam import unroll_jam

SCHEMA_VERSION = 1


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _argument_problem(kind: str, k: int, x: object) -> str | None:
    """What is wrong with argument ``k`` for a field of type ``kind`` (a loop name is a
    ``str``, the only strings steps take)."""
    if kind == "str":
        ok = isinstance(x, str)
        what = "a loop name (a str)"
    elif kind == "tuple[str, ...]":
        ok = isinstance(x, (list, tuple)) and bool(x) and all(isinstance(n, str) for n in x)
        what = "a non-empty list of loop names"
    elif kind == "tuple[int, ...]":
        ok = isinstance(x, (list, tuple)) and all(_is_int(n) for n in x)
        what = "a list of int tile sizes"
    elif kind == "int":
        ok = _is_int(x)
        what = "an int"
    else:  # a new step with a new kind of field: say which check it needs
        raise TypeError(f"no check for a step argument of type {kind}")
    return None if ok else f"argument {k} must be {what}, not {x!r}"


@dataclass(frozen=True)
class Step:
    """One primitive with its arguments; made with wrong ones, it raises
    :class:`~polyopt.ScheduleFormatError` saying which."""

    op: ClassVar[str]
    #: whether it changes the loops (earlier parallel, simd and licm requests are checked
    #: again after it)
    structural: ClassVar[bool] = True

    def __post_init__(self) -> None:
        problem = self.problem_with(self.args)
        if problem is not None:
            raise ScheduleFormatError(f"{self.op}(): {problem}")

    @property
    def args(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    def __str__(self) -> str:
        return f".{self.op}({', '.join(repr(list(a) if isinstance(a, tuple) else a) for a in self.args)})"

    @classmethod
    def problem_with(cls, args: tuple[Any, ...]) -> str | None:
        """What is wrong with ``args`` as this step's arguments (None when nothing is)."""
        kinds = [str(f.type) for f in fields(cls)]
        if len(args) != len(kinds):
            return f"takes {len(kinds)} argument(s), not {len(args)}"
        for k, (kind, x) in enumerate(zip(kinds, args, strict=True), 1):
            problem = _argument_problem(kind, k, x)
            if problem is not None:
                return problem
        return cls._value_problem(args)

    @classmethod
    def _value_problem(cls, args: tuple[Any, ...]) -> str | None:
        """What is wrong with well-typed ``args`` (None when nothing is)."""
        return None

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        """``tree`` and ``req`` after this step; IllegalTransformationError, naming the
        dependence, when the step would change the program's results."""
        raise NotImplementedError

    def rewrite(self, at: Source, tree: Node, req: Requests) -> tuple[Source, Node, Requests]:
        """:meth:`apply`, with the program it leaves: the same one, except for a step
        that makes a new program of its schedule (:class:`ReductionInterchange`)."""
        return (at, *self.apply(at, tree, req))


@dataclass(frozen=True)
class _LoopPair(Step):
    a: str
    b: str

    @classmethod
    def _value_problem(cls, args: tuple[Any, ...]) -> str | None:
        if args[0] == args[1]:
            return f"both arguments name loop {args[0]!r}; {cls.op} takes two different loops"
        return None

    def loop_ids(self, at: Source, tree: Node) -> tuple[str, str]:
        """The two loops, refused when two names reach one loop (``"i"`` and ``"L0"``)."""
        a, b = at.loop_id(tree, self.a), at.loop_id(tree, self.b)
        if a == b:
            raise PolyoptError(f"{self.op}({self.a!r}, {self.b!r}): both name the same loop; "
                               f"{self.op} takes two different loops")
        return a, b


@dataclass(frozen=True)
class Interchange(_LoopPair):
    """Swap two perfectly nested loops."""

    op: ClassVar[str] = "interchange"

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        a, b = self.loop_ids(at, tree)
        return interchange(at.scop, at.deps, tree, a, b, (self.a, self.b)), req


@dataclass(frozen=True)
class ReductionInterchange(_LoopPair):
    """Swap the reduction loop ``b`` with the loop ``a`` around it, for ``b``'s own
    statements only (legal where exact reductions may update each element in another
    order; :mod:`polyopt.transforms.reduction_interchange`)."""

    op: ClassVar[str] = "reduction_interchange"

    def rewrite(self, at: Source, tree: Node, req: Requests) -> tuple[Source, Node, Requests]:
        a, b = self.loop_ids(at, tree)
        scop, new = interchange_reduction(at.scop, at.deps, tree, a, b)
        # every request names a loop by id, and the swap keeps both ids
        return Source(scop, analyze(scop), at.strict_fp), new, req


@dataclass(frozen=True)
class Fuse(_LoopPair):
    """Fuse two consecutive sibling loops (shifting the second when needed)."""

    op: ClassVar[str] = "fuse"

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        a, b = self.loop_ids(at, tree)
        return fuse(at.scop, at.deps, tree, a, b, what=f"fusing loops {self.a} and {self.b}"), req


@dataclass(frozen=True)
class Distribute(Step):
    """Split a loop around each part of its body (parts after the first are ``<loop>#2``...)."""

    op: ClassVar[str] = "distribute"
    loop: str

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        lid = at.loop_id(tree, self.loop)
        new = distribute(at.scop, at.deps, tree, lid)
        parts = frozenset(taken_ids(new) - taken_ids(tree))  # the second and later parts
        # a loop that was asked to run in parallel or in SIMD lanes is, in every part
        return new, Requests(req.parallel | (parts if lid in req.parallel else frozenset()),
                             req.simd | (parts if lid in req.simd else frozenset()),
                             req.licm, req.used)


@dataclass(frozen=True)
class Tile(Step):
    """Tile perfectly nested loops; tile loops are named ``<loop>.tile``."""

    op: ClassVar[str] = "tile"
    loops: tuple[str, ...]
    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        for name in ("loops", "sizes"):  # lists as the tuples they stand for (hashable)
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        super().__post_init__()

    @classmethod
    def _value_problem(cls, args: tuple[Any, ...]) -> str | None:
        names, sizes = args
        if len(names) != len(sizes):
            return f"{len(names)} loops but {len(sizes)} tile sizes"
        problem = tile_sizes_problem(tuple(sizes))
        if problem is not None:
            return problem[1]
        if len(set(names)) != len(names):
            twice = next(n for n in names if list(names).count(n) > 1)
            return f"loop {twice!r} is named twice; tile takes different loops"
        return None

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        return tile(at.scop, at.deps, tree, [at.loop_id(tree, n) for n in self.loops],
                    list(self.sizes), [f"{n}.tile" for n in self.loops]), req


@dataclass(frozen=True)
class Skew(Step):
    """Make ``inner`` run over ``inner + factor * outer``."""

    op: ClassVar[str] = "skew"
    outer: str
    inner: str
    factor: int

    @classmethod
    def _value_problem(cls, args: tuple[Any, ...]) -> str | None:
        if args[0] == args[1]:  # as the two-loop steps say it (_LoopPair)
            return f"both arguments name loop {args[0]!r}; skew takes two different loops"
        if abs(args[2]) > MAX_SKEW_FACTOR:
            return (f"the skew factor {args[2]} is larger in magnitude than the maximum, "
                    f"{MAX_SKEW_FACTOR}")
        return None

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        return skew(at.scop, at.deps, tree, at.loop_id(tree, self.outer),
                    at.loop_id(tree, self.inner), self.factor), req


@dataclass(frozen=True)
class Align(Step):
    """Shift the statements of ``loop`` against one another so that each dependence
    between them falls inside one iteration."""

    op: ClassVar[str] = "align"
    loop: str

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        lid = at.loop_id(tree, self.loop)
        shifts = parallel_alignment(at.scop, at.deps, tree, lid)
        if not any(shifts.values()):
            raise PolyoptError(f"loop {self.loop} carries no dependence between its statements "
                               "that a shift would remove: nothing to align")
        return align(at.scop, at.deps, tree, lid, shifts), req


@dataclass(frozen=True)
class UnrollJam(Step):
    """Unroll ``loop`` by ``factor`` and jam the copies into the innermost loop."""

    op: ClassVar[str] = "unroll_jam"
    loop: str
    factor: int

    @classmethod
    def _value_problem(cls, args: tuple[Any, ...]) -> str | None:
        if args[1] < 2:
            return f"the unroll-and-jam factor must be at least 2, not {args[1]!r}"
        return None

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        lid = at.loop_id(tree, self.loop)
        new = unroll_jam(at.scop, at.deps, tree, lid, self.factor, f"{self.loop}.uj")
        if lid not in req.parallel:
            return new, req
        # the unrolled copies leave no loop to run in parallel: the strip loop runs instead
        (strips,) = taken_ids(new) - taken_ids(tree)
        return new, Requests((req.parallel - {lid}) | {strips}, req.simd, req.licm, req.used)


@dataclass(frozen=True)
class _Request(Step):
    """A step that changes how ``loop`` runs, not the loops: checked, then remembered
    (and checked again after every later step that changes the loops)."""

    structural: ClassVar[bool] = False
    kind: ClassVar[RequestKind]
    loop: str

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        lid = at.loop_id(tree, self.loop)
        self.check(at, tree, lid, req)
        return tree, req.adding(self.kind, lid)

    def check(self, at: Source, tree: Node, loop_id: str, req: Requests) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Parallelize(_Request):
    """Run ``loop`` as ``omp parallel for`` (a reduction gets a reduction clause)."""

    op: ClassVar[str] = "parallelize"
    kind: ClassVar[RequestKind] = "parallel"

    def check(self, at: Source, tree: Node, loop_id: str, req: Requests) -> None:
        check_parallel(at.scop, at.deps, tree, loop_id, self.loop, at.strict_fp)


@dataclass(frozen=True)
class Vectorize(_Request):
    """Mark the innermost ``loop`` ``omp simd``."""

    op: ClassVar[str] = "vectorize"
    kind: ClassVar[RequestKind] = "simd"

    def check(self, at: Source, tree: Node, loop_id: str, req: Requests) -> None:
        check_vectorize(at.scop, at.deps, tree, loop_id, self.loop, at.strict_fp,
                        scalar_replaced=loop_id in req.licm)


@dataclass(frozen=True)
class Licm(_Request):
    """Keep the innermost loop's invariant accumulator in a register."""

    op: ClassVar[str] = "licm"
    kind: ClassVar[RequestKind] = "licm"

    def check(self, at: Source, tree: Node, loop_id: str, req: Requests) -> None:
        check_licm(at.scop, at.deps, tree, loop_id, self.loop)


@dataclass(frozen=True)
class StartAuto(Step):
    """Start from the automatic schedule instead of the source order: only as the first
    step (``polyopt.schedule(fn, start="auto")``); the pipeline computes that schedule,
    and the steps after this one apply to it."""

    op: ClassVar[str] = "auto"

    def apply(self, at: Source, tree: Node, req: Requests) -> tuple[Node, Requests]:
        raise ScheduleFormatError("auto() starts a schedule from the automatic one: it can "
                                  "only be the first step")


#: every step by the name its JSON and its Schedule method use
STEPS: dict[str, type[Step]] = {cls.op: cls for cls in (
    Interchange, ReductionInterchange, Fuse, Distribute, Tile, Skew, Align, UnrollJam,
    Parallelize, Vectorize, Licm, StartAuto)}


def step_problem(op: object, args: tuple[Any, ...]) -> str | None:
    """What is wrong with a step's operation or arguments (None when nothing is)."""
    if not isinstance(op, str) or op not in STEPS:
        return f"unknown schedule step {op!r} (steps: {', '.join(STEPS)})"
    return STEPS[op].problem_with(args)


def steps_from_json(text: str | bytes, function: str | None = None) -> tuple[Step, ...]:
    """The steps of a saved schedule; :class:`~polyopt.ScheduleFormatError` when the text
    is not what :meth:`Schedule.to_json` writes, or was saved for another function than
    ``function`` (when given)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError too
        raise ScheduleFormatError(f"a schedule file must be JSON: {exc}") from None
    except RecursionError:  # the decoder recurses once per nested array or object
        raise ScheduleFormatError("a schedule file must be JSON as Schedule.to_json() writes "
                                  "it: this one is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise ScheduleFormatError("a schedule file must be a JSON object with "
                                  f'"polyopt_schedule" and "steps", not {type(data).__name__}')
    version = data.get("polyopt_schedule")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ScheduleFormatError(f"unsupported schedule file version {version!r} "
                                  f"(this polyopt reads version {SCHEMA_VERSION})")
    unknown = sorted(set(data) - {"polyopt_schedule", "function", "steps"}, key=str)
    if unknown:  # a misspelt "steps" beside an empty one dropped the user's steps unsaid
        raise ScheduleFormatError(f"unknown key {unknown[0]!r} in the schedule file (its keys: "
                                  f'"polyopt_schedule", "function", "steps")')
    saved_for = data.get("function")
    if function is not None and saved_for not in (None, "", function):
        raise ScheduleFormatError(f"this schedule was saved for function {saved_for!r}, "
                                  f"not {function!r}")
    raw = data.get("steps")
    if not isinstance(raw, list):
        raise ScheduleFormatError(f'"steps" must be a list of steps, not {raw!r}')
    steps: list[Step] = []
    for k, s in enumerate(raw, 1):
        if not isinstance(s, dict) or not isinstance(s.get("args"), list) or "op" not in s:
            raise ScheduleFormatError(f'step {k} must be an object {{"op": ..., "args": [...]}}, '
                                      f"not {s!r}")
        extra = sorted(set(s) - {"op", "args"}, key=str)
        if extra:
            raise ScheduleFormatError(f'step {k}: unknown key {extra[0]!r} (a step is '
                                      f'{{"op": ..., "args": [...]}})')
        args = tuple(tuple(x) if isinstance(x, list) else x for x in s["args"])
        problem = step_problem(s["op"], args)
        if problem is not None:
            raise ScheduleFormatError(f"step {k} ({s['op']!r}): {problem}")
        if s["op"] == StartAuto.op and k != 1:
            raise ScheduleFormatError(f"step {k}: auto() starts from the automatic schedule, "
                                      "so it can only be the first step")
        steps.append(STEPS[s["op"]](*args))
    return tuple(steps)


def steps_to_json(steps: tuple[Step, ...], function: str) -> str:
    """The text :func:`steps_from_json` reads back."""
    return json.dumps({
        "polyopt_schedule": SCHEMA_VERSION,
        "function": function,
        "steps": [{"op": s.op, "args": [list(x) if isinstance(x, tuple) else x
                                        for x in s.args]} for s in steps],
    }, indent=2)


def prange_requests(scop: Scop) -> tuple[Parallelize, ...]:
    """A ``.parallelize()`` step for each loop written ``for ... in prange(...)``: a
    request, so its loops keep the order written and an illegal one is refused."""
    def name(lp: Loop) -> str:  # as reports label it: @line only where needed
        alone = sum(other.name == lp.name for other in scop.loops.values()) == 1
        return user_text(lp.label(ambiguous=not alone))

    return tuple(Parallelize(name(lp)) for lp in scop.loops.values() if lp.prange)
