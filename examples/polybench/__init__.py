"""The 30 PolyBench/C 4.2.1 kernels written as plain Python loop nests.

Each kernel lives in its own module (``floyd-warshall`` -> ``floyd_warshall.py``,
``2mm`` -> ``two_mm.py``) and defines:

``NAME``
    The PolyBench name (with dashes, as in PolyBench).
``SIZES``
    ``{"MINI": {...}, "SMALL": {...}, "MEDIUM": {...}, "LARGE": {...}}``: the
    dataset sizes from the kernel's PolyBench header, keyed by the lower-case
    PolyBench parameter names; each dict is the keyword arguments of ``init``.
``OUTPUTS``
    Names of the kernel arguments whose final contents are the result (the
    arrays PolyBench's ``print_array`` dumps).
``init(**sizes, dtype=...)``
    PolyBench's ``init_array``: returns the keyword arguments of ``kernel`` as a
    dict (C-contiguous arrays of ``dtype``; scalars as Python ``float``/``int``).
    Arrays PolyBench leaves uninitialised (temporaries, outputs) are zeroed.
``kernel(...)``
    The loop nest, in the Python subset that ``polyopt`` compiles. It modifies
    its array arguments in place and returns nothing. Under CPython it is the
    reference semantics.
``numpy_version(...)`` (optional)
    A natural NumPy formulation with the same effect on ``OUTPUTS`` (the
    contents of temporaries/scratch arguments are unspecified). Only present
    where a natural one exists.
``init_nondegenerate(**sizes, dtype=...)`` (optional)
    Like ``init``, for kernels whose PolyBench inputs make the result degenerate
    for correctness testing (``heat-3d``: the initial field is a fixed point of
    the stencil; ``gramschmidt``: the matrix has more columns than rows, so part
    of ``Q``/``R`` is amplified rounding noise). Returns well-posed inputs.
``FLOPS(**sizes)`` (optional)
    A rough floating-point (or, for the integer kernels, arithmetic) operation
    count, for GFLOP/s reporting.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# PolyBench name -> (module name, PolyBench category), in PolyBench's order.
_MODULES: dict[str, tuple[str, str]] = {
    "correlation": ("correlation", "datamining"),
    "covariance": ("covariance", "datamining"),
    "gemm": ("gemm", "linear-algebra/blas"),
    "gemver": ("gemver", "linear-algebra/blas"),
    "gesummv": ("gesummv", "linear-algebra/blas"),
    "symm": ("symm", "linear-algebra/blas"),
    "syr2k": ("syr2k", "linear-algebra/blas"),
    "syrk": ("syrk", "linear-algebra/blas"),
    "trmm": ("trmm", "linear-algebra/blas"),
    "2mm": ("two_mm", "linear-algebra/kernels"),
    "3mm": ("three_mm", "linear-algebra/kernels"),
    "atax": ("atax", "linear-algebra/kernels"),
    "bicg": ("bicg", "linear-algebra/kernels"),
    "doitgen": ("doitgen", "linear-algebra/kernels"),
    "mvt": ("mvt", "linear-algebra/kernels"),
    "cholesky": ("cholesky", "linear-algebra/solvers"),
    "durbin": ("durbin", "linear-algebra/solvers"),
    "gramschmidt": ("gramschmidt", "linear-algebra/solvers"),
    "lu": ("lu", "linear-algebra/solvers"),
    "ludcmp": ("ludcmp", "linear-algebra/solvers"),
    "trisolv": ("trisolv", "linear-algebra/solvers"),
    "deriche": ("deriche", "medley"),
    "floyd-warshall": ("floyd_warshall", "medley"),
    "nussinov": ("nussinov", "medley"),
    "adi": ("adi", "stencils"),
    "fdtd-2d": ("fdtd_2d", "stencils"),
    "heat-3d": ("heat_3d", "stencils"),
    "jacobi-1d": ("jacobi_1d", "stencils"),
    "jacobi-2d": ("jacobi_2d", "stencils"),
    "seidel-2d": ("seidel_2d", "stencils"),
}

#: PolyBench name -> category ("datamining", "linear-algebra/blas", ..., "stencils").
CATEGORIES: dict[str, str] = {name: category for name, (_, category) in _MODULES.items()}


def load(name: str) -> ModuleType:
    """Return the kernel module for a PolyBench name (``"floyd-warshall"``).

    The module name (``"floyd_warshall"``, ``"two_mm"``) is accepted as well.
    """
    if name in _MODULES:
        module_name = _MODULES[name][0]
    elif name in {module for module, _ in _MODULES.values()}:
        module_name = name
    else:
        raise KeyError(f"unknown PolyBench kernel {name!r}; known: {', '.join(_MODULES)}")
    return importlib.import_module(f"{__name__}.{module_name}")


#: PolyBench name -> kernel module, for all 30 kernels.
KERNELS: dict[str, ModuleType] = {name: load(name) for name in _MODULES}

__all__ = ["CATEGORIES", "KERNELS", "load"]
