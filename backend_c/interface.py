"""What the Python side needs to call a compiled kernel, in a JSON-able form.

Saved next to each cached build so that a new process can call the library
without re-running the frontend, the analysis or code generation; it is made from the
model by :mod:`polyopt.backend_c.interface_build`, which a cache hit never imports.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: The kind of a temporary that the plan dropped (contracted): its shape is checked, as
#: NumPy's allocation would check it, and nothing is allocated.
DROPPED = "dropped"


@dataclass(frozen=True)
class ArrayInfo:
    name: str
    dtype: str
    rank: int
    kind: str  # ArrayKind value, or DROPPED
    written: bool
    shape: tuple[dict[str, Any], ...]  # serialized Lin per dimension
    clamped: bool = False  # a negative extent allocates 0 elements (Array.clamped)

    def extents(self, env: dict[str, int]) -> tuple[int, ...]:
        """The shape for these sizes (a clamped array's negative extents as 0)."""
        shape = tuple(eval_lin(d, env) for d in self.shape)
        return tuple(max(0, x) for x in shape) if self.clamped else shape


@dataclass(frozen=True)
class KernelInterface:
    function: str
    check_function: str
    arg_names: tuple[str, ...]
    c_args: tuple[tuple[str, str, str], ...]  # (name, kind, ctype)
    param_sources: dict[str, tuple[str, int]]  # size parameter -> (array, dim)
    arrays: tuple[ArrayInfo, ...]
    scalar_args: tuple[tuple[str, str], ...]  # (name, ctype)
    returns: tuple[str, bool] | None
    return_ctype: str | None
    check_messages: tuple[str, ...]
    # NumPy dtype of a returned scalar that CPython would give as a NumPy scalar
    # (a strong type such as float32); None for Python int/float results
    return_numpy: str | None = None
    # sizes and int arguments of larger magnitude could overflow int64 loop arithmetic
    param_limit: int = 0
    # the C function takes an error flag last, set where Python would raise (cexpr.ERROR_FLAG)
    raises: bool = False
    # Python int arguments that meet an int32 value: NumPy converts them to int32 first and
    # raises OverflowError when they do not fit (NEP 50); the call checks them
    int32_args: tuple[str, ...] = ()
    # equalities of sizes that NumPy's shape rules require, tested before the C runs:
    # (left, right, text), serialized Lins over the sizes and check_sources (array
    # dimensions that no parameter stands for)
    size_checks: tuple[tuple[dict[str, Any], dict[str, Any], str], ...] = ()
    check_sources: dict[str, tuple[str, int]] = field(default_factory=dict)
    # the same for the other fixed-width ints (uint8_array[i] + k): (argument, dtype)
    narrow_args: tuple[tuple[str, str], ...] = ()

    def cdef(self) -> str:
        params = ", ".join(
            [f"{cffi_type(ct)} *{n}" if kind == "array" else f"{ct} {n}"
             for n, kind, ct in self.c_args]
            + (["int32_t *polyopt_err"] if self.raises else [])
        ) or "void"
        sizes = ", ".join(f"int64_t {n}" for n, kind, _ in self.c_args if kind == "param") or "void"
        return (f"{self.return_ctype or 'void'} {self.function}({params});\n"
                f"int64_t {self.check_function}({sizes});\n")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelInterface:
        return KernelInterface(
            function=d["function"], check_function=d["check_function"],
            arg_names=tuple(d["arg_names"]), c_args=tuple(tuple(x) for x in d["c_args"]),
            param_sources={k: (v[0], v[1]) for k, v in d["param_sources"].items()},
            arrays=tuple(ArrayInfo(**{**a, "shape": tuple(a["shape"])}) for a in d["arrays"]),
            scalar_args=tuple(tuple(x) for x in d["scalar_args"]),
            returns=tuple(d["returns"]) if d["returns"] else None,
            return_ctype=d["return_ctype"], check_messages=tuple(d["check_messages"]),
            return_numpy=d.get("return_numpy"), param_limit=d["param_limit"],
            raises=d["raises"], int32_args=tuple(d.get("int32_args", ())),
            size_checks=tuple((c[0], c[1], c[2]) for c in d.get("size_checks", ())),
            check_sources={k: (v[0], v[1]) for k, v in d.get("check_sources", {}).items()},
            narrow_args=tuple((n, t) for n, t in d.get("narrow_args", ())),
        )


def cffi_type(ctype: str) -> str:
    """How cffi declares an element of C type ``ctype``: it has no _Float16, and a pointer
    to uint16_t passes a float16 array's buffer all the same."""
    return "uint16_t" if ctype == "_Float16" else ctype


def eval_lin(d: dict[str, Any], env: dict[str, int]) -> int:
    total: int = d["const"]
    for atom, c in d["terms"]:
        if isinstance(atom, dict):
            total += c * (eval_lin(atom["num"], env) // atom["den"])
        else:
            total += c * env[atom]
    return total
