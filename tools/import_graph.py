"""Print the import graph between polyopt's sub-packages, and every import cycle.

    python tools/import_graph.py            # the graph between sub-packages
    python tools/import_graph.py --modules  # the graph between modules

It reads the source (``ast``), so it needs nothing installed.  Every ``import`` counts,
at module level or inside a function: a function-local import hides a cycle from
Python, not from this script.  ``TYPE_CHECKING`` blocks are left out (they never run).
The exit status is 1 when there is a cycle between modules or between sub-packages,
or when an import runs against the layers: faces (jit, cli, report) above the
scheduler, above transforms, above analysis, above model.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
#: source directory -> installed package name (setup.cfg's package_dir)
PACKAGES = {"polyopt": "polyopt", "frontends": "polyopt.frontends",
            "backend_c": "polyopt.backend_c"}
#: lower number = lower layer; a module may import only its own layer or lower ones
LAYERS = {"polyopt.model": 0, "polyopt.analysis": 1, "polyopt.transforms": 2,
          "polyopt.scheduler": 3, "polyopt.frontends": 3, "polyopt.backend_c": 3,
          "polyopt.report": 4, "polyopt.cli": 5, "polyopt.kernel": 5,
          "polyopt.user_schedule": 5, "polyopt.tuner": 5, "polyopt": 6}


def modules() -> dict[str, Path]:
    found = {}
    for src, pkg in PACKAGES.items():
        for path in sorted((ROOT / src).rglob("*.py")):
            rel = path.relative_to(ROOT / src).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            found[".".join([pkg, *parts])] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                out.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_pkg else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    resolved = set()
    for imp in out:
        while imp and imp not in known:
            imp = imp.rpartition(".")[0]
        if imp and imp != name:
            resolved.add(imp)
    return resolved


def group(module: str) -> str:
    """The sub-package a module belongs to (a top-level module is its own group)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", action="store_true", help="print the module graph")
    args = ap.parse_args()
    known = modules()
    mod_graph = nx.DiGraph()
    for name, path in known.items():
        mod_graph.add_node(name)
        for imp in imports_of(name, path, known):
            # a package's __init__ importing its own modules is not a dependency between
            # sub-packages; a module importing its package's __init__ is
            mod_graph.add_edge(name, imp)
    pkg_graph = nx.DiGraph()
    for a, b in mod_graph.edges:
        ga, gb = group(a), group(b)
        pkg_graph.add_node(ga)
        pkg_graph.add_node(gb)
        if ga != gb and not (b == gb and a.startswith(gb + ".")):
            pkg_graph.add_edge(ga, gb)
    graph = mod_graph if args.modules else pkg_graph
    for node in sorted(graph):
        targets = sorted(graph.successors(node))
        print(f"{node} -> {', '.join(targets) if targets else '(nothing)'}")
    status = 0
    # a package's __init__ re-exporting its own modules is not a cycle (Python resolves it)
    mod_cycles = [c for c in nx.simple_cycles(mod_graph)
                  if not (len({group(m) for m in c}) == 1 and group(c[0]) in c)]
    for cycle in sorted(mod_cycles, key=len):
        print("module cycle: " + " -> ".join([*cycle, cycle[0]]))
        status = 1
    for cycle in nx.simple_cycles(pkg_graph):
        print("sub-package cycle: " + " -> ".join([*cycle, cycle[0]]))
        status = 1
    for a, b in sorted(pkg_graph.edges):
        la, lb = _layer(a), _layer(b)
        if la is not None and lb is not None and lb > la:
            print(f"upward import: {a} (layer {la}) imports {b} (layer {lb})")
            status = 1
    print(f"{len(mod_cycles)} module cycle(s); {mod_graph.number_of_nodes()} modules")
    return status


def _layer(group_name: str) -> int | None:
    while group_name:
        if group_name in LAYERS:
            return LAYERS[group_name]
        group_name = group_name.rpartition(".")[0]
    return None


if __name__ == "__main__":
    sys.exit(main())
