"""The same programs through the ``polyopt`` command: Python input and C regions.

* ``cli_py``: ``polyopt opt prog.py --function kernel --signature ...`` must write the C
  that ``@polyopt.jit`` builds for those types (docs/cli.md), whose results the jit option
  sets already compare with CPython.
* ``c_region``: the program as a C ``#pragma scop`` region (:mod:`progen.render_c`),
  optimized by ``polyopt opt`` and compiled with ``$CFLAGS``, against the same file
  compiled at ``-O0`` without polyopt.  Outputs are compared like the Python results:
  bit-exact integers, floats within the shadow run's error bound.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shlex
import subprocess
from pathlib import Path

import numpy as np

from polyopt.cli import command as cli
from progen import matrix, oracle, render_c
from progen.nodes import Program

SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
            "-g")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")


def signature(p: Program) -> str:
    parts = [f"{a.dtype}[{', '.join(':' for _ in a.dims)}]" for a in p.arrays]
    parts += [s.kind for s in p.scalars]
    return ", ".join(parts)


def _cli(argv: list[str]) -> tuple[int, str]:
    """Run the command in-process: (exit status, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


def _cli_verdict(code: int, text: str) -> str:
    """A refusal of unsupported input is exit status 1 with its problems as
    ``file:line:col: error: construct: reason`` (polyopt.cli.errors.format_unsupported)."""
    if "internal error" in text or "Traceback" in text:
        return "error"
    if code == 1 and (re.search(r"^\S.*:\d+:\d+: error: ", text, re.MULTILINE)
                      or "unsupported" in text.lower() or "not supported" in text.lower()):
        return "refused"
    return "error"


def run_cli(prep: oracle.Prepared, option: matrix.OptionSet, workdir: Path) -> matrix.Result:
    p = prep.program
    src = workdir / f"progen_{oracle.source_key(p)}.py"
    out = workdir / f"cli_{oracle.source_key(p)}.c"
    code, text = _cli(["opt", str(src), "--function", "kernel", "--signature", signature(p),
                       "-o", str(out)])
    if code != 0:
        return matrix.Result(option.name, _cli_verdict(code, text), f"exit status {code}\n{text}")
    try:
        expected = matrix.jit_kernel(prep, matrix.BY_NAME["default"]).c_source(*prep.args)
    except Exception as exc:  # noqa: BLE001 - the jit's own failure is its option set's finding
        return matrix.Result(option.name, matrix.classify_exception(exc), matrix.describe(exc))
    if out.read_text() != expected:
        return matrix.Result(option.name, "wrong",
                             "polyopt opt wrote other C than @polyopt.jit builds for the signature "
                             f"{signature(p)!r}")
    return matrix.Result(option.name, "ok")


# --- C regions ------------------------------------------------------------------------------------


def _compile(c: Path, exe: Path, flags: list[str]) -> subprocess.CompletedProcess:
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    return subprocess.run([*cc, *flags, str(c), "-o", str(exe), "-lm"], capture_output=True,
                          text=True, timeout=300)


def _run(exe: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)  # the executable links its sanitizer runtimes itself
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env)


def _parse(stdout: str) -> tuple[dict[str, np.ndarray], float | int | None]:
    arrays: dict[str, list] = {}
    ret: float | int | None = None
    current: list | None = None
    for line in stdout.splitlines():
        if line.startswith("ret "):
            v = line[4:]
            ret = float.fromhex(v) if ("0x" in v or "inf" in v or "nan" in v) else int(v)
        elif line.startswith("array "):
            current = arrays.setdefault(line.split()[1], [])
        elif current is not None:
            current.append(float.fromhex(line) if ("0x" in line or "inf" in line or "nan" in line)
                           else int(line))
    return {k: np.array(v) for k, v in arrays.items()}, ret


