"""The options of ``@polyopt.jit`` and ``polyopt opt``: one frozen, typed record."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Options:
    parallel: bool = True  # OpenMP `parallel for` on outer parallel loops
    vectorize: bool = True  # `omp simd` on vectorizable innermost loops
    cache: bool = True  # reuse builds from the on-disk cache
    fallback: bool = False  # run the Python function (with a warning) when it cannot compile

    def key(self) -> str:
        """The options that change generated code, as a stable string."""
        d = asdict(self)
        d.pop("cache")
        d.pop("fallback")
        return ",".join(f"{k}={v}" for k, v in sorted(d.items()))
