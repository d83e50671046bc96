"""Schedule steps: one checked transformation each, replayed in order on the
source program (see :mod:`polyopt.schedule` for the user's API)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from polyopt.analysis.dependences import Dependences
from polyopt.model.errors import IllegalTransformationError, PolyoptError, ScheduleFormatError
from polyopt.model.names import user_text
from polyopt.model.options import MAX_SKEW_FACTOR, tile_sizes_problem
from polyopt.model.schedule_tree import Node, loops
from polyopt.model.scop import Scop, loop_label
from polyopt.transforms.align import align, parallel_alignment
from polyopt.transforms.fuse import distribute, fuse
from polyopt.transforms.interchange import interchange
from polyopt.transforms.licm import check_licm
from polyopt.transforms.parallelize import check_parallel, check_vectorize
from polyopt.transforms.skew import skew
from polyopt.transforms.tile import tile
from polyopt.transforms.tree import dim_of, normalize, taken_ids
from polyopt.transforms.unroll_jam import unroll_jam

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Step:
    """One primitive with its arguments (strings and ints only, so it serializes)."""

    op: str
    args: tuple[Any, ...]

    def __str__(self) -> str:
        return f".{self.op}({', '.join(repr(list(a) if isinstance(a, tuple) else a) for a in self.args)})"


@dataclass(frozen=True)
class Requests:
    """Loop ids the user asked to run in parallel, vectorize, or LICM."""

    parallel: frozenset[str] = frozenset()
    simd: frozenset[str] = frozenset()
    licm: frozenset[str] = frozenset()
    used: frozenset[str] = field(default_factory=frozenset)  # which kinds were requested


def resolve(scop: Scop, tree: Node, name: str) -> str:
    """The loop id a user's name refers to in ``tree``."""
    found: list[str] = []
    labels: list[str] = []
    for dim, _ in loops(tree):
        names = {dim.loop_id, loop_label(scop, dim), *dim.aliases}
        names |= {scop.loop_label(a) for a in dim.aliases if a in scop.loops}
        if dim.loop_id in scop.loops:
            lp = scop.loops[dim.loop_id]
            names.add(f"{lp.iterator}@{lp.location.line}")
        names |= {user_text(n) for n in names}  # a renamed iterator by the user's name
        labels.append(user_text(loop_label(scop, dim)))
        if name in names:
            found.append(dim.loop_id)
    if len(found) == 1:
        return found[0]
    if not found:
        raise PolyoptError(f"no loop named {name!r}; the loops are: {', '.join(labels)}")
    raise PolyoptError(f"{name!r} names several loops; use one of: {', '.join(labels)}")


def replay(scop: Scop, deps: Dependences, steps: tuple[Step, ...],
           strict_fp: bool = False) -> tuple[Node, Requests]:
    """Apply ``steps`` to ``scop``'s source order, checking each one (``strict_fp``:
    refuse running a floating-point reduction in parallel or in SIMD lanes)."""
    tree = normalize(scop.schedule)
    req = Requests()
    for step in steps:
        tree, req = apply_step(scop, deps, tree, req, step, strict_fp)
    return tree, req


STRUCTURAL = frozenset({"interchange", "fuse", "distribute", "tile", "skew", "unroll_jam",
                        "align"})


def apply_step(scop: Scop, deps: Dependences, tree: Node, req: Requests, step: Step,
               strict_fp: bool = False) -> tuple[Node, Requests]:
    """``tree`` and ``req`` after ``step``.  A step that changes the loops must also keep
    every earlier parallel, simd and licm request valid."""
    new_tree, new_req = _apply(scop, deps, tree, req, step, strict_fp)
    if step.op in STRUCTURAL and new_req.used:
        new_req = _recheck(scop, deps, new_tree, new_req, step, strict_fp)
    return new_tree, new_req


def _recheck(scop: Scop, deps: Dependences, tree: Node, req: Requests, step: Step,
             strict_fp: bool) -> Requests:
    """``req`` with its loop ids as ``tree`` knows them (fusion makes the second loop's id
    an alias of the first), each request checked again on ``tree``."""
    def canonical(ids: frozenset[str]) -> frozenset[str]:
        return frozenset(dim_of(tree, x).loop_id for x in ids)

    req = Requests(canonical(req.parallel), canonical(req.simd), canonical(req.licm), req.used)
    try:
        for lid in sorted(req.parallel):
            check_parallel(scop, deps, tree, lid, _label(scop, tree, lid), strict_fp)
        for lid in sorted(req.licm):
            check_licm(scop, deps, tree, lid, _label(scop, tree, lid))
        for lid in sorted(req.simd):
            check_vectorize(scop, deps, tree, lid, _label(scop, tree, lid), strict_fp,
                            scalar_replaced=lid in req.licm)
    except IllegalTransformationError as exc:
        raise IllegalTransformationError(
            f"{str(step).lstrip('.')} breaks an earlier request: {exc}", exc.violated) from None
    return req


def _label(scop: Scop, tree: Node, loop_id: str) -> str:
    return loop_label(scop, dim_of(tree, loop_id))


