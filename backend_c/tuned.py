"""Tuned options stored beside the cache index: what ``polyopt.tune`` chose for one
kernel specialization, so that later calls with the same signature build with it.

An entry is ``tuned/<front key>.json``, keyed like the index entry of the untuned
build (:mod:`polyopt.backend_c.index`): the function's source, signature, options,
globals and toolchain.  It holds the chosen :class:`Options`, the parallel threshold
(statement instances under which a call runs on one thread) and the SHA-256 of both.
It is published atomically and checked on load like an index entry; an entry that
fails a check is ignored and removed, with a warning, and the default options apply.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from polyopt.backend_c import build
from polyopt.backend_c.index import publish

from polyopt.model.errors import warn_user
from polyopt.model.options import Options

TUNED_VERSION = 1
#: options that do not change the generated code: never part of a tuned choice
_NOT_TUNED = {"cache", "fallback"}
#: the options polyopt.tune searches (polyopt.tuner.space); a choice keeps the kernel's own
#: value of every other one (fastmath, strict_fp, parallel...: they decide its results)
TUNED_OPTIONS = ("fuse", "tile", "unroll_jam")
_MAX_THRESHOLD = 2**62


@dataclass(frozen=True)
class Choice:
    """The options a kernel is built with, and its parallel threshold."""

    options: Options
    parallel_min: int

    def to_json(self) -> dict[str, Any]:
        return {"options": options_to_json(self.options), "parallel_min": self.parallel_min}


class BadChoice(ValueError):
    """A tuned entry or file that cannot be trusted (the message says why)."""


def options_to_json(options: Options) -> dict[str, Any]:
    """The code-changing fields of ``options`` as JSON values (tuples become lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(options).items()
            if k not in _NOT_TUNED}


def choice_from_json(data: object, base: Options) -> Choice:
    """A :class:`Choice` from what :meth:`Choice.to_json` writes: every field checked as
    :class:`Options` checks it, ``base``'s ``cache`` and ``fallback`` kept.  Only the
    :data:`TUNED_OPTIONS` may differ from ``base``'s."""
    if not (isinstance(data, dict) and set(data) == {"options", "parallel_min"}):
        raise BadChoice("not a tuned choice (options, parallel_min)")
    opts, threshold = data["options"], data["parallel_min"]
    names = {f.name for f in fields(Options)} - _NOT_TUNED
    if not (isinstance(opts, dict) and set(opts) == names):
        raise BadChoice(f"the options must have exactly the fields {', '.join(sorted(names))}")
    if not (isinstance(threshold, int) and not isinstance(threshold, bool)
            and 0 <= threshold <= _MAX_THRESHOLD):
        raise BadChoice(f"parallel_min must be an int from 0 to 2**62, not {threshold!r}")
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()}
    try:
        options = Options(**values, cache=base.cache, fallback=base.fallback)
    except (TypeError, ValueError) as exc:
        raise BadChoice(str(exc)) from None
    other = [f.name for f in fields(Options) if f.name not in TUNED_OPTIONS
             and getattr(options, f.name) != getattr(base, f.name)]
    if other:
        raise BadChoice(
            "tuned with " + ", ".join(f"{k}={getattr(options, k)!r}" for k in other)
            + ", but the kernel has " + ", ".join(f"{k}={getattr(base, k)!r}" for k in other)
            + f"; a tuning result changes only {', '.join(TUNED_OPTIONS)} and the parallel "
            "threshold (tune the kernel with its own options)")
    return Choice(options, threshold)


def _path(front: str) -> Path:
    return build.cache_root() / "tuned" / f"{front}.json"


def _digest(choice: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(choice, sort_keys=True).encode()).hexdigest()


def store(front: str, choice: Choice) -> None:
    """Publish the choice for the specialization keyed ``front``, atomically."""
    body = choice.to_json()
    entry = {"version": TUNED_VERSION, "choice": body, "sha256": _digest(body)}
    publish(_path(front), json.dumps(entry, indent=1))


def load(front: str, base: Options) -> Choice | None:
    """The stored choice for ``front``, or None (none, or a bad one: removed, with a
    warning)."""
    path = _path(front)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return _check(text, base)
    except BadChoice as exc:
        warn_user(f"polyopt: ignoring the tuned options {path} ({exc}); building with "
                  "the default options")
        try:
            path.unlink()
        except OSError:
            pass
        return None


def _check(text: str, base: Options) -> Choice:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadChoice(f"not JSON: {exc}") from None
    if not (isinstance(data, dict) and set(data) == {"version", "choice", "sha256"}):
        raise BadChoice("not a tuned entry")
    if data["version"] != TUNED_VERSION:
        raise BadChoice("another version's entry")
    if not isinstance(data["choice"], dict) or data["sha256"] != _digest(data["choice"]):
        raise BadChoice("SHA-256 mismatch")
    return choice_from_json(data["choice"], base)
