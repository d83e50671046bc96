"""The ``polyopt`` command.

::

    polyopt opt kernel.c [-o kernel.opt.c] [--verify] [options]
    polyopt opt kernel.py [--function NAME] [--signature "float64[:,:], float64"] [-o out.c]
    polyopt deps FILE [--function NAME] [--format text|json|html|dot] [-o OUT]

``opt`` replaces every ``#pragma scop`` region of a C file with optimized C
carrying OpenMP pragmas (everything else is copied byte for byte), or writes
the C that ``@polyopt.jit`` builds for a Python function.  ``deps`` reports the
dependences, the loops that may run in parallel and why the others may not,
and which loop interchanges and fusions are legal.

Exit status: 0 on success, 1 when the input cannot be processed (missing file,
no region, unsupported code, a region that cannot be optimized), 2 for a bad
command line (including options this version does not implement yet), 3 when
``--verify`` finds a difference.  Errors are one clear message, never a
traceback (set ``POLYOPT_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.backend_c.emit_region import emit_region, replace_regions
from polyopt.cli.inputs import InputError, PythonKernel, load_python
from polyopt.cli.verify import Verdict, verify_python, verify_region
from polyopt.frontends.c import CFile, CppOptions, parse_c_file
from polyopt.frontends.python import parse_function
from polyopt.kernel import Kernel
from polyopt.model.errors import (
    IllegalTransformationError,
    PolyoptError,
    TooComplexError,
    UnsupportedError,
)
from polyopt.model.names import user_text
from polyopt.model.options import Options
from polyopt.report import dot as report_dot
from polyopt.report import html as report_html
from polyopt.report import json_doc as report_json
from polyopt.report import text as report_text
from polyopt.report.data import Report, ScopReport, SourceExcerpt, scop_report
from polyopt.scheduler import pipeline
from polyopt.scheduler.steps import steps_from_json

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_MISMATCH = 0, 1, 2, 3
FORMATS = ("text", "json", "html", "dot")


class CliError(Exception):
    """A message for the user and the exit status that goes with it."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code


# --- the command line -----------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polyopt",
        description="An affine polyhedral loop optimizer: C scop regions and Python loop "
                    "functions to parallel, vectorized C, with dependence reports.",
        epilog="Exit status: 0 success, 1 input error, 2 bad command line, 3 --verify mismatch.",
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
    g.add_argument("--schedule", metavar="FILE", type=Path,
                   help="replay a saved user schedule (JSON from Schedule.to_json()) instead of "
                        "the automatic one")
    opt.add_argument("--verify", action="store_true",
                     help="run the original and the optimized code on random inputs and compare "
                          "(the original C at -O0), then report")
    opt.set_defaults(handler=_opt)

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
    deps.set_defaults(handler=_deps)
    return parser


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
                   help="C: define a preprocessor macro")


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except CliError as exc:
        _error(str(exc))
        return exc.code
    except UnsupportedError as exc:
        print(printable(format_unsupported(exc)), file=sys.stderr)
        return EXIT_ERROR
    except IllegalTransformationError as exc:
        _error(f"the schedule is illegal: {exc}")
        return EXIT_ERROR
    except TooComplexError as exc:
        _error(f"the region cannot be optimized: it is too complex to analyse ({exc})")
        return EXIT_ERROR
    except PolyoptError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("POLYOPT_DEBUG"):
            raise
        _error(f"internal error: {type(exc).__name__}: {exc}\n(this is a bug in polyopt; please "
               "report it with the input file; POLYOPT_DEBUG=1 shows the traceback)")
        return EXIT_ERROR


def _error(message: str) -> None:
    print(f"polyopt: error: {printable(message)}", file=sys.stderr)


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of a file (kept as surrogates) shown as
    ``\\xff``: printing them as they are fails on a strict UTF-8 stream."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def format_unsupported(exc: UnsupportedError) -> str:
    """Every problem as ``file:line:col: error: ...`` with the source line and a caret."""
    out: list[str] = []
    for p in exc.problems:
        out.append(f"{p.location}: error: {p.construct}: {p.reason}")
        caret = p.location.caret()
        if caret:
            out.append(caret)
    return "\n".join(out)


# --- inputs ---------------------------------------------------------------------------------


def _is_python(path: Path) -> bool:
    return path.suffix == ".py"


