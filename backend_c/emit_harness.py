"""A standalone C program that runs one ``#pragma scop`` region on pseudo-random data
and prints everything the region may have written, for ``polyopt opt --verify``.

The same source holds the original region and the optimized block; compiling
it with ``-DPOLYOPT_OPTIMIZED`` selects the optimized one.  Arrays live in flat
heap buffers viewed through the region's own array types (``double (*A)[25]``,
or a table of row pointers for ``double **A``); parameters and read-only
scalars are globals with fixed values; scalars whose value flows in or out of
the region are globals that are initialized and printed too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from polyopt.model.c_region import MIN_MAX_CALLS, CArray, CRegion


class HarnessError(Exception):
    """The region cannot be run standalone (an array shape the harness cannot rebuild)."""


@dataclass(frozen=True)
class HarnessData:
    """The concrete sizes a harness runs with."""

    params: dict[str, int]  # every integer parameter, extent parameters included
    extents: dict[str, tuple[int, ...]]  # allocated extent of every array dimension
    int_scalars: dict[str, int]  # read-only integer scalars that are not parameters
    seed: int = 20240611


_RNG = """static unsigned long long polyopt_state;
static double polyopt_next(void)
{
  polyopt_state ^= polyopt_state << 13;
  polyopt_state ^= polyopt_state >> 7;
  polyopt_state ^= polyopt_state << 17;
  return (double) (polyopt_state >> 11) * (1.0 / 9007199254740992.0);
}
"""


def _is_int(base: str) -> bool:
    return not any(w in base.split() for w in ("float", "double"))


def _random(base: str) -> str:
    """A pseudo-random value: small integers, or floats in [1, 2) (no division by zero)."""
    return "(int) (polyopt_next() * 10)" if _is_int(base) else "1.0 + polyopt_next()"


def _view(a: CArray, extents: tuple[int, ...]) -> list[str]:
    """Declarations that make ``a.name`` index the flat buffer ``polyopt_data_<name>``."""
    data = f"polyopt_data_{a.name}"
    if len(extents) == 1:
        return [f"{a.base} *{a.name} = {data};"]
    if all(d is not None for d in a.dims[1:]):
        inner = "".join(f"[{e}]" for e in extents[1:])
        return [f"{a.base} (*{a.name}){inner} = ({a.base} (*){inner}) {data};"]
    if len(extents) == 2:
        rows = f"polyopt_rows_{a.name}"
        return [f"{a.base} *{rows}[{extents[0]}];",
                f"for (long r = 0; r < {extents[0]}; r++) {rows}[r] = {data} + r * {extents[1]};",
                f"{a.base} **{a.name} = {rows};"]
    raise HarnessError(f"cannot rebuild the shape of `{a.name}` (a pointer below the first "
                       "dimension of a rank > 2 array)")


def harness(region: CRegion, optimized: str, data: HarnessData) -> str:
    """The C program (see the module docstring)."""
    lines = [f"/* polyopt --verify harness: {region.label} */", "#include <stdio.h>",
             "#include <stdlib.h>", "#include <math.h>", "#include <stdint.h>",
             "#include <stdbool.h>", *region.typedefs, _RNG]
    lines += _min_max(region.original)
    lines += _globals(region, data)
    lines += _region_function(region, optimized, data)
    lines += _main(region, data)
    return "\n".join(lines) + "\n"


def _min_max(original: str) -> list[str]:
    """Definitions of the min/max functions the region calls in its bounds (the file
    defines them, but the harness holds only the region)."""
    out = []
    for name, is_min in MIN_MAX_CALLS.items():
        if re.search(rf"\b{name}\s*\(", original):
            op = "<" if is_min else ">"
            out.append(f"static long {name}(long a, long b) {{ return a {op} b ? a : b; }}")
    return out


def _globals(region: CRegion, data: HarnessData) -> list[str]:
    lines = [f"static {region.params.get(p, 'long')} {p} = {v};" for p, v in data.params.items()]
    for s in region.scalars.values():
        if s.name in data.params or (s.written and not s.live) or s.declared_in_region:
            continue
        lines.append(f"static {s.base} {s.name};")
    lines += [f"static {a.base} *polyopt_data_{a.name};" for a in region.arrays.values()]
    return lines


def _region_function(region: CRegion, optimized: str, data: HarnessData) -> list[str]:
    body = ["static void polyopt_region(void)", "{"]
    for a in region.arrays.values():
        body += ["  " + x for x in _view(a, data.extents[a.name])]
    body += [f"  {t} {it};" for it, t in region.iterator_types.items()]
    body += [f"  {s.base} {s.name};" for s in region.scalars.values()
             if s.written and not s.live and not s.declared_in_region]
    return body + ["#ifdef POLYOPT_OPTIMIZED", optimized.rstrip("\n"), "#else",
                   region.original.rstrip("\n"), "#endif", "}"]


def _main(region: CRegion, data: HarnessData) -> list[str]:
    lines = ["int main(void)", "{", f"  polyopt_state = {data.seed}ULL;"]
    for a in region.arrays.values():
        total = _product(data.extents[a.name])
        lines += [f"  polyopt_data_{a.name} = malloc({total} * sizeof({a.base}));",
                  f"  for (long k = 0; k < {total}; k++) polyopt_data_{a.name}[k] = "
                  f"{_random(a.base)};"]
    outputs = [s for s in region.scalars.values() if s.live and not s.declared_in_region]
    for s in region.scalars.values():
        if s.name in data.params or s.declared_in_region or (s.written and not s.live):
            continue
        value = data.int_scalars.get(s.name)
        lines.append(f"  {s.name} = {value if value is not None else _random(s.base)};")
    lines.append("  polyopt_region();")
    for a in region.arrays.values():
        total = _product(data.extents[a.name])
        lines += [f'  printf("array {a.name} %ld\\n", (long) {total});',
                  f"  for (long k = 0; k < {total}; k++) {_print(a.base, f'polyopt_data_{a.name}[k]')}"]
    for s in outputs:
        lines += [f'  printf("scalar {s.name} 1\\n");', f"  {_print(s.base, s.name)}"]
    return [*lines, "  return 0;", "}"]


def _print(base: str, what: str) -> str:
    if _is_int(base):
        return f'printf("%lld\\n", (long long) {what});'
    return f'printf("%.17g\\n", (double) {what});'


def _product(xs: tuple[int, ...]) -> int:
    out = 1
    for x in xs:
        out *= max(x, 0)
    return max(out, 1)
