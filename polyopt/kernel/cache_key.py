"""The disk-cache index key of a kernel specialization: a hash of everything that changes
its generated C or the build of it, so that a warm process goes from the function's
source text straight to the library."""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polyopt.backend_c
import polyopt.frontends
from polyopt.backend_c import build
from polyopt.backend_c.work import parallel_min_instances
from polyopt.frontends.python_environment import helper_sources
from polyopt.kernel.globals_watch import referenced_values
from polyopt.model import target
from polyopt.model.options import Options
from polyopt.model.signature import Signature

if TYPE_CHECKING:  # a warm start computes the key without the scheduler
    from polyopt.scheduler.steps import Step


def front_key(fn: Callable[..., Any], sig: Signature, options: Options,
              steps: tuple[Step, ...] | None, tc: build.Toolchain) -> str | None:
    """The index key of ``fn`` compiled for ``sig``; None when its source is unknown."""
    try:
        # the inlined helpers' sources too: editing a helper changes its callers' C
        source = inspect.getsource(fn) + helper_sources(fn)
    except (OSError, TypeError):
        return None
    h = hashlib.sha256()
    for part in (polyopt_digest(), source, str(sig), options.key(),
                 "" if steps is None else repr(steps),
                 repr(referenced_values(fn)), repr(target.vector_unit()),
                 str(parallel_min_instances()), build.FORMAT_VERSION,
                 tc.identity, " ".join(tc.compiler), " ".join(tc.flags)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def polyopt_digest() -> str:
    """A hash of polyopt's own code: a new version never reuses old cache entries."""
    h = hashlib.sha256()
    for d in (Path(__file__).resolve().parents[1], *(Path(p.__path__[0]) for p in (
            polyopt.frontends, polyopt.backend_c))):
        for f in sorted(d.rglob("*.py")):
            h.update(f.read_bytes())
    return h.hexdigest()
