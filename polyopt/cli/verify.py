"""``polyopt opt --verify``: run the original and the optimized code on the same
pseudo-random inputs and compare everything they write.

For a C region, the reference is the original region compiled at ``-O0``; the
optimized block is compiled with the flags of polyopt's own builds (``$CFLAGS``,
default ``-O3 -march=native -fopenmp``, and gcc's workarounds).  Both run in a generated harness (:mod:`polyopt.backend_c.emit_harness`)
with small parameter values for which every access stays inside the arrays'
declared extents.  For a Python function, the reference is the function run by
CPython, the optimized code the compiled kernel.

The optimized code runs its parallel loops on a team of :data:`THREADS` threads: the
small verification sizes stay far below the threshold under which generated kernels
run on one thread (``POLYOPT_PARALLEL_MIN``), so the verification copy of a kernel is
generated with the threshold at 0.  What ``polyopt opt`` writes keeps the threshold.

Floating-point results may differ by reassociation (parallel and vectorized
reductions), so they are compared with a relative tolerance; integers exactly.
"""

from __future__ import annotations

import copy
import ctypes
import inspect
import math
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import islpy as isl
import numpy as np

from polyopt.analysis.bounds import out_of_bounds
from polyopt.backend_c import build
from polyopt.backend_c.emit_harness import HarnessData, HarnessError, harness
from polyopt.backend_c.work import parallel_min_fixed
from polyopt.frontends.c_preprocess import CppOptions, compiler
from polyopt.kernel import Kernel
from polyopt.kernel.threads import OMP_RUNTIMES
from polyopt.model import isl_text, names
from polyopt.model.aff import Lin
from polyopt.model.c_region import CRegion
from polyopt.model.dtypes import WEAK_INT
from polyopt.model.scop import Scop
from polyopt.model.signature import ArgType, ArrayType, ScalarType, Signature

RTOL = {"double": 1e-9, "float": 1e-4}
_SIZES = (10, 8, 6, 5, 4, 3, 2, 1)
#: threads that run the optimized code's parallel loops (at least 2: a race, or a
#: per-thread copy that another access misses, shows only on a team)
THREADS = 3
#: the OpenMP runtimes a compiled kernel may have loaded into this process
_OMP_RUNTIMES = OMP_RUNTIMES


@dataclass(frozen=True)
class Verdict:
    """The outcome of one verification."""

    what: str
    ok: bool
    detail: str
    checked: bool = True  # False: the check could not run (no mismatch was seen)

    def __str__(self) -> str:
        outcome = "OK" if self.ok else "FAILED" if self.checked else "NOT VERIFIED"
        return f"verify {self.what}: {outcome}: {self.detail}"


def _unverified(what: str, why: object) -> Verdict:
    return Verdict(what, False, f"cannot verify: {why}", checked=False)


class VerifyError(Exception):
    """The verification could not run (not a mismatch: a harness or compiler problem)."""


# --- C regions ------------------------------------------------------------------------------


def verify_region(region: CRegion, optimized: str) -> Verdict:
    """Compile and run the original and optimized region, and compare their outputs."""
    try:
        data = choose_data(region)
        source = harness(region, optimized, data)
    except (HarnessError, VerifyError) as exc:
        return _unverified(region.label, exc)
    with tempfile.TemporaryDirectory(prefix="polyopt-verify-") as tmp:
        c_file = Path(tmp) / "harness.c"
        c_file.write_text(source)
        try:
            ref = _run(_compile(c_file, Path(tmp) / "original", ["-O0"]))
            optimized_exe = _compile(c_file, Path(tmp) / "optimized",
                                     [*_build_flags(), "-DPOLYOPT_OPTIMIZED"])
        except VerifyError as exc:
            return _unverified(region.label, exc)
        try:
            opt = _run(optimized_exe, _team_env())
        except VerifyError as exc:  # where the original ran: a failure, not a doubt
            return Verdict(region.label, False, str(exc))
    sizes = ", ".join(f"{p}={v}" for p, v in data.params.items() if p not in region.extent_params)
    return _compare(region.label, ref, opt, region, f"with {sizes or 'no parameters'}")


