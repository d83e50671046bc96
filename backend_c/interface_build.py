"""The :class:`~polyopt.backend_c.interface.KernelInterface` of a generated kernel, made
from the model (the scop) and the emitted C: the part of the interface that needs the
compiler's modules, apart so that loading a cached kernel does not import them."""

from __future__ import annotations

from typing import Any

from polyopt.backend_c.emit import CKernel
from polyopt.backend_c.interface import DROPPED, ArrayInfo, KernelInterface
from polyopt.backend_c.python_ints import converted_arguments

from polyopt.analysis.bounds import param_limit
from polyopt.model.aff import FloorDiv, Lin
from polyopt.model.dtypes import DType
from polyopt.model.scop import ArrayKind, ScalarKind, Scop


def lin_to_json(e: Lin) -> dict[str, Any]:
    terms = []
    for atom, c in e.terms:
        if isinstance(atom, FloorDiv):
            terms.append([{"num": lin_to_json(atom.num), "den": atom.den}, c])
        else:
            terms.append([atom, c])
    return {"terms": terms, "const": e.const}



def interface_of(scop: Scop, kernel: CKernel, source: Scop | None = None) -> KernelInterface:
    """The call's view of ``kernel``; ``source``: the program as written, whose
    temporaries that the plan dropped (contracted to scalars) are still checked."""
    written = {s.target for s in scop.statements}
    arrays = tuple(
        ArrayInfo(a.name, a.dtype.value, a.rank, a.kind.value, a.name in written,
                  tuple(lin_to_json(e) for e in a.shape), a.clamped)
        for a in scop.arrays.values()
    ) + _dropped(scop, source)
    scalars = tuple(
        (n, s.type.dtype.c_name) for n, s in scop.scalars.items()
        if s.kind is ScalarKind.ARGUMENT and n not in scop.params
    )
    returns = (scop.returns.name, scop.returns.is_array) if scop.returns else None
    return_numpy = None
    if scop.returns is not None and not scop.returns.is_array:
        rtype = scop.scalars[scop.returns.name].type
        return_numpy = None if rtype.weak else rtype.dtype.value
    return KernelInterface(
        function=kernel.function, check_function=kernel.check_function,
        arg_names=scop.arg_order, c_args=tuple((a.name, a.kind.value, a.ctype) for a in kernel.args),
        param_sources=dict(scop.param_sources), arrays=arrays, scalar_args=scalars,
        returns=returns, return_ctype=kernel.return_ctype, check_messages=kernel.check_messages,
        return_numpy=return_numpy, param_limit=param_limit(scop), raises=kernel.raises,
        size_checks=tuple((lin_to_json(c.left), lin_to_json(c.right), c.text)
                          for c in scop.size_checks),
        check_sources=dict(scop.check_sources),
        int32_args=converted_arguments(scop, DType.INT32),
        narrow_args=tuple((n, d.value) for d in DType if d.is_int and d not in (DType.INT32, DType.INT64)
                          for n in converted_arguments(scop, d)),
    )


def _dropped(scop: Scop, source: Scop | None) -> tuple[ArrayInfo, ...]:
    """The temporaries of ``source`` that ``scop`` no longer allocates, as arrays of kind
    ``dropped``: NumPy raises for a negative extent (``np.zeros(n)``, ``n < 0``), so the
    call checks their shapes too, allocating nothing (hostile finding 01)."""
    if source is None:
        return ()
    params = set(scop.params)
    return tuple(
        ArrayInfo(a.name, a.dtype.value, a.rank, DROPPED, False,
                  tuple(lin_to_json(e) for e in a.shape), False)
        for a in source.arrays.values()
        if a.kind is ArrayKind.TEMPORARY and a.name not in scop.arrays
        and all(e.names() <= params for e in a.shape))
