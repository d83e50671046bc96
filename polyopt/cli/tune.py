"""``polyopt tune``: tune a Python kernel on random inputs of the given types and size,
write the result as JSON and keep the choice in the cache for later calls.

::

    polyopt tune kernels.py --function gemm \
        --signature "float, float, float64[:,:], float64[:,:], float64[:,:]" \
        --size 512 --budget 60 [-o gemm.tune.json]

Arrays are ``SIZE`` along every axis (floats from 1 to 2, ints from 0 to 9), int
arguments are ``SIZE`` (a stencil's time steps too), float arguments random.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from polyopt.cli.errors import EXIT_OK, EXIT_USAGE, CliError, printable
from polyopt.cli.inputs import check_input, is_python, python_kernel
from polyopt.cli.output import check_output, write_output
from polyopt.cli.verify import random_arg
from polyopt.model.signature import ArrayType, ScalarType, Signature
from polyopt.tuner import tune


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "tune", help="search tile sizes, unroll-and-jam, fusion and the parallel threshold "
                     "of a Python kernel on inputs of a given size",
        description="Run a Python kernel with candidate options on random inputs of the "
                    "given types and size, keep the fastest whose results agree with the "
                    "default options', store it in the cache for later calls of that "
                    "signature, and write the trials as JSON (polyopt.tune.load replays it).")
    p.add_argument("file", type=Path, help="a Python file with the kernel")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="the JSON result ('-' for standard output; default: "
                        "FILE.FUNCTION.tune.json next to the input)")
    p.add_argument("--function", metavar="NAME",
                   help="the function to tune (needed when several are decorated)")
    # checked in run(), after the file's language: a C file is told that tune takes
    # Python, not that --signature is missing (hostile session 47b, finding 04)
    p.add_argument("--signature", metavar="TYPES",
                   help='the argument types, e.g. "float64[:,:], float64[:], float64" '
                        "(required)")
    p.add_argument("--size", type=int, default=256, metavar="N",
                   help="every array axis and int argument (default: 256)")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="time for the whole search, compiles included (default: 30)")
    p.add_argument("--seed", type=int, default=0, help="of the random inputs (default: 0)")
    p.set_defaults(include_dirs=[], defines=[])


def run(args: argparse.Namespace) -> int:
    if args.file.exists() and not is_python(args.file):
        raise CliError(f"{args.file}: polyopt tune takes a Python file (a kernel decorated "
                       "with @polyopt.jit), not C", EXIT_USAGE)
    path = check_input(args)
    if not args.signature:
        raise CliError("polyopt tune needs --signature: the argument types to tune for, "
                       'e.g. --signature "float64[:,:], float64[:], float64"', EXIT_USAGE)
    if args.size < 1 or not args.budget > 0:  # `not`: a NaN budget too
        raise CliError("--size and --budget must be positive", EXIT_USAGE)
    if args.seed < 0:  # NumPy's generator refuses it: was an "internal error"
        raise CliError(f"--seed must be 0 or more, not {args.seed}", EXIT_USAGE)
    pk = python_kernel(path, args.function, args.signature)
    assert pk.signature is not None  # --signature is required
    out = args.output or str(path.with_name(f"{path.stem}.{pk.name}.tune.json"))
    check_output(out, path)  # before the search, not after it
    _check_fits(pk.name, args.signature, pk.signature, args.size)
    rng = np.random.default_rng(args.seed)
    try:
        values = tuple(random_arg(rng, t, args.size) for _, t in pk.signature.args)
    except (MemoryError, ValueError, OverflowError) as exc:
        # NumPy: MemoryError past the machine's memory, ValueError past its largest
        # shape, OverflowError for an int32 argument of that size
        raise CliError(f"--size {args.size}: cannot make the random inputs of "
                       f"{pk.name}({args.signature}) at that size ({exc})") from None
    try:
        result = tune(pk.kernel, *values, budget=args.budget)
    except TypeError as exc:  # types the kernel does not take (not a declared signature)
        raise CliError(f"--signature {args.signature!r}: {exc}") from None
    except (ArithmeticError, IndexError, ValueError) as exc:
        # what a call raises on inputs it cannot take (an int division by zero, a subscript
        # past the end): the random inputs' fault, not polyopt's ("internal error" before)
        raise CliError(f"{pk.name}() raised {type(exc).__name__} on the random inputs "
                       f"(--size {args.size}, --seed {args.seed}): {exc}; choose another "
                       f"--size or --seed, or tune it from Python on your own arguments: "
                       f"polyopt.tune({pk.name}, *args)") from None
    print(printable(result.summary()), file=sys.stderr)
    strong = [n for n, t in pk.signature.args if isinstance(t, ScalarType) and not t.type.weak]
    if strong:  # the choice is stored for this signature alone (hostile session 36)
        print(printable(
            f"polyopt: note: {', '.join(strong)} {'is' if len(strong) == 1 else 'are'} typed "
            f"as NumPy scalars here; the choice applies to calls with such arguments, and a "
            f"call with Python numbers (float, int) compiles its own signature: tune that "
            f"one with `float`/`int` in --signature"), file=sys.stderr)
    write_output(out, result.to_json() + "\n", path)
    if out != "-":
        print(printable(f"polyopt: wrote the tuning of {pk.name}() to {out}"), file=sys.stderr)
    return EXIT_OK


def _check_fits(name: str, text: str, signature: Signature, size: int) -> None:
    """Refuse inputs larger than half the machine's memory before making them: the tuner
    copies them for every trial, and an allocation that the system grants lazily can
    end in the kernel's out-of-memory killer rather than a MemoryError."""
    need = sum(size ** t.ndim * np.dtype(t.dtype.value).itemsize
               for _, t in signature.args if isinstance(t, ArrayType))
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):  # no such sysconf name here: let NumPy decide
        return
    if need > memory // 2:
        raise CliError(f"--size {size}: the random inputs of {name}({text}) take "
                       f"{need / 2 ** 30:.1f} GiB, more than half of this machine's "
                       f"{memory / 2 ** 30:.1f} GiB; choose a smaller --size")
