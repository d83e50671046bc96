"""A failing (program, option set) as a standalone script: the kernel, its inputs, and a
check against CPython that exits 1 when polyopt's result differs (or raises)."""

from __future__ import annotations

import re

import numpy as np

from progen import oracle, render_py
from progen.matrix import OptionSet
from progen.nodes import Program

_LINE_NAME = re.compile(r"""(['"][\w.#]+@)(\d+)(['"])""")


def _literal(x: object) -> str:
    if isinstance(x, np.ndarray):
        return f"np.array({x.tolist()!r}, dtype=np.{x.dtype})"
    return repr(x)


def script(p: Program, option: OptionSet, verdict: str, detail: str) -> str:
    args = oracle.inputs(p)
    note = "\n".join(f"# {line}" for line in detail.strip().splitlines()[-12:])
    head = f'''"""Found by tests/fuzz_run.py: {verdict} under option set {option.name!r}.

Run: python THIS_FILE   (exit status 1: polyopt differs from CPython or raises)
"""
'''
    how = _how(option, detail, head.count("\n"))
    threshold = "" if option.parallel_min is None else (
        "    import os\n\n    # the small-call threshold the code was generated with\n"
        f"    os.environ['POLYOPT_PARALLEL_MIN'] = '{option.parallel_min}'\n")
    return head + f'''{render_py.module(p)}

ARGS = ({", ".join(_literal(a) for a in args)},)
{note}


def main() -> int:
    import copy
{threshold}
    import polyopt

    expected_args = copy.deepcopy(ARGS)
    expected = kernel(*expected_args)
    got_args = copy.deepcopy(ARGS)
    got = {how}(*got_args)
    strict = {option.strict!r}
    ok = True
    for k, (e, g) in enumerate(zip(expected_args, got_args)):
        if isinstance(e, np.ndarray):
            same = np.array_equal(e, g, equal_nan=True) if strict or e.dtype.kind != "f" else \\
                np.allclose(g, e, rtol=1e-6, atol=1e-9, equal_nan=True)
            if not same:
                ok = False
                print(f"argument {{k}} differs:\\n  CPython {{e!r}}\\n  polyopt {{g!r}}")
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        same = np.allclose(got, expected, rtol=1e-6, atol=1e-9, equal_nan=True)
    else:
        same = expected == got or (expected is not None and got is not None and not strict
                                   and abs(float(expected) - float(got)) <= 1e-6 * (1 + abs(float(expected))))
    if not same or type(expected) is not type(got):
        ok = False
        print(f"return value: CPython {{expected!r}} ({{type(expected).__name__}}), "
              f"polyopt {{got!r}} ({{type(got).__name__}})")
    print("OK" if ok else "DIFFERS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
'''


def _how(option: OptionSet, detail: str, shift: int) -> str:
    """The call that compiled the kernel; a schedule's loops named by line (``'k@21'``,
    lines of the module the run wrote) are renamed by the script's own lines."""
    if option.kind == "jit":
        kw = ", ".join(f"{k}={v!r}" for k, v in option.kwargs.items())
        return f"polyopt.jit(kernel{', ' + kw if kw else ''})"
    first = detail.splitlines()[0] if detail else ""
    if option.kind == "schedule" and first.startswith("schedule: "):
        steps = _LINE_NAME.sub(lambda m: f"{m[1]}{int(m[2]) + shift}{m[3]}",
                               first[len("schedule: "):])
        return f"({steps}).compile()"
    return "polyopt.jit(kernel)"  # the command line writes the jit's C; C regions: see STEM.c
