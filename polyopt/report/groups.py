"""The rows of a dependence table: one per array dependence, one per scalar.

A local scalar is one location, so every pair of its accesses depends on every other
(conv2d's ``s`` alone has 16 dependences, one per kind, exactness and statement pair),
and the rows differ in nothing a reader needs.  They become one row that counts them
by kind and names the statements and loops involved; an array keeps a row per
dependence, whose accesses and distances differ.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from polyopt.analysis.describe import DependenceInfo

_SHORT = {"flow": "RAW", "anti": "WAR", "output": "WAW"}


@dataclass(frozen=True)
class ScalarGroup:
    """Every dependence on one scalar; ``ids`` index the report's dependence list."""

    scalar: str
    ids: tuple[int, ...]
    members: tuple[DependenceInfo, ...]

    @property
    def counts(self) -> str:
        """"9 RAW, 4 WAR, 3 WAW": how many of each kind."""
        c = Counter(d.kind for d in self.members)
        return ", ".join(f"{c[k]} {short}" for k, short in _SHORT.items() if c[k])

    @property
    def value_based(self) -> int:
        return sum(1 for d in self.members if d.value_based)

    @property
    def reductions(self) -> int:
        return sum(1 for d in self.members if d.reduction)

    @property
    def statements(self) -> tuple[str, ...]:
        names = {x for d in self.members for x in (d.source, d.sink)}
        return tuple(sorted(names, key=lambda n: (len(n), n)))

    @property
    def carried_by(self) -> tuple[str, ...]:
        """The loops that carry any of them, outermost first."""
        nest = max((d.loops for d in self.members), key=len)  # the others are its prefixes
        found = dict.fromkeys(lp for d in self.members for lp in d.carried_by)
        return tuple(sorted(found, key=lambda lp: nest.index(lp) if lp in nest else len(nest)))

    @property
    def summary(self) -> str:
        """One line: "16 dependences (9 RAW, 4 WAR, 3 WAW; 4 value-based) among ..."."""
        carried = ", ".join(self.carried_by) or "no loop"
        red = f"; {self.reductions} of a reduction" if self.reductions else ""
        return (f"{len(self.members)} dependences ({self.counts}; {self.value_based} "
                f"value-based{red}) among {', '.join(self.statements)}, carried by {carried}")


Row = tuple[int, DependenceInfo] | ScalarGroup


def _scalar(d: DependenceInfo) -> bool:
    return not d.dependence.source.indices and not d.dependence.sink.indices


def rows(dependences: tuple[DependenceInfo, ...]) -> list[Row]:
    """The table's rows in the list's order, a scalar's group where its first dependence
    is (a scalar with a single dependence keeps its row)."""
    ids: dict[str, list[int]] = {}
    for k, d in enumerate(dependences):
        if _scalar(d):
            ids.setdefault(d.array, []).append(k)
    out: list[Row] = []
    for k, d in enumerate(dependences):
        group = ids.get(d.array) if _scalar(d) else None
        if group is None or len(group) == 1:
            out.append((k, d))
        elif group[0] == k:
            out.append(ScalarGroup(d.array, tuple(group), tuple(dependences[x] for x in group)))
    return out


def id_ranges(ids: tuple[int, ...]) -> str:
    """"#0, #2-#5": dependence ids, runs of consecutive ones as ranges."""
    runs: list[list[int]] = []
    for k in ids:
        if runs and runs[-1][-1] == k - 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(f"#{r[0]}" if len(r) == 1 else f"#{r[0]}-#{r[-1]}" for r in runs)