def verify_file_compiles(path: Path, optimized: str, cpp: CppOptions) -> Verdict | None:
    """The optimized file compiled as a whole, as its user will: the harness holds the
    region alone, with the declarations it needs, so C that only the file's context
    breaks (a type no header of the file declares) passed.  None where the original
    itself does not compile this way (nothing to compare with)."""
    cmd = [*compiler(), "-fsyntax-only", "-fopenmp", f"-I{path.resolve().parent}",
           *(f"-I{d}" for d in cpp.include_dirs), *(f"-D{d}" for d in cpp.defines),
           "-x", "c"]
    with tempfile.TemporaryDirectory(prefix="polyopt-verify-") as tmp:
        copy_path = Path(tmp) / path.name
        copy_path.write_text(optimized, encoding="utf-8", errors="surrogateescape")
        try:
            original = subprocess.run([*cmd, str(path)], capture_output=True, text=True,
                                      timeout=300, check=False)
            if original.returncode != 0:
                return None
            mine = subprocess.run([*cmd, str(copy_path)], capture_output=True, text=True,
                                  timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _unverified(str(path), f"cannot compile the optimized file: {exc}")
        # the copy's messages, as of the file they will be about
        errors = mine.stderr.replace(tmp, str(path.parent))
    if mine.returncode == 0:
        return Verdict(f"{path} as a whole", True, "the optimized file compiles")
    first = next((line for line in errors.splitlines() if "error" in line), errors)
    return Verdict(f"{path} as a whole", False, "the optimized file does not compile where "
                   f"the original does: {first}")


def choose_data(region: CRegion) -> HarnessData:
    """Small parameter values that keep every access inside the declared extents,
    and the extents to allocate."""
    scop = region.scop
    real = [p for p in scop.params if p not in region.extent_params]
    checks = out_of_bounds(scop)

    def fits(values: dict[str, int]) -> bool:
        point = _point(scop.params, values)
        return all(c.bad_params.intersect(point).is_empty() for c in checks)

    for t in _SIZES:  # the largest common value, then each parameter as large as it may be
        values = {p: t for p in real} | {p: 10**6 for p in region.extent_params}
        if fits(values):
            for p in real:
                for bigger in (x for x in _SIZES if x > values[p]):
                    if fits(values | {p: bigger}):
                        values[p] = bigger
                        break
            break
    else:
        raise VerifyError("no small parameter values keep every access inside the arrays")
    point = _point(scop.params, values)
    extents = {name: _extents(region, name, values, point) for name in region.arrays}
    final = {p: v for p, v in values.items() if p not in region.extent_params}
    for name, a in scop.arrays.items():
        for k, e in enumerate(a.shape):
            if len(e.names()) == 1 and next(iter(e.names())) in region.extent_params:
                final[next(iter(e.names()))] = extents[name][k]
    ints = {s.name: 3 for s in region.scalars.values() if not s.written and s.name not in final
            and not any(w in s.base.split() for w in ("float", "double"))}
    return HarnessData(final, extents, ints)


def _point(params: tuple[str, ...], values: dict[str, int]) -> isl.Set:
    cond = " and ".join(f"{p} = {values[p]}" for p in params) or "1 = 1"
    return isl.Set.read_from_str(isl.DEFAULT_CONTEXT, f"{isl_text.params_prefix(params)}{{ : {cond} }}")


def _extents(region: CRegion, name: str, values: dict[str, int], point: isl.Set) -> tuple[int, ...]:
    """Declared extents where C gives them, else one past the largest index accessed."""
    scop = region.scop
    out: list[int] = []
    for k, e in enumerate(scop.arrays[name].shape):
        if not (e.names() & set(region.extent_params)):
            out.append(max(_eval(e, values), 1))
            continue
        hi = 0
        for s in scop.statements:
            for acc in s.accesses:
                if acc.target != name:
                    continue
                touched = acc.relation.range().intersect_params(point)
                if touched.is_empty():
                    continue
                _, top = names.dim_bounds(touched, k)
                if top is None:
                    raise VerifyError(f"cannot bound the indices of `{name}`")
                hi = max(hi, top + 1)
        out.append(max(hi, 1))
    return tuple(out)


def _eval(e: Lin, values: dict[str, int]) -> int:
    out = e.const
    for atom, c in e.terms:
        if not isinstance(atom, str):
            raise VerifyError("an array extent with a division")
        out += c * values[atom]
    return out


def _build_flags() -> list[str]:
    """The flags of polyopt's own builds (backend_c.build.toolchain: ``$CFLAGS`` and gcc's
    workarounds), for an executable instead of a shared library."""
    return [f for f in build.toolchain().flags if f != "-shared"]


def _team_env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": str(THREADS), "OMP_DYNAMIC": "false"}


def _exit_text(code: int) -> str:
    """A harness's exit status in words: a signal by its name, with its usual cause."""
    if code >= 0:
        return f"exit status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"
    cause = {"SIGFPE": ": an integer division by zero?", "SIGSEGV": ": an access out of "
             "bounds?"}.get(name, "")
    return f"{name}{cause}"


def _compile(c_file: Path, exe: Path, flags: list[str]) -> Path:
    cmd = [*build.toolchain().compiler, *flags, "-std=gnu11", "-o", str(exe), str(c_file), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise VerifyError(f"the harness does not compile ({' '.join(cmd)}):\n{proc.stderr.strip()}")
    return exe


def _run(exe: Path, env: dict[str, str] | None = None) -> dict[str, list[str]]:
    try:
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False,
                              env=env)
    except subprocess.TimeoutExpired:
        raise VerifyError(f"{exe.name} ran for more than 120 s") from None
    if proc.returncode != 0:
        raise VerifyError(f"{exe.name} crashed ({_exit_text(proc.returncode)}) on the "
                          "harness's random inputs")
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in proc.stdout.splitlines():
        if line.startswith(("array ", "scalar ")):
            current = out.setdefault(line.split()[1], [])
        else:
            current.append(line)
    return out


def _compare(what: str, ref: dict[str, list[str]], opt: dict[str, list[str]], region: CRegion,
             sizes: str) -> Verdict:
    worst = 0.0
    count = 0
    for name, values in ref.items():
        got = opt.get(name, [])
        if len(got) != len(values):
            return Verdict(what, False, f"`{name}`: {len(got)} values instead of {len(values)}")
        base = region.arrays[name].base if name in region.arrays else region.scalars[name].base
        is_float = any(w in base.split() for w in ("float", "double"))
        rtol = RTOL["float" if base == "float" else "double"]
        # the magnitude of the finite values (an infinity would excuse any difference)
        scale = max((abs(float(v)) for v in values if math.isfinite(float(v))), default=0.0) \
            if is_float else 0.0
        for k, (a, b) in enumerate(zip(values, got, strict=True)):
            count += 1
            if not is_float:
                if a != b:
                    return Verdict(what, False, f"`{name}` differs at element {k}: {a} (original) "
                                   f"!= {b} (optimized) {sizes}")
                continue
            x, y = float(a), float(b)
            if x == y or math.isnan(x) and math.isnan(y):  # equal infinities too
                continue
            err = abs(x - y)
            if not err <= rtol * max(abs(x), abs(y)) + rtol * 1e-3 * scale:
                return Verdict(what, False, f"`{name}` differs at element {k}: {a} (original) vs "
                               f"{b} (optimized) {sizes}")
            if err:
                worst = max(worst, err / max(abs(x), abs(y), 1e-300))
    return Verdict(what, True, f"{count} values agree {sizes} (largest relative difference "
                   f"{worst:.1e})")


# --- Python functions -----------------------------------------------------------------------


def verify_python(kernel: Kernel, name: str, signature: Signature | None) -> Verdict:
    """The compiled kernel against CPython, on random inputs of small sizes, its parallel
    loops on :data:`THREADS` threads: a copy of ``kernel`` generated and built with no
    parallel threshold (``kernel`` itself, and the C it writes, keep theirs)."""
    with _on_a_team():
        threaded = Kernel(kernel.py_func, kernel.options, steps=kernel.steps)
        return _verify_python(threaded, name, signature)


@contextmanager
def _on_a_team() -> Iterator[None]:
    """Kernels generated and called in here run every parallel loop on :data:`THREADS`
    threads.  The threshold (``POLYOPT_PARALLEL_MIN``) is read when the C is generated;
    ``OMP_NUM_THREADS`` when an OpenMP runtime is loaded, so a runtime this process
    loaded before is told the number of threads itself."""
    saved = {k: os.environ.get(k) for k in ("POLYOPT_PARALLEL_MIN", "OMP_NUM_THREADS")}
    os.environ["POLYOPT_PARALLEL_MIN"] = "0"
    os.environ["OMP_NUM_THREADS"] = str(THREADS)
    runtimes: list[tuple[ctypes.CDLL, int]] = []
    for lib in _OMP_RUNTIMES:
        try:  # only a runtime already loaded: RTLD_NOLOAD
            rt = ctypes.CDLL(lib, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        runtimes.append((rt, rt.omp_get_max_threads()))
        rt.omp_set_num_threads(THREADS)
    try:
        with parallel_min_fixed(0):  # whatever --parallel-min says
            yield
    finally:
        for rt, before in runtimes:
            rt.omp_set_num_threads(before)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _verify_python(kernel: Kernel, name: str, signature: Signature | None) -> Verdict:
    rng = np.random.default_rng(20240611)
    params = list(inspect.signature(kernel.py_func).parameters)
    if signature is None:
        plan = kernel.plan(None)
        types = _inferred(plan.scop, params)
    else:
        types = dict(signature.args)
    last_error = ""
    for n in (8, 5, 3):
        args = tuple(random_arg(rng, types[p], n) for p in params)
        ref_args = copy.deepcopy(args)
        try:
            got = kernel(*args)
        except (IndexError, ValueError, ArithmeticError) as exc:
            last_error = str(exc)
            continue
        try:
            expected = kernel.py_func(*ref_args)
        except Exception as exc:  # the user's function on these inputs: not polyopt's bug
            # (math.log(-1.0) raises in CPython, is nan in C: a documented difference)
            last_error = (f"CPython raised {type(exc).__name__}: {exc}, where the compiled "
                          "kernel returned")
            continue
        for p, a, b in zip(params, ref_args, args, strict=True):
            if isinstance(a, np.ndarray) and not _close(a, np.asarray(b)):
                return Verdict(f"{name}()", False, f"argument `{p}` differs (size {n})")
        if not _close(np.asarray(expected), np.asarray(got)):
            return Verdict(f"{name}()", False, f"the returned value differs (size {n})")
        return Verdict(f"{name}()", True, f"the compiled kernel matches CPython (sizes {n}, "
                       f"parallel loops on {THREADS} threads)")
    return _unverified(f"{name}()", f"no size of 8, 5 and 3 runs both ({last_error})")


def _inferred(scop: Scop, params: list[str]) -> dict[str, ArgType]:
    out: dict[str, ArgType] = {}
    for p in params:
        if p in scop.arrays:
            out[p] = ArrayType(scop.arrays[p].dtype, scop.arrays[p].rank)
        elif p in scop.scalars:
            out[p] = ScalarType(scop.scalars[p].type)
        else:
            out[p] = ScalarType(WEAK_INT)
    return out


def random_arg(rng: np.random.Generator, t: ArgType, n: int) -> object:
    if isinstance(t, ArrayType):
        shape = (n,) * t.ndim
        if t.dtype.is_float:
            return (1.0 + rng.random(shape)).astype(np.dtype(t.dtype.value))
        return rng.integers(0, 10, shape).astype(np.dtype(t.dtype.value))
    assert isinstance(t, ScalarType)
    if t.is_int:
        return n if t.type.weak else np.dtype(t.type.dtype.value).type(n)
    v = 1.0 + float(rng.random())
    return v if t.type.weak else np.dtype(t.type.dtype.value).type(v)


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        rtol = {np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2}.get(a.dtype, 1e-9)
        return bool(np.allclose(a, b, rtol=rtol, atol=rtol * 1e-3 * float(np.max(np.abs(a), initial=0)),
                                equal_nan=True))
    return bool(np.array_equal(a, b))
