"""``polyopt opt``: a C file with its ``#pragma scop`` regions optimized, or the C of a
Python kernel, checked first by ``--verify`` when asked."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path

from polyopt.backend_c.emit_region import (
    emit_region,
    emit_region_code,
    replace_regions,
    size_guards,
)
from polyopt.backend_c.work import parallel_min_fixed
from polyopt.cli.errors import EXIT_ERROR, EXIT_MISMATCH, EXIT_OK, EXIT_USAGE, CliError, printable
from polyopt.cli.inputs import (
    c_file,
    check_input,
    cpp_options,
    is_python,
    python_kernel,
    selected_regions,
)
from polyopt.cli.options import options_from, region_defaults, schedule_steps
from polyopt.cli.output import write_output
from polyopt.cli.verify import Verdict, verify_file_compiles, verify_python, verify_region
from polyopt.kernel import Kernel
from polyopt.model.errors import TooComplexError
from polyopt.model.names import user_text
from polyopt.scheduler import pipeline


def run(args: argparse.Namespace) -> int:
    path = check_input(args)
    threshold = nullcontext() if args.parallel_min is None else \
        parallel_min_fixed(args.parallel_min)
    with threshold:
        return _opt_python(args, path) if is_python(path) else _opt_c(args, path)


def _opt_c(args: argparse.Namespace, path: Path) -> int:
    schedule_steps(args)  # a bad file is an error before the C is read
    cfile = c_file(args, path)
    regions = selected_regions(cfile, args.function)
    # a schedule saved for another function is refused, as for Python (hostile 43b, 04)
    steps = schedule_steps(args, regions[0].function if len(regions) == 1 else None)
    if steps is not None and len(regions) != 1:
        if args.function is None:
            raise CliError(f"--schedule applies to one region, but {path} has {len(regions)}; "
                           "choose one with --function NAME", EXIT_USAGE)
        # (hostile session 44b, 05: the advice above, given with --function already there)
        raise CliError(f"--schedule applies to one region, but {args.function}() in {path} has "
                       f"{len(regions)}; a schedule cannot choose between the regions of one "
                       "function: move each into a function of its own", EXIT_USAGE)
    options = options_from(args, region_defaults())
    blocks, helpers, raws = [], [], []
    for r in regions:
        plan = pipeline.plan(r.scop, options, steps, copyable=r.copyable)
        try:
            code = emit_region_code(r, plan.tree, plan.scop)
        except TooComplexError as exc:
            plan = pipeline.source_order(plan, exc)
            code = emit_region_code(r, plan.tree, plan.scop)
        # the region speaks of the file's own names again (polyopt.model.names)
        # the checks of the macros where the region stands: one defined in the function
        # above it is defined there (and only there)
        blocks.append((r, size_guards(r) + user_text(code.block, whole_names=True)))
        helpers.append((r, user_text(code.helpers, whole_names=True)))
        # verification compiles the region as the model names it, every statement in
        # place: its harness declares the arrays its own way (the helpers' code is the
        # same statements in the same order, moved into a function)
        if args.verify:  # on a team at the harness's small sizes too
            with parallel_min_fixed(0):
                raws.append(emit_region(r, plan.tree, plan.scop))
    verdicts = [verify_region(r, raw) for (r, _), raw in zip(blocks, raws, strict=True)] \
        if args.verify else []
    text = replace_regions(cfile.text, blocks, helpers)
    whole = verify_file_compiles(path, text, cpp_options(args)) if args.verify else None
    failed = _report([*verdicts, *([whole] if whole is not None else [])])
    if failed:
        return failed
    out = args.output or str(path.with_name(path.stem + ".opt" + (path.suffix or ".c")))
    write_output(out, text, path)
    if out != "-":
        print(printable(f"polyopt: optimized {len(blocks)} region(s) of {path} -> {out}"),
              file=sys.stderr)
    return EXIT_OK


def _opt_python(args: argparse.Namespace, path: Path) -> int:
    pk = python_kernel(path, args.function, args.signature)
    # a schedule saved for another function was replayed on this one without a word
    steps = schedule_steps(args, pk.kernel.__name__)
    options = options_from(args, pk.kernel.options)
    kernel = Kernel(pk.kernel.py_func, options, steps=steps if steps is not None else
                    pk.kernel.steps)
    values = pk.sample_args() if pk.signature is not None else ()
    source = kernel.c_source(*values)
    failed = _report([verify_python(kernel, pk.name, pk.signature)]) if args.verify else 0
    if failed:
        return failed
    out = args.output or str(path.with_name(f"{path.stem}.{pk.name}.c"))
    write_output(out, source, path)
    if out != "-":
        print(printable(f"polyopt: wrote the C of {pk.name}() to {out}"), file=sys.stderr)
    return EXIT_OK


def _report(verdicts: list[Verdict]) -> int:
    """Print the verdicts; 0 when all passed, else the exit status (and say that nothing
    is written): a mismatch's, or an error's where a check could not run at all."""
    for v in verdicts:
        print(f"polyopt: {printable(user_text(str(v)))}", file=sys.stderr)
    if any(not v.ok and v.checked for v in verdicts):
        print("polyopt: the optimized code was not written (verification failed)",
              file=sys.stderr)
        return EXIT_MISMATCH
    if any(not v.ok for v in verdicts):
        print("polyopt: the optimized code was not written (it could not be verified; "
              "run without --verify to write it)", file=sys.stderr)
        return EXIT_ERROR
    return 0
