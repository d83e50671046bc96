"""The options of ``@polyopt.jit`` and ``polyopt opt``: one frozen, typed record.

Every option's type is checked when the record is made: a ``TypeError`` or a
``ValueError`` naming the option, never a value silently read as something else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Literal, SupportsIndex, TypeGuard, get_args

# Tile sizes and unroll-and-jam factors polyopt accepts.  A tile larger than its loop
# is one tile; beyond 2**31 - 1 the tile loops' bounds would come near the 64-bit range
# the generated code computes in.  An unroll-and-jam factor is the number of copies of
# the loop body written out, so it stays small (a larger one is clamped to the loop's
# extent when that is a known constant).
MAX_TILE_SIZE = 2**31 - 1
MAX_UNROLL_FACTOR = 64
# ...and the copies of one statement that all unroll-and-jams together write out: 128
# for the AVX-512 float register tile (8 x 16); 64 x 64 made gcc run for minutes
MAX_UNROLL_COPIES = 256
# a skew multiplies an outer iterator into an inner loop's bounds: a factor this small
# keeps them far inside the 64-bit range (useful factors are 1 to a few)
MAX_SKEW_FACTOR = 1024

# "smart": loops that share data, keeping parallelism; "max": whenever legal
FuseMode = Literal["smart", "max", "none"]
FUSE_CHOICES: tuple[FuseMode, ...] = get_args(FuseMode)


def _numpy(x: object) -> bool:
    return type(x).__module__ == "numpy"


def _numpy_int(x: object) -> TypeGuard[SupportsIndex]:
    """A NumPy integer scalar (np.int64(8)), which is an int in all but type."""
    return _numpy(x) and hasattr(x, "__index__") and type(x).__name__ not in ("bool_", "bool")


def tile_sizes_problem(sizes: object) -> tuple[type[Exception], str] | None:
    """What is wrong with tile sizes (a tuple or list of ints), as (exception type, why)."""
    if not isinstance(sizes, (tuple, list)) or not sizes:
        return TypeError, f"tile sizes must be a non-empty tuple of ints, not {sizes!r}"
    for s in sizes:
        if not isinstance(s, int) or isinstance(s, bool):
            return TypeError, f"tile sizes must be ints, not {s!r}"
        if s < 1:
            return ValueError, f"tile sizes must be positive, not {s!r}"
        if s > MAX_TILE_SIZE:
            return ValueError, f"tile size {s} is larger than the maximum, {MAX_TILE_SIZE}"
    return None


@dataclass(frozen=True)
class Options:
    parallel: bool = True  # OpenMP `parallel for` on outer parallel loops
    vectorize: bool = True  # `omp simd` on vectorizable innermost loops
    # tile bands with reuse (sizes from a cache model); an int or a tuple of ints gives
    # the sizes, outermost loop first, the last one repeated for deeper loops (tile=8:
    # 8 for every loop of a band); it is stored as a tuple
    tile: bool | int | tuple[int, ...] = True
    fuse: FuseMode = "smart"
    interchange: bool = True  # reorder loops for parallelism and unit stride
    licm: bool = True  # keep invariant accumulators in registers
    contract: bool = True  # shrink temporaries that live within one iteration to scalars
    # register tiling (unroll-and-jam) of matmul-like reductions; (rows, columns) fixes
    # the register tile's unroll factors (default: sized for the vector unit)
    unroll_jam: bool | tuple[int, int] = True
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
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type not in ("bool", bool) or isinstance(value, bool):
                continue
            if _numpy(value) and type(value).__name__ in ("bool_", "bool"):  # np.True_
                object.__setattr__(self, f.name, bool(value))
                continue
            raise TypeError(f"option {f.name} must be True or False, not {value!r}")
        if not isinstance(self.fuse, str):
            raise TypeError(f"option fuse must be one of {', '.join(map(repr, FUSE_CHOICES))}, "
                            f"not {self.fuse!r}")
        if self.fuse not in FUSE_CHOICES:
            raise ValueError(f"fuse must be 'smart', 'max' or 'none', not {self.fuse!r}")
        self._check_unroll_jam()
        tile = self.tile
        if _numpy(tile) and type(tile).__name__ in ("bool_", "bool"):
            object.__setattr__(self, "tile", bool(tile))
            return
        if isinstance(tile, bool):
            return
        if isinstance(tile, int) or _numpy_int(tile):
            tile = (int(tile),)
        elif isinstance(tile, (list, tuple)):
            tile = tuple(int(t) if _numpy_int(t) else t for t in tile)
        problem = tile_sizes_problem(tile)
        if problem is not None:
            kind, why = problem
            raise kind(f"option tile must be True, False, an int or a tuple of ints: {why}")
        object.__setattr__(self, "tile", tile)

    def _check_unroll_jam(self) -> None:
        uj = self.unroll_jam
        if isinstance(uj, bool):
            return
        if _numpy(uj) and type(uj).__name__ in ("bool_", "bool"):
            object.__setattr__(self, "unroll_jam", bool(uj))
            return
        given: tuple[object, ...] = tuple(uj) if isinstance(uj, (tuple, list)) else ()
        factors = tuple(int(f) for f in given
                        if (isinstance(f, int) and not isinstance(f, bool)) or _numpy_int(f))
        if len(given) != 2 or len(factors) != 2:
            raise TypeError("option unroll_jam must be True, False or (rows, columns), "
                            f"not {uj!r}")
        if not all(1 <= f <= MAX_UNROLL_FACTOR for f in factors):
            raise ValueError(f"option unroll_jam: factors must be from 1 to {MAX_UNROLL_FACTOR}, "
                             f"not {factors!r}")
        if factors[0] * factors[1] > MAX_UNROLL_COPIES:
            raise ValueError(f"option unroll_jam: {factors!r} writes out "
                             f"{factors[0] * factors[1]} copies of the loop body; the most is "
                             f"{MAX_UNROLL_COPIES}")
        object.__setattr__(self, "unroll_jam", factors)

    def key(self) -> str:
        """The options that change generated code, as a stable string."""
        d = asdict(self)
        d.pop("cache")
        d.pop("fallback")
        return ",".join(f"{k}={v}" for k, v in sorted(d.items()))
