"""The parameters of a generated C function and of the helpers it calls."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from polyopt.backend_c.cexpr import ERROR_FLAG, ctype, scalar_ctype

from polyopt.model.scop import ScalarKind, Scop


class ArgKind(str, Enum):
    """What a C argument carries (the value is the name the cache index stores)."""

    PARAM = "param"  # an int64 size or int argument
    SCALAR = "scalar"
    ARRAY = "array"


@dataclass(frozen=True)
class CArg:
    name: str
    kind: ArgKind
    ctype: str

    def declaration(self) -> str:
        """The parameter as declared: arrays are ``restrict`` pointers."""
        if self.kind is ArgKind.ARRAY:
            return f"{self.ctype} *restrict {self.name}"
        return f"{self.ctype} {self.name}"


#: The last parameter of a kernel (and of its helpers) that may raise: see cexpr.ERROR_FLAG.
ERROR_PARAM = f"int32_t *restrict {ERROR_FLAG}"


def c_args(scop: Scop) -> tuple[CArg, ...]:
    """The C function's parameters: sizes and int arguments, scalars, then arrays."""
    out = [CArg(p, ArgKind.PARAM, "int64_t") for p in scop.params]
    for n, s in scop.scalars.items():
        if s.kind is ScalarKind.ARGUMENT and n not in scop.params:
            out.append(CArg(n, ArgKind.SCALAR, scalar_ctype(s.type)))
    for n, a in scop.arrays.items():
        out.append(CArg(n, ArgKind.ARRAY, ctype(a.dtype)))
    return tuple(out)
