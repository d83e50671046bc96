"""The loop structure of the C that polyopt generates for a kernel.

``python -m bench.loops gemm atax`` prints, for each PolyBench kernel, the
``for`` lines, OpenMP pragmas and statement comments of ``kernel.c_source``
(the default options), indented as in the C: enough to see the schedule
(interchange, tiling, fusion, parallel and simd loops) without the helpers.
"""

from __future__ import annotations

import argparse
import re

from bench.specs import load_spec, polybench_names

_KEEP = re.compile(r"^\s*(for \(|#pragma|if \(|.*/\* .* \*/\s*$)")


def loop_structure(c_source: str) -> str:
    """The kernel function's loops, pragmas and statements (by their source comment)."""
    body = c_source[c_source.rfind("\nvoid polyopt_") + 1:]
    out = []
    for line in body.splitlines():
        if not _KEEP.match(line):
            continue
        if "/*" in line and not line.lstrip().startswith(("for", "#pragma", "if")):
            indent = line[:len(line) - len(line.lstrip())]
            line = indent + "S: " + line[line.index("/*") + 2:line.rindex("*/")].strip()
        out.append(line.rstrip())
    return "\n".join(out)


def structure_of(name: str, suite: str = "polybench", **options: object) -> str:
    import polyopt

    spec = load_spec(suite, name)
    kernel = polyopt.jit(spec.kernel, **options)  # type: ignore[arg-type]
    return loop_structure(kernel.c_source(**spec.args("MINI")))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.loops", description=__doc__)
    p.add_argument("kernels", nargs="*", help="PolyBench kernels (default: all)")
    args = p.parse_args(argv)
    for name in args.kernels or polybench_names():
        print(f"== {name}")
        print(structure_of(name))
        print()


if __name__ == "__main__":
    main()
