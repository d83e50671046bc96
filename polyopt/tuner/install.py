"""Replaying a tuning result: the options it chose, stored for its function's signature
so that ``@polyopt.jit`` calls of that signature build with them."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polyopt.backend_c import tuned
from polyopt.backend_c.tuned import choice_from_json
from polyopt.model.errors import warn_user
from polyopt.model.signature import parse_signature
from polyopt.tuner.result import TuneResult
from polyopt.tuner.search import as_kernel


def load(source: str | Path | TuneResult, fn: Callable[..., Any]) -> TuneResult:
    """Apply a tuning result (a JSON file written from :meth:`TuneResult.to_json`, that
    JSON text, or the result itself) to ``fn``: specializations of its signature compiled from now on use
    the chosen options.  The result must be ``fn``'s (same name); a bad file raises a
    ``ValueError`` that says what is wrong."""
    kernel = as_kernel(fn)
    if kernel.steps is not None:  # as polyopt.tune refuses to tune one
        raise ValueError(f"polyopt.tune.load: tuned options apply to the automatic schedule; "
                         f"{kernel.__name__} follows a user schedule (polyopt.schedule)")
    if isinstance(source, TuneResult):
        # checked as a file is: its options other than the tuned ones must be the kernel's
        chosen = choice_from_json(source.chosen.to_json(), kernel.options)
        choice_from_json(source.default.to_json(), kernel.options)
        result = source
    else:
        result = TuneResult.from_json(_text(source), kernel.options)
        chosen = result.chosen
    if result.function != kernel.__name__:
        raise ValueError(f"the tuning result is for {result.function}(), not "
                         f"{kernel.__name__}()")
    names = list(inspect.signature(kernel.py_func).parameters)
    sig = parse_signature(result.signature, names)
    front = kernel.cache_key(sig)
    if front is None:
        warn_user(f"polyopt.tune.load: {kernel.__name__} does not use the disk cache "
                  "(cache=False), where tuned options are kept; not applied")
        return result
    tuned.store(front, chosen)
    return result


def _text(source: str | Path) -> bytes:
    """A tuning result's JSON: the file ``source`` names or, for a string naming no file,
    the JSON text itself, as Schedule.from_json takes it."""
    if isinstance(source, str) and not source.strip():
        raise ValueError("polyopt.tune.load: an empty string is neither a file name nor JSON")
    if isinstance(source, str):
        if source.lstrip().startswith(("{", "[")):
            return source.encode()  # JSON text, valid or not (no file name starts so)
        try:
            json.loads(source)
        except ValueError:
            pass  # a file name: reading it says so where there is no such file
        else:
            try:
                named = Path(source).is_file()  # a file called "1" or "null"
            except OSError:  # text too long for a file name
                named = False
            if not named:
                return source.encode()
    return Path(source).read_bytes()
