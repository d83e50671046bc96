"""polyopt: an affine polyhedral loop optimizer.

Python loops over NumPy arrays (``@polyopt.jit``) and C ``#pragma scop``
regions (the ``polyopt`` command) become parallel, vectorized C, with exact
dependence analysis explaining which loops can run in parallel and why.

The layers, each importing only those below it: ``model`` (the program),
``analysis`` (dependences, legality, loop verdicts), ``transforms``,
``scheduler``, then the faces: ``kernel`` (``@polyopt.jit``), ``user_schedule``
(``polyopt.schedule``), ``report`` and ``cli``.
The faces load on first use, so that ``import polyopt.model`` needs neither
cffi nor NumPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from polyopt.model.errors import (
    ArgumentTypeError,
    CompileError,
    IllegalTransformationError,
    InternalError,
    PolyoptError,
    ScheduleFormatError,
    TooComplexError,
    UnsupportedError,
)

if TYPE_CHECKING:
    from polyopt.kernel import Kernel, get_num_threads, jit, set_num_threads
    from polyopt.model.prange import prange
    from polyopt.tuner import tune
    from polyopt.user_schedule import Schedule, schedule

__version__ = "0.1.0"

#: the faces, imported when first used: name -> module
_LAZY = {"jit": "polyopt.kernel", "Kernel": "polyopt.kernel",
         "set_num_threads": "polyopt.kernel", "get_num_threads": "polyopt.kernel",
         "schedule": "polyopt.user_schedule", "Schedule": "polyopt.user_schedule",
         "tune": "polyopt.tuner", "prange": "polyopt.model.prange"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'polyopt' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "ArgumentTypeError",
    "CompileError",
    "IllegalTransformationError",
    "InternalError",
    "Kernel",
    "Schedule",
    "PolyoptError",
    "ScheduleFormatError",
    "TooComplexError",
    "UnsupportedError",
    "get_num_threads",
    "jit",
    "prange",
    "schedule",
    "set_num_threads",
    "tune",
]
