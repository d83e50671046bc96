"""What a tuning run found, as a reviewable, replayable JSON document.

::

    {"polyopt_tune": 1, "function": "gemm",
     "signature": "float, float, float64[:, :], float64[:, :], float64[:, :]",
     "budget_s": 10.0,
     "default": {"options": {...}, "parallel_min": 1048576},
     "chosen":  {"options": {..., "tile": [64, 256, 64]}, "parallel_min": 1048576},
     "speedup": 1.31,
     "trials": [{"changes": {"tile": [64, 256, 64]}, "status": "ok",
                 "seconds": 0.0123, "baseline_seconds": 0.0161, "detail": ""}, ...]}

``chosen`` is what is replayed (:func:`polyopt.tuner.install.load`); each trial's
``changes`` are its differences from ``default``.  Times are medians of interleaved
runs, the trial's beside the default's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from polyopt.backend_c.tuned import BadChoice, Choice, choice_from_json
from polyopt.model.options import Options

FORMAT = 1
#: ok: agreed and timed; wrong: its outputs differed (discarded); failed: did not build;
#: same code: built the library of an earlier trial; unfinished: out of budget
STATUSES = ("ok", "wrong", "failed", "same code", "unfinished")


@dataclass(frozen=True)
class Trial:
    """One candidate: its choice, what happened, and its median time beside the default's."""

    choice: Choice
    status: str
    seconds: float | None = None
    baseline_seconds: float | None = None
    detail: str = ""

    @property
    def ratio(self) -> float | None:
        """How many times faster than the default (None unless timed)."""
        if self.seconds is None or self.baseline_seconds is None or self.seconds <= 0:
            return None
        return self.baseline_seconds / self.seconds


@dataclass(frozen=True)
class TuneResult:
    function: str
    signature: str  # the argument types, in the notation of --signature
    budget: float
    default: Choice
    chosen: Choice
    trials: tuple[Trial, ...]

    @property
    def speedup(self) -> float:
        """The chosen options' speed over the default's, as last measured (the search
        times its choice again at the end; 1.0 for the default)."""
        ratios = [t.ratio for t in self.trials if t.choice == self.chosen and t.ratio]
        return ratios[-1] if ratios else 1.0

    @property
    def rejected(self) -> tuple[Trial, ...]:
        """The candidates whose results differed from the untuned kernel's."""
        return tuple(t for t in self.trials if t.status == "wrong")

    def to_json(self) -> str:
        return json.dumps({
            "polyopt_tune": FORMAT, "function": self.function, "signature": self.signature,
            # no limit (budget=math.inf) is null: JSON has no Infinity
            "budget_s": self.budget if math.isfinite(self.budget) else None,
            "default": self.default.to_json(),
            "chosen": self.chosen.to_json(), "speedup": round(self.speedup, 4),
            "trials": [{"changes": changes(self.default, t.choice), "status": t.status,
                        "seconds": t.seconds, "baseline_seconds": t.baseline_seconds,
                        "detail": t.detail} for t in self.trials]}, indent=1)

    @staticmethod
    def from_json(text: str | bytes, base: Options | None = None) -> TuneResult:
        """The result ``to_json`` wrote; a :class:`BadChoice` (a ``ValueError``) says what
        is wrong with anything else."""
        try:
            d = json.loads(text)
        except ValueError as exc:
            raise BadChoice(f"not JSON: {exc}") from None
        keys = {"polyopt_tune", "function", "signature", "budget_s", "default", "chosen",
                "speedup", "trials"}
        _require(isinstance(d, dict) and set(d) == keys, "not a polyopt tuning result")
        _require(d["polyopt_tune"] == FORMAT, f"format {d['polyopt_tune']!r}, not {FORMAT}")
        _require(isinstance(d["function"], str) and isinstance(d["signature"], str),
                 "function and signature must be strings")
        _require(d["budget_s"] is None or _number(d["budget_s"]),
                 "budget_s must be a number or null")
        base = base or Options()
        default = choice_from_json(d["default"], base)
        chosen = choice_from_json(d["chosen"], base)
        _require(isinstance(d["trials"], list), "trials must be a list")
        trials = tuple(_trial(t, default) for t in d["trials"])
        budget = math.inf if d["budget_s"] is None else float(d["budget_s"])
        return TuneResult(d["function"], d["signature"], budget, default, chosen, trials)

    def summary(self) -> str:
        """One line per trial: what changed, the status, the times and the ratio."""
        lines = [f"{self.function}({self.signature}): {len(self.trials)} trials, chosen "
                 f"{_show(changes(self.default, self.chosen)) or 'the default options'} "
                 f"({self.speedup:.2f}x the default)"]
        for t in self.trials:
            ms = f"{t.seconds * 1e3:.3f} ms vs {t.baseline_seconds * 1e3:.3f} ms" \
                if t.seconds is not None and t.baseline_seconds is not None else ""
            ratio = f"{t.ratio:.2f}x" if t.ratio else ""
            lines.append("  ".join(x for x in (
                f"  {_show(changes(self.default, t.choice)) or 'default':40}", f"{t.status:10}",
                ms, ratio, t.detail) if x))
        return "\n".join(lines)


def changes(default: Choice, choice: Choice) -> dict[str, Any]:
    """The fields of ``choice`` that differ from ``default``, as JSON values."""
    a, b = default.to_json(), choice.to_json()
    out = {k: v for k, v in b["options"].items() if a["options"][k] != v}
    if b["parallel_min"] != a["parallel_min"]:
        out["parallel_min"] = b["parallel_min"]
    return out


def _show(ch: dict[str, Any]) -> str:
    return ", ".join(f"{k}={tuple(v) if isinstance(v, list) else v!r}" for k, v in ch.items())


def _trial(t: object, default: Choice) -> Trial:
    _require(isinstance(t, dict) and set(t) == {"changes", "status", "seconds",
                                                 "baseline_seconds", "detail"}, "a bad trial")
    assert isinstance(t, dict)
    _require(t["status"] in STATUSES, f"unknown trial status {t['status']!r}")
    _require(all(x is None or _number(x) for x in (t["seconds"], t["baseline_seconds"])),
             "trial times must be numbers or null")
    _require(isinstance(t["detail"], str) and isinstance(t["changes"], dict), "a bad trial")
    full = default.to_json()
    for k, v in t["changes"].items():
        _require(k in full["options"] or k == "parallel_min", f"unknown option {k!r}")
        if k == "parallel_min":
            full["parallel_min"] = v
        else:
            full["options"][k] = v
    choice = choice_from_json(full, default.options)
    return Trial(choice, t["status"], t["seconds"], t["baseline_seconds"], t["detail"])


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _require(ok: bool, why: str) -> None:
    if not ok:
        raise BadChoice(why)