def _apply(scop: Scop, deps: Dependences, tree: Node, req: Requests, step: Step,
           strict_fp: bool) -> tuple[Node, Requests]:
    op, a = step.op, step.args

    def rid(name: str) -> str:
        return resolve(scop, tree, name)

    if op in ("interchange", "fuse") and rid(a[0]) == rid(a[1]):
        raise PolyoptError(f"{op}({a[0]!r}, {a[1]!r}): both name the same loop; "
                           f"{op} takes two different loops")
    if op == "interchange":
        return interchange(scop, deps, tree, rid(a[0]), rid(a[1]), (a[0], a[1])), req
    if op == "fuse":
        return fuse(scop, deps, tree, rid(a[0]), rid(a[1]),
                    what=f"fusing loops {a[0]} and {a[1]}"), req
    if op == "distribute":
        lid = rid(a[0])
        new = distribute(scop, deps, tree, lid)
        parts = frozenset(taken_ids(new) - taken_ids(tree))  # the second and later parts
        # a loop that was asked to run in parallel or in SIMD lanes is, in every part
        return new, Requests(req.parallel | (parts if lid in req.parallel else frozenset()),
                             req.simd | (parts if lid in req.simd else frozenset()),
                             req.licm, req.used)
    if op == "tile":
        names, sizes = list(a[0]), list(a[1])
        return tile(scop, deps, tree, [rid(n) for n in names], sizes,
                    [f"{n}.tile" for n in names]), req
    if op == "skew":
        return skew(scop, deps, tree, rid(a[0]), rid(a[1]), int(a[2])), req
    if op == "align":
        lid = rid(a[0])
        shifts = parallel_alignment(scop, deps, tree, lid)
        if not any(shifts.values()):
            raise PolyoptError(f"loop {a[0]} carries no dependence between its statements that "
                               "a shift would remove: nothing to align")
        return align(scop, deps, tree, lid, shifts), req
    if op == "unroll_jam":
        lid = rid(a[0])
        new = unroll_jam(scop, deps, tree, lid, int(a[1]), f"{a[0]}.uj")
        if lid not in req.parallel:
            return new, req
        # the unrolled copies leave no loop to run in parallel: the strip loop runs instead
        (strips,) = taken_ids(new) - taken_ids(tree)
        return new, Requests((req.parallel - {lid}) | {strips}, req.simd, req.licm, req.used)
    if op == "parallelize":
        lid = rid(a[0])
        check_parallel(scop, deps, tree, lid, a[0], strict_fp)
        return tree, Requests(req.parallel | {lid}, req.simd, req.licm, req.used | {"parallel"})
    if op == "vectorize":
        lid = rid(a[0])
        check_vectorize(scop, deps, tree, lid, a[0], strict_fp, scalar_replaced=lid in req.licm)
        return tree, Requests(req.parallel, req.simd | {lid}, req.licm, req.used | {"simd"})
    if op == "licm":
        lid = rid(a[0])
        check_licm(scop, deps, tree, lid, a[0])
        return tree, Requests(req.parallel, req.simd, req.licm | {lid}, req.used | {"licm"})
    raise PolyoptError(f"unknown schedule step {op!r}")


# the arguments of each step: "loop" a loop name, "loops" a non-empty list of them,
# "sizes" a list of positive ints as long as the loops, "int" an int
_ARITY: dict[str, tuple[str, ...]] = {
    "interchange": ("loop", "loop"), "fuse": ("loop", "loop"), "distribute": ("loop",),
    "tile": ("loops", "sizes"), "skew": ("loop", "loop", "int"), "align": ("loop",),
    "unroll_jam": ("loop", "int"), "parallelize": ("loop",), "vectorize": ("loop",),
    "licm": ("loop",),
}


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def step_problem(op: object, args: tuple[Any, ...]) -> str | None:
    """What is wrong with a step's operation or arguments (None when nothing is)."""
    if not isinstance(op, str) or op not in _ARITY:
        return f"unknown schedule step {op!r} (steps: {', '.join(_ARITY)})"
    kinds = _ARITY[op]
    if len(args) != len(kinds):
        return f"takes {len(kinds)} argument(s), not {len(args)}"
    for k, (kind, x) in enumerate(zip(kinds, args, strict=True), 1):
        if kind == "loop" and not isinstance(x, str):
            return f"argument {k} must be a loop name (a str), not {x!r}"
        if kind == "loops" and (not isinstance(x, (list, tuple)) or not x
                                or not all(isinstance(n, str) for n in x)):
            return f"argument {k} must be a non-empty list of loop names, not {x!r}"
        if kind == "sizes" and (not isinstance(x, (list, tuple))
                                or not all(_is_int(n) for n in x)):
            return f"argument {k} must be a list of int tile sizes, not {x!r}"
        if kind == "int" and not _is_int(x):
            return f"argument {k} must be an int, not {x!r}"
    if op == "tile" and len(args[0]) != len(args[1]):
        return f"{len(args[0])} loops but {len(args[1])} tile sizes"
    if op == "tile":
        problem = tile_sizes_problem(tuple(args[1]))
        if problem is not None:
            return problem[1]
    if op == "skew" and abs(args[2]) > MAX_SKEW_FACTOR:
        return f"the skew factor {args[2]} is larger in magnitude than the maximum, {MAX_SKEW_FACTOR}"
    if op == "unroll_jam" and args[1] < 2:
        return f"the unroll-and-jam factor must be at least 2, not {args[1]!r}"
    if op in ("interchange", "fuse") and args[0] == args[1]:
        return f"both arguments name loop {args[0]!r}; {op} takes two different loops"
    if op == "tile" and len(set(args[0])) != len(args[0]):
        twice = next(n for n in args[0] if list(args[0]).count(n) > 1)
        return f"loop {twice!r} is named twice; tile takes different loops"
    return None


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
        args = tuple(tuple(x) if isinstance(x, list) else x for x in s["args"])
        problem = step_problem(s["op"], args)
        if problem is not None:
            raise ScheduleFormatError(f"step {k} ({s['op']!r}): {problem}")
        steps.append(Step(s["op"], args))
    return tuple(steps)


