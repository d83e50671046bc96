"""The size macros a region's C is written for.

``polyopt opt`` works on the preprocessed file, so a macro that a region names
(``for (t = 1; t <= TSTEPS; t++)``) reaches the optimized C as its value
(``c0 <= 10``).  The output is then right only when compiled with that value; a
build with ``-DTSTEPS=500`` would run 10 steps.  :func:`size_macros` finds, for each
region, the names in its text that the preprocessor turns into an integer constant
there, with that constant, so that the output can refuse (``#error``) a build where
one of them means something else; and those it turns into a float constant or an
integer one with casts (``((int)60)``), which ``#if`` cannot compare (the output checks
them with a ``_Static_assert``).  The names in the bodies of the macros it names count
too (``#define LIM (n - OFF)`` names ``OFF``).

Each name is asked of the preprocessor itself, just above the region's ``#pragma scop``
(the macros in force there, ``-D`` options, headers and the function's own ``#define``
lines included): a probe line
``polyopt_probe NAME`` per name, in a copy of the file.  Names that stay names (the
parameters ``n``, ``_PB_N`` of a macro that expands to ``n``) or expand to anything
but integer arithmetic are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from polyopt.frontends.c_preprocess import COMMENT, CppOptions, preprocess

from polyopt.model.errors import PolyoptError

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_LITERAL = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
# integer constants (decimal, octal, hex, with suffixes) and the arithmetic `#if` knows
_INTEGER_EXPRESSION = re.compile(
    r"(?:\s|0[xX][0-9a-fA-F]+[uUlL]*(?![.\w])|\d+[uUlL]*(?![.\w])|'(?:\\.|[^'\\\n])+'"
    r"|<<|>>|[-+*/%()~&|^])+")
_PROBE = "polyopt_probe_"
_FLOAT = (r"(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+"
          r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][-+]?\d+)[fFlL]?")
# arithmetic on float constants (and ints beside them): `0.5`, `(1.0 / 3)`, `2.5e-3f`
_FLOAT_EXPRESSION = re.compile(rf"(?:\s|{_FLOAT}|\d+[uUlL]*(?![.\w])|[-+*/()])+")
_HAS_FLOAT = re.compile(_FLOAT)
_INT_TYPE = (r"\(\s*(?:(?:const|signed|unsigned|char|short|int|long)\b\s*)+\)"
             r"|\(\s*(?:size_t|ptrdiff_t|u?int(?:8|16|32|64)_t)\s*\)")
# an arithmetic type's name: `float`, `unsigned char`, `int64_t`
_TYPE_NAME = re.compile(r"\s*(?:(?:const|signed|unsigned|char|short|int|long|float|double|"
                        r"_Float16|_Bool|bool|size_t|ptrdiff_t|u?int(?:8|16|32|64)_t)\b\s*)+")
_FLOAT_TYPE = r"\(\s*(?:(?:const|long|float|double|_Float16)\b\s*)+\)"
# arithmetic with casts to arithmetic types, which `#if` cannot evaluate: `((int)60)`,
# PolyBench's `((double)1.5)`
_CAST_EXPRESSION = re.compile(
    rf"(?:{_INT_TYPE}|{_FLOAT_TYPE}|\s|{_FLOAT}|0[xX][0-9a-fA-F]+[uUlL]*(?![.\w])"
    r"|\d+[uUlL]*(?![.\w])|<<|>>|[-+*/%()~&|^])+")


Macros = tuple[tuple[str, str], ...]


def size_macros(path: Path, text: str, options: CppOptions, line: int,
                region_text: str) -> tuple[Macros, Macros, Macros]:
    """(name, value) of each name in ``region_text`` that is a macro of integer value
    at ``line`` of the file ``path`` (its text ``text``: the region's first), and of
    each that is a macro of float value (``#define SCALE 0.5``) or of integer value with
    casts (``((int)60)``), sorted by name; both empty where the file cannot be probed
    (the region's own parse reports why).  The names in the bodies of the macros the
    region names count too (``#define AT(a, i) a[(i) + OFF]`` and ``#define LIM (n -
    OFF)`` name ``OFF``), but not a macro of ``__LINE__``, which has no one value.  The
    third: the macros that name an arithmetic type (``#define DATA_TYPE float``), which
    the C written spells as that type."""
    code = _LITERAL.sub(" ", COMMENT.sub(" ", region_text))
    # not the preprocessor's own (`__LINE__` has another value on each line)
    names = sorted({n for n in _IDENTIFIER.findall(code) if not n.startswith(("__", _PROBE))})
    if not names or line < 1:
        return (), (), ()
    values, functions = _probe(path, text, options, line, names)
    more: set[str] = set()
    todo = [n for n in names if n in functions]
    while todo:  # through the macros that others name
        params, body = functions[todo.pop()]
        for n in set(_IDENTIFIER.findall(_LITERAL.sub(" ", body))) - params - more:
            if not n.startswith(("__", _PROBE)) and n not in names:
                more.add(n)
                if n in functions:
                    todo.append(n)
    if more:
        values.update(_probe(path, text, options, line, sorted(more))[0])
    varying = _varying(functions)
    found: dict[str, str] = {}
    floats: dict[str, str] = {}
    types: dict[str, str] = {}
    for name, value in values.items():
        if not value or value == name or name in varying:
            continue
        if _INTEGER_EXPRESSION.fullmatch(value):
            found[name] = value
        elif (_FLOAT_EXPRESSION.fullmatch(value) and _HAS_FLOAT.search(value)) or \
                _CAST_EXPRESSION.fullmatch(value):
            floats[name] = value
        elif _TYPE_NAME.fullmatch(value):
            types[name] = value
    return (tuple(sorted(found.items())), tuple(sorted(floats.items())),
            tuple(sorted(types.items())))


def _varying(macros: dict[str, tuple[set[str], str]]) -> set[str]:
    """The macros whose value differs from line to line: those that name ``__LINE__``
    or ``__COUNTER__``, directly or through others (no one value to check)."""
    uses = {name: set(_IDENTIFIER.findall(_LITERAL.sub(" ", body))) - params
            for name, (params, body) in macros.items()}
    varying = {name for name, used in uses.items() if used & {"__LINE__", "__COUNTER__"}}
    grown = True
    while grown:
        more = {name for name, used in uses.items() if used & varying} - varying
        varying |= more
        grown = bool(more)
    return varying


_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(?:\(([^)]*)\))?\s?(.*)$")
_UNDEF = re.compile(r"#\s*undef\s+([A-Za-z_]\w*)")


def _probe(path: Path, text: str, options: CppOptions, line: int, names: list[str],
           ) -> tuple[dict[str, str], dict[str, tuple[set[str], str]]]:
    """What each of ``names`` expands to at ``line``, and the macros defined there
    (their parameters, none for an object-like one, and body); empty where the file
    cannot be probed."""
    lines = text.splitlines(keepends=True)
    probes = "".join(f"{_PROBE}{k} {n}\n" for k, n in enumerate(names))
    probed = "".join(lines[:line - 1]) + probes + "".join(lines[line - 1:])
    try:
        output = preprocess(path, options, probed, keep_defines=True)
    except PolyoptError:
        return {}, {}
    values: dict[str, str] = {}
    functions: dict[str, tuple[set[str], str]] = {}
    probing = False
    for out_line in output.splitlines():
        stripped = out_line.strip()
        m = re.match(rf"{_PROBE}(\d+) (.*)$", stripped)
        if m is not None and 0 <= int(m.group(1)) < len(names):
            probing = True
            values[names[int(m.group(1))]] = m.group(2).strip()
            continue
        if probing:
            continue  # the definitions in force at the probes, not those after them
        d = _DEFINE.match(stripped)
        if d is not None:
            params = {p.strip() for p in (d.group(2) or "").split(",") if p.strip()}
            functions[d.group(1)] = (params, d.group(3))
        u = _UNDEF.match(stripped)
        if u is not None:
            functions.pop(u.group(1), None)
    return values, functions
