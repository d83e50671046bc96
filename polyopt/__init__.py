"""polyopt: an affine polyhedral loop optimizer.

Python loops over NumPy arrays (``@polyopt.jit``) and C ``#pragma scop``
regions (the ``polyopt`` command) become parallel, vectorized C, with exact
dependence analysis explaining which loops can run in parallel and why.
"""

from polyopt.errors import (
    ArgumentTypeError,
    CompileError,
    IllegalTransformationError,
    InternalError,
    PolyoptError,
    ScheduleFormatError,
    TooComplexError,
    UnsupportedError,
)
from polyopt.jit import Kernel, jit
from polyopt.schedule import Schedule, schedule

__version__ = "0.1.0"

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
    "jit",
    "schedule",
]
