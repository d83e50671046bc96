"""``python -m bench --suite tune``: ``polyopt.tune`` on a few PolyBench kernels, then the
tuned options against the default ones, timed again side by side.

The search's own ratios favour the winner (the largest of several noisy ratios), so the
figures here come from fresh interleaved rounds of the two builds, after the search.
Each kernel's tuning result is written to ``<out>/tune/<kernel>.tune.json``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polyopt
from bench.specs import load_spec
from bench.timing import median, rounds_for
from polyopt.kernel import Kernel
from polyopt.model.options import Options
from polyopt.tuner import measure, search
from polyopt.tuner.result import changes

#: a BLAS-like kernel, a chain of two, a 2-D stencil (time tiles) and a triangular one
TUNE_KERNELS = ("gemm", "2mm", "jacobi-2d", "trmm")


@dataclass(frozen=True)
class TuneRow:
    kernel: str
    default_s: float
    tuned_s: float
    chosen: str  # the options changed from the default
    trials: int
    rejected: int

    @property
    def ratio(self) -> float:
        return self.default_s / self.tuned_s


def run(size: str, kernels: Sequence[str], budget: float, repeat: int, out: Path) -> list[TuneRow]:
    rows = []
    (out / "tune").mkdir(parents=True, exist_ok=True)
    for name in kernels:
        print(f"tune: {name} at {size} ({budget:g} s)", file=sys.stderr)
        spec = load_spec("polybench", name)
        args = tuple(spec.positional(spec.args(size)))
        result = polyopt.tune(spec.kernel, *args, budget=budget, store=False)
        (out / "tune" / f"{name}.tune.json").write_text(result.to_json() + "\n")
        kernel = Kernel(spec.kernel, Options())
        sig, values = search.signature_of(kernel, args)
        default, _ = search.compile_choice(kernel, sig, result.default)
        tuned, _ = search.compile_choice(kernel, sig, result.chosen)
        rounds = rounds_for(measure.run(default, values)[1], repeat)
        pairs = [(measure.run(default, values)[1], measure.run(tuned, values)[1])
                 for _ in range(rounds)]
        shown = ", ".join(f"{k}={v}" for k, v in changes(result.default, result.chosen).items())
        rows.append(TuneRow(name, median([a for a, _ in pairs]), median([b for _, b in pairs]),
                            shown or "(the default)", len(result.trials), len(result.rejected)))
    return rows


def markdown(rows: Sequence[TuneRow], size: str, budget: float, ctx: list[str]) -> str:
    lines = [f"# polyopt.tune at {size}, {budget:g} s per kernel", "", *ctx, "",
             "| kernel | default | tuned | ratio | chosen | trials | rejected |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.kernel} | {r.default_s * 1e3:.3f} ms | {r.tuned_s * 1e3:.3f} ms | "
                     f"{r.ratio:.2f}× | {r.chosen} | {r.trials} | {r.rejected} |")
    if rows:
        geo = math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))
        lines += ["", f"Geomean tuned / default: {geo:.2f}×"]
    return "\n".join(lines) + "\n"