def _check_input(args: argparse.Namespace) -> Path:
    path: Path = args.file
    if not path.exists():
        raise CliError(f"{path}: no such file")
    if path.is_dir():
        raise CliError(f"{path}: is a directory, not a source file")
    if _is_python(path) and (args.include_dirs or args.defines):
        raise CliError("-I and -D apply to C files only", EXIT_USAGE)
    if not _is_python(path) and args.signature:
        raise CliError("--signature applies to Python files only", EXIT_USAGE)
    return path


def _c_file(args: argparse.Namespace, path: Path) -> CFile:
    return parse_c_file(path, CppOptions(tuple(args.include_dirs), tuple(args.defines)))


def _selected(cfile: CFile, function: str | None) -> list:
    if function is None:
        return list(cfile.regions)
    regions = [r for r in cfile.regions if r.function == function]
    if not regions:
        found = ", ".join(sorted({r.function for r in cfile.regions}))
        raise CliError(f"{cfile.path}: no #pragma scop region in a function named {function!r} "
                       f"(regions are in: {found})")
    return regions


def _python(args: argparse.Namespace, path: Path) -> PythonKernel:
    try:
        return load_python(path, args.function, args.signature)
    except InputError as exc:
        raise CliError(str(exc)) from None


# --- options ----------------------------------------------------------------------------------


def options_from(args: argparse.Namespace, base: Options) -> Options:
    """``base`` with the transformation options given on the command line.

    An option maps to a field of :class:`~polyopt.model.options.Options`; when this version
    has no such field the option is refused (exit status 2), never silently ignored.
    """
    fields = {f.name for f in dataclasses.fields(Options)}
    changes: dict[str, object] = {}

    def want(field: str, value: object, flag: str) -> None:
        if value is None:
            return
        if field not in fields:
            raise CliError(f"{flag} is not available yet in this version of polyopt", EXIT_USAGE)
        changes[field] = value

    want("tile", args.tile, "--tile/--no-tile")
    if args.tile_sizes is not None:
        if args.tile is False:
            raise CliError("--tile-sizes contradicts --no-tile", EXIT_USAGE)
        want("tile", _sizes(args.tile_sizes), "--tile-sizes")
    want("parallel", args.parallel, "--parallel/--no-parallel")
    want("fuse", args.fuse, "--fuse")
    want("unroll_jam", args.unroll_jam, "--unroll-jam/--no-unroll-jam")
    want("vectorize", args.vectorize, "--vectorize/--no-vectorize")
    try:
        return dataclasses.replace(base, **changes)
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def region_defaults() -> Options:
    """A C region cannot allocate the panel copies that packing needs, nor per-thread
    copies of its arrays: the rewritten region declares no arrays of its own."""
    base = Options()
    have = {f.name for f in dataclasses.fields(base)}
    return dataclasses.replace(base, **{f: False for f in ("pack", "array_copies") if f in have})


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise CliError(f"--tile-sizes: {text!r} is not a comma-separated list of integers",
                       EXIT_USAGE) from None
    if not sizes or any(s < 1 for s in sizes):
        raise CliError("--tile-sizes: sizes must be positive integers", EXIT_USAGE)
    return sizes


def _steps(args: argparse.Namespace) -> tuple | None:
    if args.schedule is None:
        return None
    try:
        text = args.schedule.read_bytes()  # JSON's own decoding: bad bytes are a format error
    except OSError as exc:
        raise CliError(f"--schedule: cannot read {args.schedule}: {exc.strerror}") from None
    try:
        return steps_from_json(text)
    except (ValueError, KeyError, TypeError, PolyoptError) as exc:
        raise CliError(f"--schedule: {args.schedule} is not a polyopt schedule file ({exc})") \
            from None


# --- polyopt opt ------------------------------------------------------------------------------


def _opt(args: argparse.Namespace) -> int:
    path = _check_input(args)
    steps = _steps(args)
    if _is_python(path):
        return _opt_python(args, path, steps)
    cfile = _c_file(args, path)
    regions = _selected(cfile, args.function)
    if steps is not None and len(regions) != 1:
        raise CliError(f"--schedule applies to one region, but {path} has {len(regions)}; choose "
                       "one with --function NAME", EXIT_USAGE)
    options = options_from(args, region_defaults())
    blocks, raws = [], []
    for r in regions:
        plan = pipeline.plan(r.scop, options, steps) if steps is not None else \
            pipeline.plan(r.scop, options)
        raws.append(emit_region(r, plan.tree, plan.scop))
        # the region speaks of the file's own names again (polyopt.model.names)
        blocks.append((r, user_text(raws[-1], whole_names=True)))
    # verification compiles the region as the model names it
    verdicts = [verify_region(r, raw) for (r, _), raw in zip(blocks, raws, strict=True)] \
        if args.verify else []
    if not _report(verdicts):
        return EXIT_MISMATCH
    out = args.output or str(path.with_name(path.stem + ".opt" + (path.suffix or ".c")))
    write_output(out, replace_regions(cfile.text, blocks), path)
    if out != "-":
        print(printable(f"polyopt: optimized {len(blocks)} region(s) of {path} -> {out}"),
              file=sys.stderr)
    return EXIT_OK


