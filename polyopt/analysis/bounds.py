"""Which sizes keep every access in bounds: derived from the access relations.

For each array access, :func:`out_of_bounds` gives the set of parameter values
(sizes and integer arguments) for which some executed instance would touch an
element outside the array.  The C backend turns these sets into a check that
runs before the kernel, so no argument can make generated code leave its arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyopt.model import isl_text
from polyopt.model.aff import Cmp, Lin, conj
from polyopt.model.isl_budget import coalesce
from polyopt.model.scop import Access, Scop


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
            bad = coalesce(touched.subtract(boxes[a.target]).params().intersect(scop.context))
            if not bad.is_empty():
                checks.append(BoundsCheck(a, bad))
    return checks


# Bounds checks and loops run in int64.  With sizes and integer arguments at most
# this large (in magnitude), no loop bound, iterator or subscript of the kernel can
# leave the int64 range, so no wrap-around can send a loop outside what the check saw.
_SAFE_MAGNITUDE = 2**60


def param_limit(scop: Scop) -> int:
    """The largest ``|value|`` of a size or integer argument the kernel computes with safely.

    Every iterator is bounded by a constraint ``a*i + sum(c*x) + c0 >= 0`` of its
    domain, so with parameters of magnitude at most ``P``, iterators at depth ``d``
    stay within ``S**d * (P + d*C)`` and every affine expression of a domain within
    ``S**(d+1) * (P + (d+1)*C)``, where ``S`` is the largest sum of ``|coefficients|``
    and ``C`` the largest ``|constant|`` of any constraint of a domain.  A subscript
    (a constraint of an access relation, with its own ``S_a`` and ``C_a``) stays within
    ``S_a * S**d * (P + d*C) + C_a``: a flattened ``B[i*10000 + j*100 + k]`` multiplies
    the bound once, not at every depth.
    """
    depth = max((len(s.iterators) for s in scop.statements), default=0)
    dom_sum, dom_const = _coefficients([s.domain for s in scop.statements])
    grow: int = dom_sum ** depth  # how much larger than P + d*C an iterator can be
    limit = _SAFE_MAGNITUDE // (grow * dom_sum) - (depth + 1) * dom_const
    for s in scop.statements:
        for a in s.accesses:
            acc_sum, acc_const = _coefficients([a.relation])
            limit = min(limit, (_SAFE_MAGNITUDE - acc_const) // (acc_sum * grow) - depth * dom_const)
    return max(limit, 0)


def _coefficients(objects: list[isl.Set | isl.Map]) -> tuple[int, int]:
    """The largest sum of ``|coefficients|`` (at least 1) and the largest ``|constant|``
    of a constraint of ``objects``."""
    coeff_sum, constant = 1, 0
    for obj in objects:
        pieces = obj.get_basic_sets() if isinstance(obj, isl.Set) else obj.get_basic_maps()
        for piece in pieces:
            for c in piece.get_constraints():
                total = 0
                for dt in _DIM_TYPES[isinstance(obj, isl.Set)]:
                    total += sum(abs(c.get_coefficient_val(dt, k).to_python())
                                 for k in range(c.dim(dt)))
                coeff_sum = max(coeff_sum, total)
                constant = max(constant, abs(c.get_constant_val().to_python()))
    return coeff_sum, constant


_DIM_TYPES = {
    True: (isl.dim_type.param, isl.dim_type.set, isl.dim_type.div),
    False: (isl.dim_type.param, isl.dim_type.in_, isl.dim_type.out, isl.dim_type.div),
}
