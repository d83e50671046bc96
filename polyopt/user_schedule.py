"""User-directed schedules: an immutable, replayable list of checked steps.

::

    s = polyopt.schedule(kernel)                  # the source order
    s = s.interchange("j", "k").tile(["i", "k"], [64, 64]).parallelize("i.tile")
    print(s)                                       # the steps, replayable as Python
    fast = s.compile()                             # a callable like @polyopt.jit's

Every step is proven legal against the exact dependences when it is added
(for the types inferred from the code) and again when a signature is compiled;
an illegal step raises :class:`~polyopt.IllegalTransformationError` naming the
dependence.  Loops are named by their source iterator (``"i"``), by
``"i@12"`` (line 12) when two loops share a name, by the names transformations
give (``"i.tile"``, ``"i#2"`` for the second part of a distributed loop), or by
loop id (``"L0"``).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from polyopt.analysis.dependences import Dependences, analyze
from polyopt.frontends.python import parse_function
from polyopt.kernel import Kernel, jit
from polyopt.model.errors import IllegalTransformationError, PolyoptError
from polyopt.model.schedule_tree import Node
from polyopt.model.scop import Scop
from polyopt.scheduler.applied import Record
from polyopt.scheduler.pipeline import automatic
from polyopt.scheduler.replay import Requests, Source, apply_step, step_names
from polyopt.scheduler.steps import (
    Align,
    Distribute,
    Fuse,
    Interchange,
    Licm,
    Parallelize,
    ReductionInterchange,
    Skew,
    StartAuto,
    Step,
    Tile,
    UnrollJam,
    Vectorize,
    prange_requests,
    replay,
    steps_from_json,
    steps_to_json,
)


class Schedule:
    """An immutable user schedule for one :class:`~polyopt.kernel.Kernel`.

    Steps apply to the function as written (its source order and exact
    dependences), or, after ``start="auto"`` (a first step :class:`StartAuto`), to the
    automatic schedule: promotion, index-set splitting, time tiling, register tiling,
    packing and contraction have no user step, so that schedule is the base the
    steps apply on top of, not a list of steps.  The kernel's ``strict_fp`` option is
    honoured when parallel and simd requests are checked.
    """

    def __init__(self, kernel: Kernel, steps: tuple[Step, ...] = (),
                 _source: tuple[Scop, Dependences, Node | None] | None = None,
                 _prefix: Schedule | None = None) -> None:
        self.kernel = kernel
        self.steps = steps
        self._source = _source or _source_of(kernel, _starts_auto(steps))
        # checks every step; ``_stepped``: the program, tree and requests before the
        # prange requests
        self._stepped, (self._at, self.tree, self.requests) = self._replay(
            kernel.options.strict_fp, _prefix)

    def _replay(self, strict_fp: bool, prefix: Schedule | None = None
                ) -> tuple[tuple[Source, Node, Requests], tuple[Source, Node, Requests]]:
        """Replay the steps, then each ``prange`` loop's request to run in parallel, as the
        compiled kernel does: a step that makes a ``prange`` illegal (or fuses it away) is
        refused when it is added, not when the schedule is compiled.  ``prefix``: this
        schedule less its last step, whose replay is taken up from where it ended (a
        replay is a fold over the steps)."""
        scop, deps, base = self._source
        pranges = prange_requests(scop)
        try:
            if prefix is not None and prefix._stepped[0].strict_fp == strict_fp:
                at, tree, req = apply_step(*prefix._stepped, self.steps[-1])
            else:
                at, tree, req = replay(scop, deps, self._own_steps, strict_fp, base)
            stepped = (at, tree, req)
            for p in pranges:
                at, tree, req = apply_step(at, tree, req, p)
            return stepped, (at, tree, req)
        except PolyoptError as exc:
            if not pranges:
                raise
            why = (f"{exc} (steps are checked with the requests of the prange loops "
                   f"{', '.join(p.loop for p in pranges)} to run in parallel)")
            if isinstance(exc, IllegalTransformationError):
                raise IllegalTransformationError(why, exc.violated) from None
            raise PolyoptError(why) from None

    @property
    def _own_steps(self) -> tuple[Step, ...]:
        """The steps after ``start="auto"``'s."""
        return self.steps[1:] if _starts_auto(self.steps) else self.steps

    @property
    def scop(self) -> Scop:
        """The program :attr:`tree` schedules: the function as written, or as the
        automatic scheduler or a reduction interchange rewrote it."""
        return self._at.scop

    def _then(self, step: type[Step], *args: Any) -> Schedule:
        # the step checks its arguments (ScheduleFormatError), replaying it its legality
        plain = tuple(_plain_ints(a) for a in args)
        return Schedule(self.kernel, (*self.steps, step(*plain)), self._source, self)

    def interchange(self, a: str, b: str) -> Schedule:
        """Swap two perfectly nested loops."""
        return self._then(Interchange, a, b)

    def reduction_interchange(self, outer: str, inner: str) -> Schedule:
        """Swap the reduction loop ``inner`` with the loop ``outer`` around it, for
        ``inner``'s own statements only: the updates of each element then run in another
        order, legal for exact reductions (integer ``max``, ``min``, ``+``, ``*``)."""
        return self._then(ReductionInterchange, outer, inner)

    def fuse(self, a: str, b: str) -> Schedule:
        """Fuse two consecutive sibling loops (shifting the second when needed)."""
        return self._then(Fuse, a, b)

    def distribute(self, loop: str) -> Schedule:
        """Split a loop around each part of its body (parts after the first are ``<loop>#2``...)."""
        return self._then(Distribute, loop)

    def tile(self, loops_: list[str] | tuple[str, ...] | str,
             sizes: list[int] | tuple[int, ...] | int) -> Schedule:
        """Tile perfectly nested loops; tile loops are named ``<loop>.tile``."""
        sizes = _plain_ints(sizes)
        names = (loops_,) if isinstance(loops_, str) else tuple(loops_) \
            if isinstance(loops_, (list, tuple)) else loops_
        sz = (sizes,) if isinstance(sizes, int) and not isinstance(sizes, bool) else \
            tuple(sizes) if isinstance(sizes, (list, tuple)) else sizes
        if isinstance(sizes, int) and not isinstance(sizes, bool) and isinstance(names, tuple):
            sz = (sizes,) * len(names)  # one size for every loop
        return self._then(Tile, names, sz)

    def skew(self, outer: str, inner: str, factor: int = 1) -> Schedule:
        """Make ``inner`` run over ``inner + factor * outer``."""
        return self._then(Skew, outer, inner, factor)

    def align(self, loop: str) -> Schedule:
        """Shift the statements of ``loop`` against one another so that each dependence
        between them falls inside one iteration: the loop then carries none of them and
        can run in parallel or in SIMD lanes without being distributed."""
        return self._then(Align, loop)

    def unroll_jam(self, loop: str, factor: int) -> Schedule:
        """Unroll ``loop`` by ``factor`` and jam the copies into the innermost loop."""
        return self._then(UnrollJam, loop, factor)

    def parallelize(self, loop: str) -> Schedule:
        """Run ``loop`` as ``omp parallel for`` (a reduction gets a reduction clause)."""
        return self._then(Parallelize, loop)

    def vectorize(self, loop: str) -> Schedule:
        """Mark the innermost ``loop`` ``omp simd``."""
        return self._then(Vectorize, loop)

    def licm(self, loop: str) -> Schedule:
        """Keep the innermost loop's invariant accumulator in a register."""
        return self._then(Licm, loop)

    def loops(self) -> list[str]:
        """The loops of the current schedule, by the names steps accept."""
        return step_names(self.scop, self.tree)

    def compile(self, **options: Any) -> Kernel:
        """A callable kernel that runs this schedule (compiled per signature).

        ``options`` override the kernel's, and the steps are checked again under them
        (``strict_fp=True`` refuses a requested parallel floating-point reduction).
        """
        opts = replace(self.kernel.options, **options) if options else self.kernel.options
        if opts.strict_fp != self.kernel.options.strict_fp:
            self._replay(opts.strict_fp)
        return Kernel(self.kernel.py_func, opts, steps=self.steps)

    def __str__(self) -> str:
        name = getattr(self.kernel, "__name__", "kernel")
        start = ', start="auto"' if _starts_auto(self.steps) else ""
        return f"polyopt.schedule({name}{start})" + "".join(str(s) for s in self._own_steps)

    __repr__ = __str__

    def to_json(self) -> str:
        """The steps as JSON, for :meth:`from_json` and ``polyopt opt --schedule``."""
        return steps_to_json(self.steps, getattr(self.kernel, "__name__", ""))

    @staticmethod
    def from_json(kernel: Kernel | Callable[..., Any], text: str) -> Schedule:
        """The schedule :meth:`to_json` saved, for a function or a ``@polyopt.jit`` kernel."""
        k = _kernel_of(kernel)
        return Schedule(k, steps_from_json(text, getattr(k, "__name__", None)))


