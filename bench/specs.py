"""What the harness needs to know about one kernel, whichever suite it comes from.

A :class:`KernelSpec` is built from a PolyBench module in ``examples/polybench``
or from a target kernel in :mod:`bench.kernels`, and is identified by
``(suite, name)`` so that worker processes can load it again by name.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # examples/ is a directory of the checkout, not installed
    sys.path.append(str(ROOT))  # after the installed polyopt

#: The output name that stands for the function's return value.
RETURN = "<return>"
#: The dataset of the target kernels' timed runs.
TARGET = "TARGET"


@dataclass(frozen=True)
class KernelSpec:
    suite: str  # "polybench" | "targets"
    name: str
    category: str
    kernel: Callable[..., Any]
    numpy_version: Callable[..., Any] | None
    sizes: Mapping[str, Mapping[str, int]]
    init: Callable[..., dict[str, Any]]  # the timed inputs
    init_check: Callable[..., dict[str, Any]]  # the inputs the correctness checks use
    outputs: tuple[str, ...]  # argument names, or RETURN
    flops: Callable[..., int] | None = None

    @property
    def params(self) -> list[str]:
        """The kernel's parameter names, in order (the positional calling convention)."""
        return list(inspect.signature(self.kernel).parameters)

    def args(self, size: str, *, check: bool = False) -> dict[str, Any]:
        """Fresh inputs for dataset ``size`` (the checking inputs when ``check``)."""
        return (self.init_check if check else self.init)(**self.sizes[size])

    def positional(self, args: Mapping[str, Any]) -> list[Any]:
        return [args[p] for p in self.params]

    def flop_count(self, size: str) -> int | None:
        return None if self.flops is None else int(self.flops(**self.sizes[size]))

    def statement_count(self) -> int:
        """Assignments in the kernel's source: the measure of a kernel's size."""
        tree = ast.parse(inspect.getsource(self.kernel))
        return sum(isinstance(n, (ast.Assign, ast.AugAssign)) for n in ast.walk(tree))


def outputs_of(spec: KernelSpec, args: Mapping[str, Any], returned: Any) -> dict[str, np.ndarray]:
    """The result of one run: the output arrays (copied) and the return value."""
    out: dict[str, np.ndarray] = {}
    for name in spec.outputs:
        value = returned if name == RETURN else args[name]
        out[name] = np.array(value, copy=True)
    return out


def polybench_names() -> list[str]:
    """All PolyBench kernels, in PolyBench's order."""
    from examples.polybench import KERNELS

    return list(KERNELS)


def _polybench_spec(name: str) -> KernelSpec:
    from examples.polybench import CATEGORIES, KERNELS

    mod = KERNELS[name]
    init = mod.init
    return KernelSpec(
        suite="polybench", name=name, category=CATEGORIES[name], kernel=mod.kernel,
        numpy_version=getattr(mod, "numpy_version", None), sizes=mod.SIZES, init=init,
        init_check=getattr(mod, "init_nondegenerate", init), outputs=tuple(mod.OUTPUTS),
        flops=getattr(mod, "FLOPS", None),
    )


def _with_mini(target: dict[str, int], mini: dict[str, int]) -> dict[str, dict[str, int]]:
    return {"MINI": mini, TARGET: target}


def _target_specs() -> dict[str, KernelSpec]:
    from bench import kernels as k

    def spec(name: str, category: str, fn: Callable[..., Any], np_fn: Callable[..., Any],
             init: Callable[..., dict[str, Any]], flops: Callable[..., int],
             sizes: dict[str, dict[str, int]], outputs: tuple[str, ...]) -> KernelSpec:
        return KernelSpec("targets", name, category, fn, np_fn, sizes, init, init, outputs, flops)

    return {
        "gemm": spec("gemm", "gemm N=1024 f64, written i,j,k", k.gemm_ijk, k.numpy_gemm,
                     k.init_gemm, k.flops_gemm, _with_mini({"n": 1024}, {"n": 37}), ("C",)),
        "mm-exp-mm": spec("mm-exp-mm", "matmul->exp->matmul f32", k.mm_exp_mm,
                          k.numpy_mm_exp_mm, k.init_mm_exp_mm, k.flops_mm_exp_mm,
                          _with_mini({"m": 512, "k": 1024, "l": 512, "n": 1024},
                                     {"m": 9, "k": 17, "l": 13, "n": 11}), (RETURN,)),
        "jacobi-2d": spec("jacobi-2d", "jacobi-2d N=1300, 100 steps", k.jacobi_2d,
                          k.numpy_jacobi_2d, k.init_jacobi_2d, k.flops_jacobi_2d,
                          _with_mini({"n": 1300, "tsteps": 100}, {"n": 23, "tsteps": 6}),
                          ("A", "B")),
        "rowsum-scale": spec("rowsum-scale", "row-sum -> scale 4096x4096", k.rowsum_scale,
                             k.numpy_rowsum_scale, k.init_rowsum_scale, k.flops_rowsum_scale,
                             _with_mini({"n": 4096}, {"n": 29}), ("out",)),
    }


def target_names() -> list[str]:
    return list(_target_specs())


def load_spec(suite: str, name: str) -> KernelSpec:
    """The spec of kernel ``name`` of ``suite`` ("polybench" or "targets")."""
    if suite == "polybench":
        return _polybench_spec(name)
    if suite == "targets":
        return _target_specs()[name]
    if suite == "polybench-numpy":  # the kernel written as NumPy array code
        from examples.polybench_numpy import KERNELS

        return dataclasses.replace(_polybench_spec(name), kernel=KERNELS[name].kernel)
    raise KeyError(f"unknown suite {suite!r}")


__all__ = ["KernelSpec", "RETURN", "TARGET", "load_spec", "outputs_of", "polybench_names",
           "target_names"]
