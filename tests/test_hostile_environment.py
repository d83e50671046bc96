"""What a hostile or careless user sets around polyopt (issue 13, section 3, fourth round):
POLYOPT_* variables with odd values, CC/CFLAGS with other flags (sanitizers, -ffast-math,
no -fopenmp), cache directories spelled as users spell them, and cache entries of kernels
whose names are renamed.  Each gives the right answer, a clear error or a warning, never a
crash of the interpreter or a setting ignored without a word."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile_files import scale, write
from polyopt.backend_c import build, call_entry_build, index, sanitizers, work
from polyopt.frontends.python_names import interface_spelling
from polyopt.frontends.python_types import type_of_value

import polyopt
from polyopt.model.signature import Signature

# --- CFLAGS with a sanitizer whose runtime is not loaded --------------------------------
# CFLAGS="-fsanitize=address" without LD_PRELOAD: loading the first kernel ended the whole
# Python process ("ASan runtime does not come first in initial library list", exit 1),
# from a fresh build or from a cached one.

SANITIZED = """
import sys
import numpy as np
import polyopt


def scale(x, k):
    for i in range(x.shape[0]):
        x[i] = x[i] * k

x = np.arange(4.0)
try:
    polyopt.jit(scale)(x, 2.0)
except polyopt.CompileError as exc:
    print("refused:", exc)
    sys.exit(0)
