"""Equalities between sizes that a call checks before the C runs.

NumPy raises ``ValueError`` when the shapes of an array statement disagree
(``C[0:3] = B[0:k]`` with ``k`` = 4).  The Python frontend gives extents that must be
equal one size parameter (``B.shape[0]`` becomes ``A_shape1`` in ``A @ B``), so the
C never sees the dimension it replaced; each such replacement, and each equality no
parameter could absorb (``3 == k``), is a :class:`SizeCheck` of the Scop.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyopt.model.aff import Lin


@dataclass(frozen=True)
class SizeCheck:
    """``left == right`` over the size parameters and the Scop's ``check_sources``
    (array dimensions no parameter stands for any more); ``text`` says which statement
    requires it, as the user reads it (``line 5: `C[:] = A @ B` needs B.shape[0] ==
    A.shape[1]``)."""

    left: Lin
    right: Lin
    text: str


__all__ = ["SizeCheck"]
