"""``polyopt opt``'s transformation options: the command line to
:class:`~polyopt.model.options.Options`, and the user schedule of ``--schedule``."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from polyopt.cli.errors import EXIT_USAGE, CliError
from polyopt.model.errors import PolyoptError
from polyopt.model.options import Options
from polyopt.scheduler.steps import Step, steps_from_json


def options_from(args: argparse.Namespace, base: Options) -> Options:
    """``base`` with the transformation options given on the command line.

    An option maps to a field of :class:`~polyopt.model.options.Options`; when this version
    has no such field the option is refused (exit status 2), never silently ignored.
    """
    fields = {f.name for f in dataclasses.fields(Options)}
    changes: dict[str, Any] = {}

    def want(field: str, value: object, flag: str) -> None:
        if value is None:
            return
        if field not in fields:
            raise CliError(f"{flag} is not available yet in this version of polyopt", EXIT_USAGE)
        changes[field] = value

    want("tile", args.tile, "--tile/--no-tile")
    if args.tile_sizes is not None:
        if args.tile is False:
            raise CliError("--tile-sizes contradicts --no-tile", EXIT_USAGE)
        want("tile", _sizes(args.tile_sizes), "--tile-sizes")
    want("parallel", args.parallel, "--parallel/--no-parallel")
    want("fuse", args.fuse, "--fuse")
    want("unroll_jam", args.unroll_jam, "--unroll-jam/--no-unroll-jam")
    want("vectorize", args.vectorize, "--vectorize/--no-vectorize")
    want("strict_fp", args.strict_fp, "--strict-fp/--no-strict-fp")
    try:
        return dataclasses.replace(base, **changes)
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def region_defaults() -> Options:
    """A C region keeps its arrays' declared types, so it makes no per-thread copies of
    them (packed panels are new arrays, on the heap in the region's block)."""
    base = Options()
    have = {f.name for f in dataclasses.fields(base)}
    off: dict[str, Any] = {f: False for f in ("array_copies",) if f in have}
    return dataclasses.replace(base, **off)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise CliError(f"--tile-sizes: {text!r} is not a comma-separated list of integers",
                       EXIT_USAGE) from None
    if not sizes or any(s < 1 for s in sizes):
        raise CliError("--tile-sizes: sizes must be positive integers", EXIT_USAGE)
    return sizes


def schedule_steps(args: argparse.Namespace,
                   function: str | None = None) -> tuple[Step, ...] | None:
    """The steps of the ``--schedule`` file (None without one), refused when it was saved
    for another function than ``function`` (when given)."""
    if args.schedule is None:
        return None
    try:
        text = args.schedule.read_bytes()  # JSON's own decoding: bad bytes are a format error
    except OSError as exc:
        raise CliError(f"--schedule: cannot read {args.schedule}: {exc.strerror}") from None
    try:
        return steps_from_json(text, function)
    except (ValueError, KeyError, TypeError, PolyoptError) as exc:
        raise CliError(f"--schedule: {args.schedule} is not a polyopt schedule file ({exc})") \
            from None