def run_c(prep: oracle.Prepared, option: matrix.OptionSet, workdir: Path) -> matrix.Result:
    p = prep.program
    key = oracle.source_key(p)
    src = workdir / f"region_{key}.c"
    opt = workdir / f"region_{key}.opt.c"
    src.write_text(render_c.c_file(p))
    code, text = _cli(["opt", str(src), "-o", str(opt)])
    if code != 0:
        return matrix.Result(option.name, _cli_verdict(code, text), f"exit status {code}\n{text}")
    sanitize = list(SANITIZE) if os.environ.get("PROGEN_SANITIZE") else []
    ref_exe, opt_exe = workdir / f"ref_{key}", workdir / f"opt_{key}"
    built = _compile(src, ref_exe, ["-O0", "-fopenmp", *sanitize])
    if built.returncode != 0:
        return matrix.Result(option.name, "error", f"the generated C does not compile:\n{built.stderr}")
    cflags = shlex.split(os.environ.get("CFLAGS", "-O3 -march=native -fopenmp"))
    built = _compile(opt, opt_exe, [*cflags, *sanitize, "-fopenmp"])
    if built.returncode != 0:
        return matrix.Result(option.name, "error",
                             f"polyopt's C does not compile ({opt}):\n{built.stderr[-3000:]}")
    ref, got = _run(ref_exe), _run(opt_exe)
    for name, r in (("the -O0 reference", ref), ("the optimized program", got)):
        if any(m in r.stderr for m in SANITIZER_MARKS) or r.returncode < 0:
            return matrix.Result(option.name, "crash",
                                 f"{name} died (status {r.returncode}):\n{r.stderr[-3000:]}")
    if ref.returncode != 0 or got.returncode != 0:
        return matrix.Result(option.name, "error", f"exit status {ref.returncode}/{got.returncode}")
    return _compare_c(prep, option, *_parse(ref.stdout), *_parse(got.stdout))


def _compare_c(prep: oracle.Prepared, option: matrix.OptionSet, ref_arrays, ref_ret, arrays,
               ret) -> matrix.Result:
    p = prep.program
    errs = list(prep.errors[:len(p.arrays)])
    if isinstance(p.ret, object) and isinstance(prep.expected.ret, np.ndarray):
        alloc_err = prep.errors[-1]
    else:
        alloc_err = None
    for name, e in ref_arrays.items():
        a = arrays.get(name)
        if a is None or a.shape != e.shape:
            return matrix.Result(option.name, "wrong", f"{name}: missing or of another size")
        k = next((i for i, x in enumerate(p.arrays) if x.name == name), None)
        err = errs[k] if k is not None else prep.alloc_errors.get(name, alloc_err)
        err_flat = None if err is None or np.ndim(err) == 0 else np.asarray(err).reshape(-1)
        if e.dtype.kind == "f":
            scale = np.maximum(err_flat if err_flat is not None and err_flat.shape == e.shape
                               else 0.0, np.abs(e))
            ok = (np.abs(a - e) <= oracle.TOLERANCE_ULPS * prep.eps * scale + 1e-300) | (
                np.isnan(a) & np.isnan(e))
        elif err_flat is not None and err_flat.shape == e.shape and not option.strict:
            ok = (a == e) | ~np.isfinite(err_flat)  # an int of a float near a jump
        else:
            ok = a == e
        if not np.all(ok):
            bad = int(np.argwhere(~ok)[0][0])
            return matrix.Result(option.name, matrix.difference(prep, False),
                                 f"{name}: {int(np.sum(~ok))} of {e.size} elements differ; at flat "
                                 f"{bad}: {a[bad]!r} but the -O0 build gives {e[bad]!r}")
    if ref_ret != ret:
        if isinstance(ref_ret, float) and isinstance(ret, float):
            err = prep.errors[-1] if not isinstance(prep.errors[-1], np.ndarray) else None
            scale = max(abs(ref_ret), float(err or 0.0))
            if abs(ret - ref_ret) <= oracle.TOLERANCE_ULPS * prep.eps * scale:
                return matrix.Result(option.name, "ok")
        if (not option.strict and not isinstance(prep.errors[-1], np.ndarray)
                and prep.errors[-1] is not None and not math.isfinite(prep.errors[-1])):
            return matrix.Result(option.name, "ok")  # unbounded: an int of a float near a jump
        return matrix.Result(option.name, matrix.difference(prep, False),
                             f"return value: {ret!r} but the -O0 build gives {ref_ret!r}")
    return matrix.Result(option.name, "ok")