def _opt_python(args: argparse.Namespace, path: Path, steps: tuple | None) -> int:
    pk = _python(args, path)
    options = options_from(args, pk.kernel.options)
    kernel = Kernel(pk.kernel.py_func, options, steps=steps if steps is not None else
                    pk.kernel.steps)
    values = pk.sample_args() if pk.signature is not None else ()
    source = kernel.c_source(*values)
    if args.verify and not _report([verify_python(kernel, pk.name, pk.signature)]):
        return EXIT_MISMATCH
    out = args.output or str(path.with_name(f"{path.stem}.{pk.name}.c"))
    write_output(out, source, path)
    if out != "-":
        print(printable(f"polyopt: wrote the C of {pk.name}() to {out}"), file=sys.stderr)
    return EXIT_OK


def _report(verdicts: list[Verdict]) -> bool:
    """Print the verdicts; False (and say that nothing is written) when one failed."""
    for v in verdicts:
        print(f"polyopt: {printable(user_text(str(v)))}", file=sys.stderr)
    if any(not v.ok for v in verdicts):
        print("polyopt: the optimized code was not written (verification failed)",
              file=sys.stderr)
        return False
    return True


def write_output(out: str, text: str, source: Path) -> None:
    """Write ``text`` to ``out`` atomically ('-' is standard output); never over ``source``.

    A file is written beside the target and renamed over it, so a failure (a read-only
    directory, a full disk) leaves the target as it was and no partial file behind."""
    if out == "-":
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
        return
    target = Path(out)
    try:
        _write_file(target, text, source)
    except OSError as exc:
        raise CliError(f"{target}: cannot write the output ({exc.strerror or exc})") from None


def _write_file(target: Path, text: str, source: Path) -> None:
    if target.resolve() == source.resolve() or (target.exists() and os.path.samefile(target, source)):
        raise CliError(f"refusing to write over the input file {source} (choose another -o)")
    if target.is_dir():
        raise CliError(f"{target}: is a directory")
    if target.exists() and not target.is_file():  # /dev/null, a pipe: write through
        with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
        return
    directory = target.resolve().parent
    if not directory.is_dir():
        raise CliError(f"{target}: the directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --- polyopt deps ---------------------------------------------------------------------------


def _deps(args: argparse.Namespace) -> int:
    path = _check_input(args)
    cpp = CppOptions(tuple(args.include_dirs), tuple(args.defines))
    report = build_report(path, args.function, args.signature, cpp)
    write_output(args.output or "-", render(report, args.format), path)
    return EXIT_OK


def build_report(path: Path, function: str | None = None, signature: str | None = None,
                 cpp: CppOptions | None = None) -> Report:
    """The dependence report of a C file's regions or of a Python file's function."""
    if _is_python(path):
        try:
            pk = load_python(path, function, signature)
        except InputError as exc:
            raise CliError(str(exc)) from None
        scop = parse_function(pk.kernel.py_func, pk.signature)
        one = scop_report(scop, analyze(scop), f"{pk.name}()", "python-function", pk.source())
        return Report(str(path), "python", (one,))
    cfile = parse_c_file(path, cpp)
    lines = tuple(cfile.text.splitlines())
    scops: list[ScopReport] = []
    for r in _selected(cfile, function):
        excerpt = SourceExcerpt(str(path), r.start_line, lines[r.start_line - 1:r.end_line])
        scops.append(scop_report(r.scop, analyze(r.scop), r.label, "c-region", excerpt))
    return Report(str(path), "c", tuple(scops))


def render(report: Report, fmt: str) -> str:
    """The report in one of :data:`FORMATS`."""
    writers = {"text": report_text.render, "json": report_json.render,
               "html": report_html.render, "dot": report_dot.render}
    return user_text(writers[fmt](report))  # the user's names (polyopt.model.names)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
