"""Which sizes keep every access in bounds: derived from the access relations.

For each array access, :func:`out_of_bounds` gives the set of parameter values
(sizes and integer arguments) for which some executed instance would touch an
element outside the array.  The C backend turns these sets into a check that
runs before the kernel, so no argument can make generated code leave its arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyopt import isl_text
from polyopt.aff import Cmp, Lin, conj
from polyopt.model import Access, Scop


@dataclass(frozen=True, eq=False)
class BoundsCheck:
    access: Access
    bad_params: isl.Set  # parameter values for which the access leaves its array


def _box(scop: Scop, array: str) -> isl.Set:
    arr = scop.arrays[array]
    dims = tuple(f"d{k}" for k in range(arr.rank))
    f = conj(*(c for k, extent in enumerate(arr.shape) for c in (
        Cmp(">=", Lin.var(dims[k]), Lin.constant(0)), Cmp("<", Lin.var(dims[k]), extent))))
    return isl_text.make_set(scop.params, array, dims, f)


def out_of_bounds(scop: Scop) -> list[BoundsCheck]:
    """The accesses that can leave their array for some sizes, with those sizes."""
    checks: list[BoundsCheck] = []
    boxes = {name: _box(scop, name) for name in scop.arrays}
    for s in scop.statements:
        for a in s.accesses:
            if a.target not in scop.arrays:
                continue
            touched = a.relation.range()
            bad = touched.subtract(boxes[a.target]).params().intersect(scop.context).coalesce()
            if not bad.is_empty():
                checks.append(BoundsCheck(a, bad))
    return checks
