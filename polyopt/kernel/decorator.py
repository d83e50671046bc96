"""``@polyopt.jit``: the decorator, its options, and what it refuses to decorate."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from polyopt.kernel.kernel import METHOD_REFUSAL, Kernel
from polyopt.model.options import FuseMode, Options


def jit(fn: Callable[..., Any] | None = None, *, parallel: bool = True, vectorize: bool = True,
        tile: bool | tuple[int, ...] = True, fuse: FuseMode = "smart", interchange: bool = True,
        licm: bool = True, unroll_jam: bool = True, pack: bool = True, fastmath: bool = False,
        strict_fp: bool = False, auto: bool = True, cache: bool = True,
        fallback: bool = False) -> Any:
    """Compile a loop function to parallel, vectorized C.

    Works bare (``@polyopt.jit``) and with options (``@polyopt.jit(parallel=False)``):

    - ``parallel``: OpenMP ``parallel for`` on the outermost parallel loops.
    - ``vectorize``: ``omp simd`` on vectorizable innermost loops.
    - ``tile``: tile bands that carry reuse (``True``: sizes from a cache model, or a
      tuple of sizes).
    - ``fuse``: ``"smart"`` (loops that share data, keeping parallelism), ``"max"``
      (whenever legal) or ``"none"``.
    - ``interchange``: reorder loops for outer parallelism and unit stride.
    - ``licm``: keep invariant accumulators in registers.
    - ``unroll_jam``: register-tile matmul-like reductions (unroll-and-jam).
    - ``pack``: with ``unroll_jam``, copy a matmul's column operand into contiguous
      panels first (a temporary the size of that operand).
    - ``fastmath``: compile with ``-ffast-math``.
    - ``strict_fp``: never reassociate floating-point operations (no parallel or
      vectorized reductions of floats).  By default reductions are reassociated, as
      OpenMP and Numba users expect; results then match Python within rounding.
    - ``auto``: ``False`` keeps the source's loop order.
    - ``cache``: reuse builds from the on-disk cache.  ``fallback``: run the Python
      function, with a warning, when it cannot be compiled.
    """
    options = Options(parallel=parallel, vectorize=vectorize, tile=tile, fuse=fuse,
                      interchange=interchange, licm=licm, unroll_jam=unroll_jam, pack=pack,
                      fastmath=fastmath, strict_fp=strict_fp, auto=auto, cache=cache,
                      fallback=fallback)
    if fn is None:
        return lambda f: Kernel(f, options)
    if not callable(fn):
        raise TypeError("polyopt.jit decorates a function")
    _refuse_method(fn)
    return Kernel(fn, options)


def _refuse_method(fn: Callable[..., Any]) -> None:
    """A function defined in a class body taking ``self`` or ``cls``: a method, which the
    kernel could not bind (its first argument is no array or number)."""
    parts = getattr(fn, "__qualname__", "").split(".")
    params = list(inspect.signature(fn).parameters) if inspect.isfunction(fn) else []
    if len(parts) > 1 and parts[-2] != "<locals>" and params[:1] in (["self"], ["cls"]):
        raise TypeError(METHOD_REFUSAL.format(fn.__qualname__))
