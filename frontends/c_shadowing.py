"""Block-scoped declarations of a ``#pragma scop`` region, each given its own name.

The region's statements become one flat set of statements whose local scalars are
declared together at the top of the code written for the region, so two
declarations of one name would become one variable.  C keeps them apart by scope::

    double t = 0.25;                       double t = 0.25;
    #pragma scop                           #pragma scop
    for (i = 0; i < n; i++) {              for (i = 0; i < n; i++) {
      int t = C[i];              ->          int polyopt_s1_u1_t = C[i];
      C[i] = 2 * t;                          C[i] = 2 * polyopt_s1_u1_t;
    }                                      }
    for (i = 0; i < n; i++)                for (i = 0; i < n; i++)
      A[i] = t * A[i];   /* 0.25 */          A[i] = t * A[i];
    #pragma endscop                        #pragma endscop

A declaration nested in the region (in a block or a ``for`` header) is renamed when its
name is visible where it is declared (outside the region or in an enclosing block) or
was declared earlier in the region (a sibling block's ``t``; for a ``for`` header's
counter, only a scalar's ``t``).  Declarations at the region's top level keep their
names: the code after the region may use them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from pycparser import c_ast

from polyopt.model.names import scoped_name


def unshadow(items: Iterable[c_ast.Node], outer: Collection[str], taken: Collection[str]) -> None:
    """Rename, in place, the region's nested declarations that share a name with another
    variable; ``outer``: the names visible at the region; ``taken``: every identifier of
    the file (fresh names avoid them)."""
    _Renamer(set(outer), set(taken)).region(items)


class _Renamer:
    def __init__(self, outer: set[str], taken: set[str]) -> None:
        self.scopes: list[dict[str, str]] = [{n: n for n in outer}, {}]
        self.declared: set[str] = set()  # declared in the region so far
        self.scalars: set[str] = set()  # ... other than by a `for` header
        self.taken = taken

    def region(self, items: Iterable[c_ast.Node]) -> None:
        for item in items:
            if isinstance(item, c_ast.Decl) and item.name:
                self._visit(item.init)
                self.scopes[-1][item.name] = item.name  # visible after the region: kept
                self.declared.add(item.name)
                self.scalars.add(item.name)
            else:
                self._visit(item)

    def _visit(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Compound):
            self.scopes.append({})
            for item in node.block_items or ():
                self._visit(item)
            self.scopes.pop()
        elif isinstance(node, c_ast.For):
            self.scopes.append({})  # the header's declarations: the loop's scope
            if isinstance(node.init, c_ast.DeclList):
                for decl in node.init.decls:
                    self._visit(decl.init)
                    self._declare(decl, counter=True)
            else:
                self._visit(node.init)
            for child in (node.cond, node.next, node.stmt):
                self._visit(child)
            self.scopes.pop()
        elif isinstance(node, c_ast.Decl):
            if node.name:
                self._declare(node, counter=False)
            self._visit(node.init)
        elif isinstance(node, c_ast.ID):
            node.name = self._lookup(node.name)
        elif isinstance(node, c_ast.FuncCall):
            self._visit(node.args)  # the function's name is no variable
        elif isinstance(node, c_ast.StructRef):
            self._visit(node.name)  # nor is a member's
        else:
            for _, child in node.children():
                self._visit(child)

    def _declare(self, decl: c_ast.Decl, counter: bool) -> None:
        """``counter``: declared by a ``for`` header.  Sibling loops may each declare
        their ``int i``, since a loop counter becomes no variable of the code written;
        a scalar becomes one."""
        name = decl.name
        visible = any(name in scope for scope in self.scopes)
        again = name in self.scalars or (not counter and name in self.declared)
        new = self._fresh(name) if visible or again else name
        self.declared.add(name)
        if not counter:
            self.scalars.add(name)
        self.scopes[-1][name] = new
        if new != name:
            decl.name = new
            inner = decl.type
            while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
                inner = inner.type
            if isinstance(inner, c_ast.TypeDecl):
                inner.declname = new

    def _lookup(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return name

    def _fresh(self, name: str) -> str:
        k = 1
        while scoped_name(name, k) in self.taken:
            k += 1
        fresh = scoped_name(name, k)
        self.taken.add(fresh)
        return fresh
