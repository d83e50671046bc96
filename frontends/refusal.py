"""The exception both frontends raise while converting source: the offending node
(a Python ``ast`` node or a pycparser ``c_ast`` node), the construct and why it is
refused.  The frontend collects them as :class:`polyopt.model.errors.Problem` objects.

Also the refusals both frontends make in the same words: a product of two
non-constant expressions, and an ``if`` whose test is not affine."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from polyopt.model.aff import Aff, Formula, Lin, scale

_Node = TypeVar("_Node")


#: the reason given for a local read before any assignment to it ran
READ_BEFORE_ASSIGNED = "is read before it is assigned"


class NotAffine(Exception):
    """Raised with the offending node and the reason; the caller turns it into a Problem."""

    def __init__(self, node: object, construct: str, reason: str) -> None:
        super().__init__(reason)
        self.node = node
        self.construct = construct
        self.reason = reason


def affine_product(node: object, a: Aff, b: Aff) -> Aff:
    """``a * b`` when one side is a constant (``2 * i``); ``i * j`` is refused."""
    if isinstance(a, Lin) and a.is_constant():
        return scale(b, a.const)
    if isinstance(b, Lin) and b.is_constant():
        return scale(a, b.const)
    raise NotAffine(node, "product", "multiplies two non-constant expressions (not affine)")


def reads_data(nodes: Iterable[_Node], memory: Callable[[_Node], bool],
               name: Callable[[_Node], bool], aff: Callable[[_Node], object]) -> bool:
    """Whether one of ``nodes`` (all of a test's) reads ``memory`` (an array element, a
    call), or is a ``name`` that ``aff`` refuses (a local, a float argument: no loop
    variable or size): what only the run knows."""
    for n in nodes:
        if memory(n):
            return True
        if name(n):
            try:
                aff(n)
            except NotAffine:
                return True
    return False


def if_condition(formula: Callable[[_Node], Formula], test: _Node, instead: str,
                 reads_data: Callable[[_Node], bool], logic: str) -> Formula:
    """The affine formula of an ``if`` statement's test; a data-dependent test (one that
    ``reads_data``) is refused, pointing at the conditional expression (``instead``) that
    can do its job, and another one saying what a test may be (``logic``: its
    connectives)."""
    try:
        return formula(test)
    except NotAffine as e:
        if reads_data(test):
            raise NotAffine(test, "data-dependent `if`", f"{e.construct} {e.reason}; write a "
                            f"conditional expression `{instead}` instead") from None
        raise NotAffine(test, "`if` test", f"{e.construct} {e.reason}; a test compares "
                        f"affine expressions of loop variables and sizes, joined by {logic}"
                        ) from None
