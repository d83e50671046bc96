"""What a ``#pragma scop`` region does with each name, read before any statement is
converted: the loop iterators (with their declared types), the names it assigns and
the names it declares.  A name assigned in the region cannot be a parameter::

    for (int i = 0; i < n; i++) {    // iterators {i: int}, declared {t}
      double t = A[i];               // written {t, s}
      s += t;
    }
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polyopt.frontends.c_types import CType, TypeTable
from pycparser import c_ast


@dataclass(frozen=True)
class RegionNames:
    iterators: Mapping[str, CType | None]  # None: the type is the declaration's outside the header
    written: frozenset[str]
    decls: Mapping[str, c_ast.Decl]  # declared in the region
    top_level: frozenset[str]  # declared at the region's top level

    @classmethod
    def scan(cls, items: tuple[c_ast.Node, ...], types: TypeTable) -> RegionNames:
        scan = _Scan(types)
        for item in items:
            scan.visit(item, top=True)
        return cls(scan.iterators, frozenset(scan.written), scan.decls, frozenset(scan.top_level))


class _Scan:
    def __init__(self, types: TypeTable) -> None:
        self.types = types
        self.iterators: dict[str, CType | None] = {}
        self.written: set[str] = set()
        self.decls: dict[str, c_ast.Decl] = {}
        self.top_level: set[str] = set()

    def visit(self, node: c_ast.Node, top: bool = False) -> None:
        if isinstance(node, c_ast.For):
            for name, ctype in self._header_names(node):
                self.iterators.setdefault(name, ctype)
            self.visit(node.stmt)
            return
        if isinstance(node, c_ast.Decl):
            self.decls.setdefault(node.name, node)
            if top:
                self.top_level.add(node.name)
            if node.init is not None:
                self.written.add(node.name)
            return
        if isinstance(node, c_ast.Assignment):
            if isinstance(node.lvalue, c_ast.ID):
                self.written.add(node.lvalue.name)
            self.visit(node.rvalue)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            if isinstance(node.expr, c_ast.ID):
                self.written.add(node.expr.name)
            return
        for _, child in node.children():
            self.visit(child)

    def _header_names(self, node: c_ast.For) -> list[tuple[str, CType | None]]:
        declared = {d.name: self.types.of(d.type) for d in node.init.decls} \
            if isinstance(node.init, c_ast.DeclList) else {}
        return [(n, declared.get(n)) for n in loop_counters(node)]


def loop_counters(node: c_ast.For) -> list[str]:
    """The names the loop's header assigns (``i = 0``, ``int i = 0``, ``i++``)."""
    out = []
    if isinstance(node.init, c_ast.DeclList):
        out += [d.name for d in node.init.decls]
    elif isinstance(node.init, c_ast.Assignment) and isinstance(node.init.lvalue, c_ast.ID):
        out.append(node.init.lvalue.name)
    nxt = node.next
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID):
        out.append(nxt.expr.name)
    elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID):
        out.append(nxt.lvalue.name)
    return out
