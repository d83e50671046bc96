"""``@polyopt.jit``: the decorator, its options, and what it refuses to decorate."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from polyopt.kernel.declared import declared_list
from polyopt.kernel.kernel import METHOD_REFUSAL, Kernel, make_kernel
from polyopt.kernel.threads import check_count
from polyopt.model.options import FuseMode, Options


def jit(fn: Callable[..., Any] | str | list[str] | None = None, *, parallel: bool = True,
        vectorize: bool = True, tile: bool | tuple[int, ...] = True, fuse: FuseMode = "smart",
        interchange: bool = True, licm: bool = True, unroll_jam: bool = True,
        pack: bool = True, fastmath: bool = False, strict_fp: bool = False, auto: bool = True,
        cache: bool = True, fallback: bool = False, num_threads: int | None = None,
        nopython: bool = True, nogil: bool = True, boundscheck: bool | None = None,
        inline: str = "never", error_model: str = "python") -> Any:
    """Compile a loop function to parallel, vectorized C.

    Works bare (``@polyopt.jit``), with options (``@polyopt.jit(parallel=False)``) and,
    as Numba's, with signatures compiled at once (``@polyopt.jit("void(f8[:, :], f8[:])")``
    or a list of them; the kernel then compiles no other types, converting a call's
    scalars to a declared type where they fit):

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
    - ``cache``: reuse builds from the on-disk cache, and write them there (``False``:
      nothing is read from or written to it).  ``fallback``: run the Python function,
      with a warning, when it cannot be compiled.
    - ``num_threads``: run the parallel loops on this many threads (default: the
      calling thread's :func:`polyopt.set_num_threads`, else ``OMP_NUM_THREADS``, else
      one per core).
    - ``nopython``: accepted for Numba's code; the code is always compiled without
      Python objects (``False`` is refused: see ``fallback``).
    - ``nogil``: accepted for Numba's code; the call always releases the GIL while the
      C code runs, so other Python threads run meanwhile.
    - ``boundscheck``, ``inline``, ``error_model="python"``: accepted for Numba's code;
      every call checks its bounds (an ``IndexError`` before any C runs), helpers are
      always inlined, and an int ``//`` or ``%`` by zero raises ``ZeroDivisionError``.
    """
    for name, flag in (("nopython", nopython), ("nogil", nogil), ("boundscheck", boundscheck)):
        if not (isinstance(flag, bool) or (name == "boundscheck" and flag is None)):
            raise TypeError(f"option {name} must be True or False, not {flag!r}")
    _numba_choices(inline, error_model)
    if not nopython:
        raise ValueError("polyopt.jit(nopython=False): polyopt has no object mode; every "
                         "kernel is compiled without Python objects. To run the Python "
                         "function where it cannot be compiled, use fallback=True")
    if num_threads is not None:
        num_threads = check_count(num_threads, "option num_threads")
    declared = None
    if fn is not None and not callable(fn):
        declared = tuple(declared_list(fn))
        fn = None
    options = Options(parallel=parallel, vectorize=vectorize, tile=tile, fuse=fuse,
                      interchange=interchange, licm=licm, unroll_jam=unroll_jam, pack=pack,
                      fastmath=fastmath, strict_fp=strict_fp, auto=auto, cache=cache,
                      fallback=fallback)
    def make(f: Callable[..., Any]) -> Kernel:
        if isinstance(f, Kernel):  # polyopt.jit(kernel, ...): its function, these options
            f = f.py_func
        if not inspect.isfunction(getattr(f, "py_func", f)):
            # a builtin (len), a class (int) or another callable has no Python source: it
            # failed at the first call, inside inspect ("module, class, method, ...")
            raise TypeError(f"polyopt.jit decorates a Python function defined with `def`, "
                            f"not {f!r} (a {type(f).__name__})")
        _refuse_method(f)
        return make_kernel(f, options, num_threads=num_threads, declared=declared)

    return make if fn is None else make(fn)


def _numba_choices(inline: str, error_model: str) -> None:
    """Numba's ``inline`` and ``error_model``, where polyopt does what they ask; its
    ``error_model="numpy"`` (an int division by zero gives 0) polyopt does not do."""
    if inline not in ("never", "always"):
        raise ValueError(f"option inline must be 'never' or 'always' (helpers are always "
                         f"inlined), not {inline!r}")
    if error_model != "python":
        raise ValueError(f"option error_model must be 'python', not {error_model!r}: an int "
                         "// or % by zero raises ZeroDivisionError, as in Python (a float "
                         "division by zero gives inf or nan, as NumPy's does)")


def _refuse_method(fn: Callable[..., Any]) -> None:
    """A function defined in a class body taking ``self`` or ``cls``: a method, which the
    kernel could not bind (its first argument is no array or number)."""
    parts = getattr(fn, "__qualname__", "").split(".")
    params = list(inspect.signature(fn).parameters) if inspect.isfunction(fn) else []
    if len(parts) > 1 and parts[-2] != "<locals>" and params[:1] in (["self"], ["cls"]):
        raise TypeError(METHOD_REFUSAL.format(fn.__qualname__))