print("ran:", x.tolist())
"""


def _libasan() -> str | None:
    proc = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True,
                          check=False)
    path = proc.stdout.strip()
    return path if proc.returncode == 0 and os.path.isabs(path) else None


def _run_sanitized(tmp_path: Path, preload: str | None) -> subprocess.CompletedProcess[str]:
    script = write(tmp_path, "sanitized.py", SANITIZED)
    env = {**os.environ, "CFLAGS": "-O1 -fopenmp -fsanitize=address",
           "ASAN_OPTIONS": "detect_leaks=0"}
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600, check=False)


def test_sanitizer_flags_are_read_as_gcc_reads_them() -> None:
    assert sanitizers.requested(["-O1", "-fsanitize=address,undefined"]) == {"address",
                                                                            "undefined"}
    assert sanitizers.requested(["-fsanitize=address", "-fno-sanitize=address"]) == set()
    assert sanitizers.requested(["-O3", "-fopenmp"]) == set()


@pytest.mark.skipif(_libasan() is None, reason="the C compiler has no AddressSanitizer")
def test_address_sanitizer_without_its_runtime_is_a_compile_error(tmp_path: Path) -> None:
    proc = _run_sanitized(tmp_path, None)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: CFLAGS has -fsanitize=address" in proc.stdout
    assert "LD_PRELOAD" in proc.stdout and "does not come first" not in proc.stderr
    # with the runtime preloaded, the same kernel builds, loads and computes
    ok = _run_sanitized(tmp_path, _libasan())
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert "ran: [0.0, 2.0, 4.0, 6.0]" in ok.stdout


# --- POLYOPT_PARALLEL_MIN that is not an int --------------------------------------------
# POLYOPT_PARALLEL_MIN=1e6 (or "abc") was ignored without a word: the default threshold
# applied while the user believed theirs did.

@pytest.mark.parametrize("text", ["1e6", "many"])
def test_parallel_min_that_is_not_an_int_warns(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("POLYOPT_PARALLEL_MIN", text)
    work._warned.discard(text)
    with pytest.warns(RuntimeWarning, match=f"POLYOPT_PARALLEL_MIN='{text}' is not a whole"):
        assert work.parallel_min_instances() == work.PARALLEL_MIN_INSTANCES
    kernel = polyopt.jit(scale)
    x = np.arange(8.0)
    kernel(x, 3.0)  # warned once per value, not per kernel
    assert x.tolist() == [3.0 * v for v in range(8)]
    assert f">= {work.PARALLEL_MIN_INSTANCES}.0" in kernel.c_source(x, 3.0)


def test_parallel_min_int_forms_still_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # (a negative one is ignored with a warning now, as tune.load refuses it:
    # test_auto.test_a_threshold_out_of_range_is_ignored_with_a_warning)
    for text, value in (("1000000", 1000000), (" 7 ", 7), ("1_000", 1000), ("0", 0)):
        monkeypatch.setenv("POLYOPT_PARALLEL_MIN", text)
        assert work.parallel_min_instances() == value


# POLYOPT_CALL_ENTRY takes one value, 'python'; a typo ('Python') was ignored silently,
# the compiled entry used while the user believed the Python wrapper ran.

def test_call_entry_typo_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYOPT_CALL_ENTRY", "Python")
    monkeypatch.setattr(call_entry_build, "_loaded", {})
    call_entry_build._warned.discard("Python")
    with pytest.warns(RuntimeWarning, match="POLYOPT_CALL_ENTRY='Python' is not 'python'"):
        call_entry_build.extension()


# --- POLYOPT_CACHE_DIR spelled as a user spells it ------------------------------------------
# "~/polyopt-cache" set from Python (no shell to expand it) made a directory named "~" in
# the working directory; a relative path moved with os.chdir, a second cache beside the
# first.

def test_cache_dir_expands_the_home_and_pins_a_relative_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("POLYOPT_CACHE_DIR", "~/polyopt-cache-h4")
    assert build.cache_root() == tmp_path / "home" / "polyopt-cache-h4"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POLYOPT_CACHE_DIR", "relative-cache-h4")
    kernel = polyopt.jit(scale)
    x = np.arange(3.0)
    kernel(x, 2.0)
    monkeypatch.chdir("/")
    assert build.cache_root() == tmp_path / "relative-cache-h4"
    kernel(x, 2.0)
    polyopt.jit(scale)(x, 2.0)  # a new kernel: from the same cache
    assert x.tolist() == [0.0, 8.0, 16.0]
    assert (tmp_path / "relative-cache-h4" / "lib").is_dir()


# --- the cache index of a kernel whose argument names are renamed -------------------------
# An argument named y1 (a libm function), default (a C keyword) or α (not ASCII) is renamed
# in the C; the index entry's names were compared with the names as written, so the entry
# never matched: "discarding the cache index entry ... (argument names differ from the
# function's); rebuilding" in every process, and the function planned again each time.

def renamed_args(x, y1, default, α):
    for i in range(x.shape[0]):
        y1[i] = x[i] * default + α


def test_index_entry_of_renamed_arguments_is_reused(recwarn: pytest.WarningsRecorder) -> None:
    x = np.arange(4.0)
    first, second = np.zeros(4), np.zeros(4)
    polyopt.jit(renamed_args)(x, first, 2.0, 0.5)
    kernel = polyopt.jit(renamed_args)  # a new kernel: from the index, as a new process is
    kernel(x, second, 2.0, 0.5)
    expected = np.zeros(4)
    renamed_args(x, expected, 2.0, 0.5)
    assert first.tolist() == second.tolist() == expected.tolist()
    assert not [w for w in recwarn.list if "discarding the cache index entry" in str(w.message)]
    sig = Signature(tuple((n, type_of_value(a)) for n, a in
                          zip(("x", "y1", "default", "α"), (x, second, 2.0, 0.5), strict=True)))
    front = kernel.cache_key(sig)
    assert front is not None
    assert index.load(front, *interface_spelling(["x", "y1", "default", "α"], sig)) is not None


# --- CFLAGS with -ffast-math -------------------------------------------------------------------
# CFLAGS="-O3 -ffast-math" (common in HPC shells) made every kernel fast-math: math.isnan
# was always False and np.max dropped a NaN, strict_fp=True kernels included, which the
# README says are bit-exact with CPython.

def count_nans(x):
    c = 0
    for i in range(x.shape[0]):
        c += 1 if math.isnan(x[i]) else 0
    return c


def largest(x):
    return np.max(x)


@pytest.mark.parametrize("cflags", ["-O3 -fopenmp -ffast-math", "-Ofast -fopenmp"])
def test_fast_math_cflags_do_not_change_a_kernels_float_semantics(
        monkeypatch: pytest.MonkeyPatch, cflags: str) -> None:
    monkeypatch.setenv("CFLAGS", cflags)
    x = np.array([1.0, np.nan, 3.0, np.nan])
    assert polyopt.jit(count_nans)(x) == count_nans(x) == 2
    assert polyopt.jit(strict_fp=True)(count_nans)(x) == 2
    assert np.isnan(polyopt.jit(largest)(x))
    assert "-fno-fast-math" in build.toolchain().flags
    assert "-fno-fast-math" not in build.toolchain(("-ffast-math",)).flags  # fastmath=True


def test_default_cflags_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CFLAGS", raising=False)
    assert "-fno-fast-math" not in build.toolchain().flags


# CFLAGS="-O2" (no -fopenmp) built every kernel for one thread without a word, while
# report() said "parallel" and get_num_threads() the team's size.

def test_cflags_without_openmp_warn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFLAGS", "-O2")
    build._warned.discard("openmp")
    with pytest.warns(RuntimeWarning, match="has no -fopenmp: every kernel runs its parallel"):
        kernel = polyopt.jit(scale)
        x = np.arange(3.0)
        kernel(x, 2.0)
    assert x.tolist() == [0.0, 2.0, 4.0]
    for flags, on in ((["-O3", "-fopenmp"], True), (["-fopenmp=libomp"], True),
                      (["-fopenmp", "-fno-openmp"], False), (["-fopenmp-simd"], False)):
        assert build._openmp(flags) is on


def test_relative_xdg_cache_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLYOPT_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert build.cache_root() == tmp_path / ".cache" / "polyopt"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build.cache_root() == tmp_path / "xdg" / "polyopt"