def _kernel_of(fn: object) -> Kernel:
    if isinstance(fn, Kernel):
        return fn
    if not inspect.isfunction(fn):
        raise TypeError("polyopt.schedule takes a function or a @polyopt.jit kernel, "
                        f"not {type(fn).__name__}")
    kernel: Kernel = jit(fn)
    return kernel


def _plain_ints(x: Any) -> Any:
    """``x`` with NumPy ints (``np.int64(32)``, what ``A.shape[0] // 4`` of a NumPy
    size is) as Python ints, in a list or tuple too, as the decorator's ``tile=`` takes
    them; a step keeps Python ints only, which its JSON can hold."""
    if isinstance(x, bool):  # refused by the step, as True is no size
        return x
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain_ints(v) for v in x)
    return x


def _starts_auto(steps: tuple[Step, ...]) -> bool:
    return bool(steps) and isinstance(steps[0], StartAuto)


def _source_of(kernel: Kernel, auto: bool) -> tuple[Scop, Dependences, Node | None]:
    """The function as written and its dependences (no contraction, no automatic schedule),
    or with ``auto`` the program and schedule the automatic scheduler made of it."""
    scop = parse_function(kernel.py_func, kernel.analysed_signature)
    deps = analyze(scop)
    if not auto:
        return scop, deps, None
    return automatic(scop, deps, kernel.options, Record())


def schedule(fn: Kernel | Callable[..., Any], start: str = "source") -> Schedule:
    """Start a user schedule from a function or a ``@polyopt.jit`` kernel: from its
    source order (``start="source"``) or from the automatic schedule (``"auto"``)."""
    if start not in ("source", "auto"):
        raise ValueError(f'start must be "source" or "auto", not {start!r}')
    return Schedule(_kernel_of(fn), (StartAuto(),) if start == "auto" else ())
