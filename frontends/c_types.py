"""C declarations as polyopt sees them: element types, array dimensions, scopes.

A declaration's type is flattened into the subscripts it accepts: ``double
A[N][M]`` and ``double (*A)[M]`` both take two subscripts, the first of unknown
extent in the pointer form.  Element types map to the dtypes polyopt computes
with: ``char`` is int8 (signed, as on x86-64 and in NumPy's byte), ``short`` int16,
``unsigned char`` uint8 ... ``unsigned long`` uint64, ``_Bool`` (and ``bool``) bool,
``_Float16`` float16.  Their values compute as C computes them, after the integer
promotions (:func:`polyopt.frontends.c_values.convert_types`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast, c_generator

from polyopt.model.dtypes import DType

_INT_WORDS = frozenset({"int", "signed", "short", "char", "long"})
_SIGNED = {8: DType.INT8, 16: DType.INT16, 32: DType.INT32, 64: DType.INT64}
_UNSIGNED = {8: DType.UINT8, 16: DType.UINT16, 32: DType.UINT32, 64: DType.UINT64}


@dataclass(frozen=True)
class CType:
    """The type of a declared name, flattened.

    ``base`` is the element type as C spells it once typedefs are resolved
    (``"double"``, ``"char"``), ``dims`` the extent of each subscript, outermost
    first (None for a pointer level or an unspecified extent ``A[]``), and
    ``dtype`` what polyopt computes with (None when the type is outside its
    subset, then ``unsupported`` says why).
    """

    base: str
    dims: tuple[c_ast.Node | None, ...]
    dtype: DType | None
    unsupported: str = ""
    pointer_levels: tuple[bool, ...] = ()  # per subscript: True where it goes through a pointer
    # `volatile` or `_Atomic` at some level (the qualifier): each access is a side effect
    volatile: str = ""
    const: bool = False  # the elements are `const` (`const double w[m]`, `const double *p`)

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def is_integer(self) -> bool:
        return self.dtype is not None and not self.dtype.is_float and not self.dims


def element_dtype(words: tuple[str, ...]) -> tuple[DType | None, str]:
    """The dtype of C type specifier words (``("long", "int")``), or None and a reason."""
    ws = set(words)
    if ws == {"_Bool"}:
        return DType.BOOL, ""
    if ws == {"_Float16"}:
        return DType.FLOAT16, ""
    if ws == {"double"}:
        return DType.FLOAT64, ""
    if ws == {"float"}:
        return DType.FLOAT32, ""
    if "double" in ws:
        return None, "`long double` is not supported"
    if ws and ws <= _INT_WORDS | {"unsigned"} and not ws >= {"signed", "unsigned"}:
        bits = 64 if "long" in ws else 8 if "char" in ws else 16 if "short" in ws else 32
        return (_UNSIGNED if "unsigned" in ws else _SIGNED)[bits], ""
    return None, (f"type `{' '.join(words)}` is not supported (use an int, unsigned, float, "
                  "double, _Bool or _Float16 type)")


class TypeTable:
    """Typedefs, to resolve names such as ``DATA_TYPE`` or ``base``: the file's, and those
    declared inside its functions (``typedef double real;`` in ``main``) where every
    function that declares the name gives it one type and the file does not."""

    def __init__(self, ast: c_ast.FileAST) -> None:
        self.typedefs: dict[str, c_ast.Node] = {}
        local: dict[str, list[c_ast.Node]] = {}
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = ext.type
            elif isinstance(ext, c_ast.FuncDef):
                for node in walk_nodes(ext.body):
                    if isinstance(node, c_ast.Typedef):
                        local.setdefault(node.name, []).append(node.type)
        text = c_generator.CGenerator()
        for name, types in local.items():
            if name not in self.typedefs and len({text.visit(t) for t in types}) == 1:
                self.typedefs[name] = types[0]

    def of(self, decl_type: c_ast.Node) -> CType:
        """Flatten a declarator chain (``PtrDecl``/``ArrayDecl``/``TypeDecl``)."""
        dims: list[c_ast.Node | None] = []
        ptrs: list[bool] = []
        node = decl_type
        volatile = ""
        const = False
        for _ in range(64):
            quals = getattr(node, "quals", None) or []
            volatile = volatile or next((q for q in quals if q in ("volatile", "_Atomic")), "")
            # a TypeDecl's qualifiers are the elements' (a PtrDecl's, the pointer's own)
            const = const or (isinstance(node, c_ast.TypeDecl) and "const" in quals)
            if isinstance(node, c_ast.ArrayDecl):
                dims.append(node.dim)
                ptrs.append(False)
                node = node.type
            elif isinstance(node, c_ast.PtrDecl):
                dims.append(None)
                ptrs.append(True)
                node = node.type
            elif isinstance(node, c_ast.TypeDecl):
                inner = node.type
                if isinstance(inner, c_ast.IdentifierType):
                    # _Float16 is gcc's keyword, a typedef name only to pycparser
                    if inner.names[0] != "_Float16" and len(inner.names) == 1 and \
                            inner.names[0] in self.typedefs:
                        node = self.typedefs[inner.names[0]]
                        continue
                    words = tuple(inner.names)
                    dtype, why = element_dtype(words)
                    return CType(" ".join(words), tuple(dims), dtype, why, tuple(ptrs), volatile,
                                 const)
                kind = type(inner).__name__.lower()
                return CType(kind, tuple(dims), None, f"{kind} types are not supported", tuple(ptrs))
            elif isinstance(node, c_ast.FuncDecl):
                return CType("function", tuple(dims), None, "is a function", tuple(ptrs))
            else:
                break
        return CType("?", tuple(dims), None, "this declaration is not supported", tuple(ptrs))


@dataclass(frozen=True)
class Symbol:
    """A name visible at a scop region, with where it was declared."""

    name: str
    type: CType
    scope: str  # "file", "param" (function parameter), "local" (function body), "region"
    decl: c_ast.Decl


def declared_names(node: c_ast.Node) -> list[c_ast.Decl]:
    """Variable declarations directly in a block item (a ``Decl`` or a ``DeclList``)."""
    if isinstance(node, c_ast.Decl) and node.name and not isinstance(node.type, c_ast.FuncDecl):
        return [node]
    if isinstance(node, c_ast.DeclList):
        return [d for d in node.decls if d.name]
    return []


def scope_at(ast: c_ast.FileAST, fn: c_ast.FuncDef, path: list[c_ast.Compound],
             stop: c_ast.Node, types: TypeTable) -> dict[str, Symbol]:
    """Every variable visible just before ``stop``, the innermost declaration winning.

    ``path`` is the chain of blocks from the function body down to the block that
    holds ``stop``.
    """
    out: dict[str, Symbol] = {}
    for ext in ast.ext:
        if ext is fn:
            break
        for d in declared_names(ext):
            out[d.name] = Symbol(d.name, types.of(d.type), "file", d)
    params = fn.decl.type.args.params if fn.decl.type.args is not None else []
    for p in params:
        if isinstance(p, c_ast.Decl) and p.name:
            out[p.name] = Symbol(p.name, types.of(p.type), "param", p)
    for k, block in enumerate(path):
        inner = path[k + 1] if k + 1 < len(path) else stop
        for item in block.block_items or []:
            if item is inner or _contains(item, inner):
                break
            for d in declared_names(item):
                out[d.name] = Symbol(d.name, types.of(d.type), "local", d)
    return out


def _contains(node: c_ast.Node, target: c_ast.Node) -> bool:
    return any(child is target or _contains(child, target) for _, child in node.children())


def walk_nodes(node: c_ast.Node) -> list[c_ast.Node]:
    """``node`` and every node below it."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(child for _, child in n.children())
    return out
