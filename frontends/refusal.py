"""The exception both frontends raise while converting source: the offending node
(a Python ``ast`` node or a pycparser ``c_ast`` node), the construct and why it is
refused.  The frontend collects them as :class:`polyopt.model.errors.Problem`s."""

from __future__ import annotations


class NotAffine(Exception):
    """Raised with the offending node and the reason; the caller turns it into a Problem."""

    def __init__(self, node: object, construct: str, reason: str) -> None:
        super().__init__(reason)
        self.node = node
        self.construct = construct
        self.reason = reason
