"""The ``polyopt`` command.

::

    polyopt opt kernel.c [-o kernel.opt.c] [--verify] [options]
    polyopt opt kernel.py [--function NAME] [--signature "float64[:,:], float64"] [-o out.c]
    polyopt deps FILE [--function NAME] [--format text|json|html|dot] [-o OUT]
    polyopt tune kernel.py --signature TYPES [--function NAME] [--size N] [--budget S]

``opt`` (:mod:`polyopt.cli.opt`) replaces every ``#pragma scop`` region of a C
file with optimized C carrying OpenMP pragmas (everything else is copied byte
for byte), or writes the C that ``@polyopt.jit`` builds for a Python function.
``deps`` (:mod:`polyopt.cli.deps`) reports the dependences, the loops that may
run in parallel and why the others may not, and which loop interchanges and
fusions are legal.  ``tune`` (:mod:`polyopt.cli.tune`) runs ``polyopt.tune`` on random
inputs of a signature and size.

Exit status: 0 on success, 1 when the input cannot be processed (missing file,
no region, unsupported code, a region that cannot be optimized), 2 for a bad
command line (including options this version does not implement yet), 3 when
``--verify`` finds a difference.  Errors are one clear message, never a
traceback (set ``POLYOPT_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from typing import TextIO

from polyopt.cli import deps, opt, tune
from polyopt.cli.arguments import build_parser
from polyopt.cli.errors import EXIT_ERROR, CliError, format_unsupported, print_error, printable
from polyopt.model.deep import RECURSION_LIMIT, run_deep
from polyopt.model.errors import (
    IllegalTransformationError,
    PolyoptError,
    TooComplexError,
    UnsupportedError,
)

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"opt": opt.run, "deps": deps.run,
                                                             "tune": tune.run}


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return run_deep(lambda: COMMANDS[args.command](args))
    except CliError as exc:
        print_error(str(exc))
        return exc.code
    except UnsupportedError as exc:
        print(printable(format_unsupported(exc)), file=sys.stderr)
        return EXIT_ERROR
    except IllegalTransformationError as exc:
        print_error(f"the schedule is illegal: {exc}")
        return EXIT_ERROR
    except TooComplexError as exc:
        print_error(f"the region cannot be optimized: it is too complex to analyse ({exc})")
        return EXIT_ERROR
    except PolyoptError as exc:
        print_error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        print_error(f"the input is nested too deeply: past {RECURSION_LIMIT} levels of "
                    "recursion (an expression or a loop nest); split it into several "
                    "statements")
        return EXIT_ERROR
    except Exception as exc:
        if os.environ.get("POLYOPT_DEBUG", "") not in ("", "0"):  # POLYOPT_DEBUG=0: off
            raise
        print_error(f"internal error: {type(exc).__name__}: {exc}\n(this is a bug in polyopt; "
                    "please report it with the input file; POLYOPT_DEBUG=1 shows the traceback)")
        return EXIT_ERROR


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A warning as the command's own line: its Python location would be the command's
    (``<frozen runpy>:88``), not the input's."""
    text = str(message).removeprefix("polyopt: ")
    print(printable(f"polyopt: warning: {text}"), file=file or sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
