"""``polyopt deps --format json``: the report as versioned JSON.

The schema is documented in ``docs/deps-schema.md`` and given as a JSON Schema
in ``docs/deps-schema.json``.  :data:`SCHEMA_VERSION` follows semantic
versioning: a consumer written for ``1.x`` reads every ``1.y`` document
(fields are only ever added); a change that removes or redefines a field
bumps the major version.
"""

from __future__ import annotations

import json
from typing import Any

import polyopt
from polyopt.analysis.describe import DependenceInfo
from polyopt.report.analysis import LoopInfo
from polyopt.report.applied import AppliedReport
from polyopt.report.data import Report, ScopReport

SCHEMA = "polyopt-deps"
SCHEMA_VERSION = "1.3"  # 1.1: each scop's "applied" schedule; 1.2: each loop's "why";
# 1.3: why_kind "reduced array read otherwise"


def to_data(report: Report) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "generator": f"polyopt {polyopt.__version__}",
        "file": report.filename,
        "language": report.language,
        "scops": [_scop(s) for s in report.scops],
    }


def render(report: Report) -> str:
    return json.dumps(to_data(report), indent=2) + "\n"


def _scop(s: ScopReport) -> dict[str, Any]:
    a = s.analysis
    return {
        "title": s.title,
        "kind": s.kind,
        "function": a.function,
        "lines": [s.source.first_line, s.source.last_line],
        "parameters": list(s.scop.params),
        "statements": [
            {"name": st.name, "line": st.line, "source": st.source, "loops": list(st.loops)}
            for st in a.statements
        ],
        "loops": [_loop(s, lp) for lp in a.loops],
        "dependences": [_dependence(k, d) for k, d in enumerate(a.dependences)],
        "transformations": [
            {
                "transformation": t.transformation,
                "loops": list(t.loops),
                "legal": t.legal,
                "blocking": [s.dependence_index(d) for d in t.blocking],
                "reason": t.reason,
            }
            for t in s.legality
        ],
        **({"applied": applied_data(s.applied)} if s.applied is not None else {}),
    }


def applied_data(r: AppliedReport) -> dict[str, Any]:
    """What was done: the steps in order, the final loops, the temporaries, the threshold."""
    return {
        "origin": r.origin,
        "steps": [{"phase": a.phase, "what": a.what, "loops": list(a.loops),
                   "arrays": list(a.arrays),
                   "steps": [{"op": st.op, "args": [list(x) if isinstance(x, tuple) else x
                                                    for x in st.args]} for st in a.steps]}
                  for a in r.applied],
        "replay": r.replay,
        "loops": [{"depth": x.depth, "label": x.label, "statement": x.statement,
                   "marks": list(x.marks)} for x in r.loops],
        "temporaries": [{"name": n, "what": w} for n, w in r.temporaries],
        "parallel_threshold": r.parallel_threshold,
    }


def _loop(s: ScopReport, lp: LoopInfo) -> dict[str, Any]:
    return {
        "id": lp.id,
        "label": lp.label,
        "line": lp.line,
        "verdict": lp.verdict,
        "vectorizable": lp.vectorizable,
        "reductions": [{"operator": op, "variable": var} for op, var in lp.reductions],
        "private": list(lp.private),
        "private_arrays": list(lp.private_arrays),
        "reason": lp.reason,
        "why": lp.why,
        "why_kind": lp.why_kind,
        "blocking": [s.dependence_index(d) for d in lp.blocking],
    }


def _dependence(k: int, d: DependenceInfo) -> dict[str, Any]:
    return {
        "id": k,
        "kind": d.kind,
        "value_based": d.value_based,
        "array": d.array,
        "source": {"statement": d.source, "access": d.source_access},
        "sink": {"statement": d.sink, "access": d.sink_access},
        "carried_by": list(d.carried_by),
        "loops": list(d.loops),
        "distance": list(d.distance),
        "direction": list(d.direction),
        "reduction": d.reduction,
        "relation": d.relation,
    }
