"""The options of ``@polyopt.jit`` and ``polyopt opt``: one frozen, typed record."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Options:
    parallel: bool = True  # OpenMP `parallel for` on outer parallel loops
    vectorize: bool = True  # `omp simd` on vectorizable innermost loops
    tile: bool | tuple[int, ...] = True  # tile bands with reuse (sizes from a cache model)
    fuse: str = "smart"  # "smart" | "max" | "none"
    interchange: bool = True  # reorder loops for parallelism and unit stride
    licm: bool = True  # keep invariant accumulators in registers
    contract: bool = True  # shrink temporaries that live within one iteration to scalars
    unroll_jam: bool = True  # register tiling (unroll-and-jam) of matmul-like reductions
    pack: bool = True  # ...and their column operands copied into contiguous panels
    # the generated code may allocate arrays of its own: a heap copy per thread (private
    # scratch arrays, array reductions), a scalar expanded into an array; a C region's
    # arrays keep their declared types and it declares none, so it may not
    array_copies: bool = True
    fastmath: bool = False  # compile with -ffast-math
    strict_fp: bool = False  # never reassociate floating point (no parallel/simd reductions)
    auto: bool = True  # False: keep the source's loop order (only marks are added)
    cache: bool = True  # reuse builds from the on-disk cache
    fallback: bool = False  # run the Python function (with a warning) when it cannot compile

    def __post_init__(self) -> None:
        if self.fuse not in ("smart", "max", "none"):
            raise ValueError(f"fuse must be 'smart', 'max' or 'none', not {self.fuse!r}")
        if isinstance(self.tile, tuple) and (not self.tile or any(
                not isinstance(t, int) or t < 1 for t in self.tile)):
            raise ValueError(f"tile sizes must be positive integers, not {self.tile!r}")

    def key(self) -> str:
        """The options that change generated code, as a stable string."""
        d = asdict(self)
        d.pop("cache")
        d.pop("fallback")
        return ",".join(f"{k}={v}" for k, v in sorted(d.items()))
