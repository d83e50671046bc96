"""The ``polyopt`` command line: its subcommands and their arguments.

::

    polyopt opt FILE [-o OUT] [--verify] [--tile | --tile-sizes N,N] [--fuse max] ...
    polyopt deps FILE [--function NAME] [--format text|json|html|dot] [-o OUT]
    polyopt tune FILE.py --signature TYPES [--function NAME] [--size N] [--budget S] [-o OUT]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import polyopt
from polyopt.backend_c.work import PARALLEL_MIN_INSTANCES
from polyopt.cli import tune
from polyopt.model.options import Options

FORMATS = ("text", "json", "html", "dot")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polyopt",
        description="An affine polyhedral loop optimizer: C scop regions and Python loop "
                    "functions to parallel, vectorized C, with dependence reports.",
        epilog="Exit status: 0 success, 1 input error (or --verify could not compare), "
               "2 bad command line, 3 --verify mismatch.",
    )
    parser.add_argument("--version", action="version", version=f"polyopt {polyopt.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    opt = sub.add_parser(
        "opt", help="optimize the #pragma scop regions of a C file, or print the C of a "
                    "Python kernel",
        description="Replace every #pragma scop ... #pragma endscop region of a C file with "
                    "optimized C carrying OpenMP pragmas (the rest of the file is copied "
                    "unchanged), or write the C that @polyopt.jit builds for a Python function.")
    _common(opt, output_help="output file ('-' for standard output; default: FILE.opt.c next "
                             "to a C input, FILE.FUNCTION.c for a Python one)")
    g = opt.add_argument_group("transformations")
    g.add_argument("--tile", action=argparse.BooleanOptionalAction, default=None,
                   help=f"tile loop bands for locality (default: {_default('tile')})")
    g.add_argument("--tile-sizes", metavar="N,N,...",
                   help="tile with these sizes, outermost loop first (implies --tile)")
    g.add_argument("--parallel", action=argparse.BooleanOptionalAction, default=None,
                   help="run parallel loops with OpenMP `parallel for` "
                        f"(default: {_default('parallel')})")
    g.add_argument("--fuse", choices=("none", "smart", "max"), default=None,
                   help="loop fusion: none, smart (when profitable) or max "
                        f"(default: {_default('fuse')})")
    g.add_argument("--unroll-jam", action=argparse.BooleanOptionalAction, default=None,
                   help="unroll-and-jam (register tiling) around reductions "
                        f"(default: {_default('unroll_jam')})")
    g.add_argument("--vectorize", action=argparse.BooleanOptionalAction, default=None,
                   help="mark vectorizable innermost loops `omp simd` "
                        f"(default: {_default('vectorize')})")
    g.add_argument("--strict-fp", action=argparse.BooleanOptionalAction, default=None,
                   help="keep floating-point reductions in source order (no parallel or SIMD "
                        "reduction of floats): compiled with -ffp-contract=off, the result is "
                        f"bit-exact with the original (default: {_default('strict_fp')})")
    g.add_argument("--parallel-min", metavar="N", type=_instances, default=None,
                   help="a parallel loop runs on one thread when its region or kernel runs "
                        "fewer than N statement instances, counted at run time (waking a "
                        "thread team costs more than a small run's work); 0: always on a team "
                        f"(default: {PARALLEL_MIN_INSTANCES}, or POLYOPT_PARALLEL_MIN)")
    g.add_argument("--schedule", metavar="FILE", type=Path,
                   help="replay a saved user schedule (JSON from Schedule.to_json()) instead of "
                        "the automatic one")
    opt.add_argument("--verify", action="store_true",
                     help="run the original and the optimized code on random inputs and compare "
                          "(the original C at -O0), then report")

    deps = sub.add_parser(
        "deps", help="report dependences and which loops can run in parallel, and why",
        description="Report every dependence (kind, source and sink access, carrying loop, "
                    "distance or direction, relation), every loop's verdict (parallel, parallel "
                    "as a reduction, vectorizable, sequential) and the dependences that prevent "
                    "loop interchange or fusion.")
    _common(deps, output_help="output file (default: standard output)")
    deps.add_argument("--format", choices=FORMATS, default="text",
                      help="text (default), json (schema in docs/deps-schema.md), html (one "
                           "self-contained page with the dependence graph) or dot (Graphviz)")
    tune.add_parser(sub)
    return parser


def _instances(text: str) -> int:
    """``--parallel-min``'s value: a whole number of statement instances."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number of statement instances (write 1000000, not "
            "1e6)") from None
    if not 0 <= value < 2**62:
        raise argparse.ArgumentTypeError(f"{value} is not from 0 to 2**62 - 1")
    return value


def _define(text: str) -> str:
    """A ``-D`` argument: a macro name (``N``, ``F(x)``), then ``=VALUE`` if any; a bad
    one is a bad command line (exit 2), not the preprocessor's error on the file."""
    if not _DEFINE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME or NAME=VALUE, NAME an identifier (or F(x) for a "
            "function-like macro)")
    return text


_DEFINE = re.compile(r"[A-Za-z_]\w*(\([\w\s,.]*\))?(=.*)?", re.DOTALL)


def _default(field: str) -> str:
    """How the default of an :class:`Options` field reads in ``--help``."""
    value = getattr(Options(), field, None)
    if value is None:
        return "not available yet"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _common(p: argparse.ArgumentParser, output_help: str) -> None:
    p.add_argument("file", type=Path, help="a C file with #pragma scop regions, or a Python file")
    p.add_argument("-o", "--output", metavar="OUT", help=output_help)
    p.add_argument("--function", metavar="NAME",
                   help="Python: the function to compile (needed when several are decorated); "
                        "C: only the regions in this function")
    p.add_argument("--signature", metavar="TYPES",
                   help='Python: the argument types, e.g. "float64[:,:], float64[:], float64" '
                        "(default: inferred from the code)")
    p.add_argument("-I", dest="include_dirs", metavar="DIR", action="append", default=[],
                   help="C: add DIR to the preprocessor's include path")
    p.add_argument("-D", dest="defines", metavar="NAME[=VALUE]", action="append", default=[],
                   type=_define, help="C: define a preprocessor macro")
