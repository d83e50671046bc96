"""The Python int arguments NumPy converts to a narrower int where they meet one.

``u8[i] + k`` converts ``k`` to uint8 and raises OverflowError when it does not fit.
The call checks such an argument before the C runs (:mod:`polyopt.backend_c.call`), so
the C need not check it again where it meets that type (:mod:`polyopt.backend_c.cexpr`
checks every other Python int there): an argument is never written, so the C sees the
value the call checked.
"""

from __future__ import annotations

from collections.abc import Collection

from polyopt.model.dtypes import WEAK_INT, DType, ValueType
from polyopt.model.expr import Binary, Call, Cast, Expr, Name, walk
from polyopt.model.scop import ScalarKind, Scop

#: operators NumPy applies to a Python int without converting it to the other operand's
#: int: comparisons (by value) and true division (in floats: ``u8[i] / -4`` is -1.75)
_NOT_CONVERTING = frozenset({"<", "<=", ">", ">=", "==", "!=", "and", "or", "/"})


def converted_arguments(scop: Scop, dtype: DType) -> tuple[str, ...]:
    """The Python int arguments that are an operand of arithmetic with a value of the
    fixed-width int ``dtype`` (int32, uint8...), or are stored into or combined with such a
    target (``x32[i] = k``, ``x32[i] += k``).  NumPy converts such a Python int to
    ``dtype`` and raises OverflowError when it does not fit; NumPy's comparisons take any Python int, so they are not counted.  Only a direct
    operand counts: ``x32[i] + (k + 1)`` converts the value ``k + 1``, which is not checked.
    A store converts even an np.int64 ``k``."""
    ints = {n: s.type for n, s in scop.scalars.items()
            if s.kind is ScalarKind.ARGUMENT and s.type.dtype is DType.INT64}
    weak = {n for n, t in ints.items() if t == WEAK_INT}
    narrow = ValueType(dtype)
    found: set[str] = set()

    def direct(e: Expr, names: Collection[str]) -> str | None:
        while isinstance(e, Cast) and not e.unsafe:
            e = e.operand
        return e.name if isinstance(e, Name) and e.name in names else None

    for st in scop.statements:
        if st.target not in scop.arrays or scop.arrays[st.target].dtype is not dtype:
            pass
        elif st.update_op is None and (n := direct(st.value, ints)) is not None:
            found.add(n)  # NumPy's item assignment converts even an np.int64 k
        elif st.update_op is not None and (n := direct(st.value, weak)) is not None:
            found.add(n)
        for node in walk(st.value):
            if isinstance(node, Binary) and node.op not in _NOT_CONVERTING:
                for x, y in ((node.lhs, node.rhs), (node.rhs, node.lhs)):
                    if (n := direct(x, weak)) is not None and y.type == narrow:
                        found.add(n)
            # np.maximum(u8, k) converts k; max(u8[i], k), a choice, is a Python int
            elif isinstance(node, Call) and node.fn in ("min", "max") and node.type == narrow:
                found.update(n for a in node.args if (n := direct(a, weak)) is not None)
    return tuple(sorted(found))


def call_checked(scop: Scop) -> dict[DType, frozenset[str]]:
    """For each fixed-width int narrower than int64, the arguments the call checks."""
    return {d: frozenset(converted_arguments(scop, d)) for d in DType
            if d.is_int and d is not DType.INT64}
