"""PolyBench kernels in NumPy style (slices, whole-array statements, ``@``, reductions),
as NPBench writes them: one module per kernel, with ``NAME`` and a ``kernel`` that has
the signature and the effect on ``OUTPUTS`` of the loop nest in ``examples/polybench``
(results are written into the output arguments where NPBench returns them).

Every PolyBench kernel has one.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: PolyBench name -> module name
_MODULES: dict[str, str] = {
    "gemm": "gemm",
    "atax": "atax",
    "bicg": "bicg",
    "mvt": "mvt",
    "gesummv": "gesummv",
    "gemver": "gemver",
    "2mm": "two_mm",
    "3mm": "three_mm",
    "covariance": "covariance",
    "correlation": "correlation",
    "doitgen": "doitgen",
    "jacobi-1d": "jacobi_1d",
    "jacobi-2d": "jacobi_2d",
    "heat-3d": "heat_3d",
    "fdtd-2d": "fdtd_2d",
    "syrk": "syrk",
    "syr2k": "syr2k",
    "trmm": "trmm",
    "symm": "symm",
    "lu": "lu",
    "cholesky": "cholesky",
    "trisolv": "trisolv",
    "ludcmp": "ludcmp",
    "gramschmidt": "gramschmidt",
    "seidel-2d": "seidel_2d",
    "durbin": "durbin",
    "floyd-warshall": "floyd_warshall",
    "adi": "adi",
    "deriche": "deriche",
    "nussinov": "nussinov",
}

#: PolyBench name -> NumPy-style kernel module
KERNELS: dict[str, ModuleType] = {
    name: importlib.import_module(f"{__name__}.{module}") for name, module in _MODULES.items()
}

__all__ = ["KERNELS"]
