"""A statement's map to a time vector, built through isl's API.

The same map as ``isl_text.make_map(params, name, iterators, "", exprs)``, constraint
for constraint (tests/test_timeline_order.py compares them), without isl's parser:
a timeline builds a map for every statement and time vector it compares, and parsing
one cost about four times building it::

    S[i, j, k], (floor(i/32), k, i)   ->   { S[i, j, k] -> [o0, k, i] : i - 31 <= 32 o0 <= i }
"""

from __future__ import annotations

import functools

import islpy as isl

from polyopt.model.aff import FloorDiv, Lin

_CTX = isl.DEFAULT_CONTEXT


@functools.lru_cache(maxsize=1024)
def _domain_space(params: tuple[str, ...], name: str, iterators: tuple[str, ...]) -> isl.Space:
    # by name: islpy's isl.Id carries a Python object, and isl would tell those ids
    # from the parser's
    space = isl.Space.set_alloc(_CTX, len(params), len(iterators))
    for k, p in enumerate(params):
        space = space.set_dim_name(isl.dim_type.param, k, p)
    for k, v in enumerate(iterators):
        space = space.set_dim_name(isl.dim_type.set, k, v)
    return space.set_tuple_name(isl.dim_type.set, name)


def time_map(params: tuple[str, ...], name: str, iterators: tuple[str, ...],
             exprs: tuple[Lin, ...]) -> isl.Map:
    """``{ name[iterators] -> [exprs] }`` over ``params``."""
    space = _domain_space(params, name, iterators)
    local = isl.LocalSpace.from_space(space)
    affs = isl.AffList.alloc(_CTX, len(exprs))
    for e in exprs:
        affs = affs.add(_aff(local, space, e))
    out = isl.Space.set_alloc(_CTX, len(params), len(exprs))
    for k, p in enumerate(params):
        out = out.set_dim_name(isl.dim_type.param, k, p)
    return isl.Map.from_multi_aff(
        isl.MultiAff.from_aff_list(space.map_from_domain_and_range(out), affs))


def _aff(local: isl.LocalSpace, space: isl.Space, e: Lin) -> isl.Aff:
    out = isl.Aff.zero_on_domain(local).set_constant_val(isl.Val.int_from_si(_CTX, e.const))
    for atom, c in e.terms:
        if isinstance(atom, FloorDiv):
            term = _aff(local, space, atom.num).scale_down_val(
                isl.Val.int_from_si(_CTX, atom.den)).floor()
        else:
            term = _var(local, space, atom)
        out = out.add(term.scale_val(isl.Val.int_from_si(_CTX, c)))
    return out


def _var(local: isl.LocalSpace, space: isl.Space, name: str) -> isl.Aff:
    for kind in (isl.dim_type.set, isl.dim_type.param):
        k = space.find_dim_by_name(kind, name)
        if k >= 0:
            return isl.Aff.var_on_domain(local, kind, k)
    raise KeyError(f"{name} is neither an iterator nor a parameter of {space}")
