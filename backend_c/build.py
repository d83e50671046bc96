"""Compiling generated C into a shared library, with an on-disk cache.

Entries live under ``$POLYOPT_CACHE_DIR`` (default ``$XDG_CACHE_HOME/polyopt``,
else ``~/.cache/polyopt``) in ``lib/<key>/`` where ``key`` hashes the C text,
the compiler's identity and the flags.  An entry is built in a private
temporary directory and published with one atomic ``rename``, so concurrent
processes never see a half-written library; the manifest records the library's
SHA-256, and an entry that fails the check is discarded and rebuilt.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from polyopt.backend_c import sanitizers

from polyopt.model.errors import CompileError, warn_user

DEFAULT_CFLAGS = "-O3 -march=native -fopenmp"
# Always added: a shared library, and float flags that change no result (no errno
# from math functions, no traps) but let gcc vectorize calls such as exp.
# strict_fp: no fused multiply-add (`a*b - c` rounds as Python's does), and every call of
# a transcendental function stays a call of the C library, which CPython's math module
# calls too: gcc folds one with constant arguments correctly rounded (expm1(1.0) ends in
# ...453 where glibc's gives ...45) and makes `pow(x, 2.0)` the exactly rounded `x * x`
_FOLDED = ("exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh "
           "tanh asinh acosh atanh erf erfc lgamma tgamma hypot pow cbrt").split()
STRICT_FP_FLAGS = ("-ffp-contract=off",
                   *(f"-fno-builtin-{fn}{suffix}" for fn in _FOLDED for suffix in ("", "f")))
REQUIRED_FLAGS = ("-shared", "-fPIC", "-std=gnu11", "-fno-math-errno", "-fno-trapping-math")
FORMAT_VERSION = "1"


def cache_root() -> Path:
    explicit = os.environ.get("POLYOPT_CACHE_DIR")
    if explicit:
        return _pinned(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    # a relative one is to be ignored (XDG Base Directory spec): it moved with os.chdir
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "polyopt"


#: each POLYOPT_CACHE_DIR value as first read: '~' expanded (a value set from Python or a
#: quoted one is not expanded by a shell: it made a directory named '~'), a relative path
#: made absolute once (it moved with os.chdir, a second cache beside the first)
_PINNED: dict[str, Path] = {}


def _pinned(text: str) -> Path:
    if text not in _PINNED:
        _PINNED[text] = Path(os.path.abspath(os.path.expanduser(text)))
    return _PINNED[text]


@dataclass(frozen=True)
class Toolchain:
    compiler: list[str]
    flags: list[str]
    identity: str  # path, size and mtime of the compiler: changes when it is upgraded


#: gcc (12.2 at least) miscompiles some loop nests whose arrays are `restrict` when its
#: loop distribution and loop vectorizer meet on an AVX-512 target: reduced case and
#: analysis in docs/design/gcc-loop-distribution.md.  polyopt distributes loops itself,
#: so gcc's own distribution is turned off.
GCC_FLAGS = ("-fno-tree-loop-distribution",)


#: CFLAGS that change float semantics for every kernel (isnan always false, np.max
#: dropping a NaN, strict_fp no longer bit-exact): a kernel's options decide them instead
FAST_MATH_FLAGS = ("-ffast-math", "-Ofast", "-funsafe-math-optimizations",
                   "-ffinite-math-only")


def toolchain(extra_flags: tuple[str, ...] = ()) -> Toolchain:
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    flags = shlex.split(os.environ.get("CFLAGS", DEFAULT_CFLAGS))
    if any(f in FAST_MATH_FLAGS for f in flags) and "-ffast-math" not in extra_flags:
        flags.append("-fno-fast-math")  # before REQUIRED_FLAGS, which it would undo
    if not _openmp(flags) and "openmp" not in _warned:
        _warned.add("openmp")  # CFLAGS="-O2": report() said "parallel", one thread ran
        warn_user(f"polyopt: CFLAGS ({' '.join(flags)}) has no -fopenmp: every kernel runs "
                  "its parallel loops on one thread (add -fopenmp, or pass parallel=False)")
    identity = _identity(cc[0])
    workaround = GCC_FLAGS if _is_gcc(tuple(cc), identity) else ()
    return Toolchain(cc, [*flags, *REQUIRED_FLAGS, *workaround, *extra_flags], identity)


@lru_cache(maxsize=16)
def _is_gcc(cc: tuple[str, ...], identity: str) -> bool:
    """Whether ``cc`` is gcc (not clang, which also defines ``__GNUC__``)."""
    if identity.startswith(_MISSING):
        return False
    try:
        proc = subprocess.run([*cc, "-dM", "-E", "-x", "c", os.devnull], capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    macros = proc.stdout
    return "#define __GNUC__ " in macros and "__clang__" not in macros and "__INTEL" not in macros


def _openmp(flags: list[str]) -> bool:
    """Whether ``flags`` compile OpenMP's ``parallel for`` (the last of -fopenmp and
    -fno-openmp wins; -fopenmp-simd is only its ``simd``)."""
    on = False
    for f in flags:
        if f == "-fopenmp" or f.startswith("-fopenmp="):
            on = True
        elif f == "-fno-openmp":
            on = False
    return on


_MISSING = "missing:"  # identity of a compiler that is not installed: build() reports it


def _identity(cc: str) -> str:
    path = shutil.which(cc)
    if path is None:
        return _MISSING + cc
    return _file_identity(os.path.realpath(path))


@lru_cache(maxsize=16)
def _file_identity(real: str) -> str:
    st = os.stat(real)
    return f"{real}:{st.st_size}:{int(st.st_mtime)}"


def _not_found(cc: str, source: str) -> CompileError:
    return CompileError(
        f"C compiler {cc!r} not found. Install gcc or clang, or set CC to a C compiler.",
        _keep(source),
    )


def library_key(source: str, tc: Toolchain, entry: str = "") -> str:
    h = hashlib.sha256()
    for part in (FORMAT_VERSION, sys.platform, tc.identity, " ".join(tc.compiler), " ".join(tc.flags), source):
        h.update(part.encode())
        h.update(b"\0")
    if entry:  # the call entry's trampolines (entry.c), compiled into the same library
        h.update(entry.encode())
    return h.hexdigest()[:32]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_warned: set[str] = set()


def warn_unusable(exc: OSError) -> None:
    """One warning per process that the cache cannot be written (builds go elsewhere)."""
    if "unusable" in _warned:
        return
    _warned.add("unusable")
    warn_user(f"polyopt: the build cache {cache_root()} cannot be used ({exc}); "
              f"building in a private temporary directory instead")


def _sound_manifest(entry: Path) -> bool:
    """The entry's manifest names its own key (an entry copied or renamed under another
    key is another kernel's build) and the library's digest."""
    try:
        info = json.loads((entry / "manifest.json").read_text())
        return (isinstance(info, dict) and isinstance(info.get("sha256"), str)
                and info.get("key") == entry.name
                and info["sha256"] == _sha256(entry / "kernel.so"))
    except (OSError, ValueError):
        return False


def cached_library(key: str) -> Path | None:
    """The library of a verified cache entry, or None (an unsound entry is removed).

    Published entries are renamed into place whole, so one without a sound manifest
    and library is corrupt, never half-written."""
    entry = cache_root() / "lib" / key
    try:
        if not entry.is_dir():
            if entry.exists() or entry.is_symlink():
                discard(entry)
            return None
    except OSError:
        return None
    if _sound_manifest(entry):
        return entry / "kernel.so"
    discard(entry)
    return None


def discard(entry: Path) -> None:
    """Remove a cache entry atomically (rename first, so no reader sees it half-deleted)."""
    trash = entry.with_name(entry.name + f".trash-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        os.rename(entry, trash)
    except OSError:
        return
    if trash.is_dir() and not trash.is_symlink():
        shutil.rmtree(trash, ignore_errors=True)
    else:
        try:
            trash.unlink()
        except OSError:
            pass


def _private_dir(prefix: str) -> Path:
    private = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


def check_loadable(tc: Toolchain) -> None:
    """A :class:`CompileError` where this process cannot load what ``tc`` builds (a
    sanitizer runtime missing), which would otherwise end the process."""
    missing = sanitizers.missing_runtime(tc.compiler, tc.flags)
    if missing is not None:
        raise CompileError(missing)


def build(source: str, tc: Toolchain, name_hint: str = "kernel", use_cache: bool = True,
          entry: str = "") -> Path:
    """Compile ``source`` (or reuse the cached build) and return the library's path.
    ``entry``: a second translation unit (``entry.c``) linked into the same library.

    With ``use_cache=False`` the cache is neither read nor written: the library is
    built in a private temporary directory, removed when the process exits.  So is it
    when the cache cannot be written (read-only, full, not a directory), with a warning.
    """
    check_loadable(tc)  # before a cache hit too: loading it would end the process
    key = library_key(source, tc, entry)
    if use_cache:
        hit = cached_library(key)
        if hit is not None:
            return hit
    if tc.identity.startswith(_MISSING):
        raise _not_found(tc.compiler[0], source)
    if not use_cache:
        return _compile(_private_dir("polyopt-nocache-"), source, tc, name_hint, entry)
    root = cache_root() / "lib"
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=root))
    except OSError as exc:
        warn_unusable(exc)
        return _compile(_private_dir("polyopt-nocache-"), source, tc, name_hint, entry)
    sweep_stale_builds(root)
    try:
        try:
            _compile(tmp, source, tc, name_hint, entry, key)
        except OSError as exc:  # the cache filled up, or stopped being writable
            warn_unusable(exc)
            return _compile(_private_dir("polyopt-nocache-"), source, tc, name_hint, entry)
        except CompileError as exc:
            cause = _cache_fault(tmp, exc)
            if cause is None:
                raise
            warn_unusable(cause)
            return _compile(_private_dir("polyopt-nocache-"), source, tc, name_hint, entry)
        return _publish(tmp, root / key)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _cache_fault(tmp: Path, exc: CompileError) -> OSError | None:
    """The cache's part in a failed build, where it had one: the compiler or linker ran
    out of space there, or the build directory was removed under it (``rm -rf`` of the
    cache in another shell).  Hostile session 48b: both raised CompileError, where a
    cache that cannot be written is documented to fall back to a private directory."""
    if not (tmp / "kernel.c").is_file():
        return FileNotFoundError(errno.ENOENT, "the build directory was removed", str(tmp))
    if "No space left on device" in exc.output:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
    return None


#: a build directory untouched for this long belongs to a process that was killed (a
#: compile is stopped after 10 minutes)
STALE_BUILD_S = 3600.0


def sweep_stale_builds(root: Path) -> None:
    """Remove the build directories (``.tmp-<key>-*``) that killed processes left in
    ``root``: nothing else removes them, and each kill would add one."""
    now = time.time()
    try:
        entries = [e for e in os.scandir(root) if e.name.startswith(".tmp-")]
    except OSError:
        return
    for e in entries:
        try:
            if now - e.stat(follow_symlinks=False).st_mtime > STALE_BUILD_S:
                shutil.rmtree(e.path, ignore_errors=True)
        except OSError:
            continue  # gone already: another process swept it


def _publish(tmp: Path, final: Path) -> Path:
    """Rename the built entry into place; the library to use."""
    for _ in range(2):
        try:
            os.rename(tmp, final)
            return final / "kernel.so"
        except OSError:
            # another process published the same entry first: use theirs if it is sound
            # (cached_library removes it otherwise, and the rename is tried again)
            hit = cached_library(final.name)
            if hit is not None:
                return hit
    # the entry cannot be published: keep this build privately
    private = _private_dir("polyopt-nocache-")
    shutil.copytree(tmp, private, dirs_exist_ok=True)
    return private / "kernel.so"


def _compile(where: Path, source: str, tc: Toolchain, name_hint: str, entry: str = "",
             key: str = "") -> Path:
    """Compile ``source`` (and ``entry``) into ``where/kernel.so`` with a manifest beside it."""
    c_path = where / "kernel.c"
    c_path.write_text(source)
    sources = [str(c_path)]
    if entry:
        (where / "entry.c").write_text(entry)
        sources.append(str(where / "entry.c"))
    lib = where / "kernel.so"
    cmd = [*tc.compiler, *tc.flags, *sources, "-o", str(lib), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except FileNotFoundError:
        raise _not_found(tc.compiler[0], source) from None
    except subprocess.TimeoutExpired:
        raise CompileError("the C compiler took more than 10 minutes", _keep(source)) from None
    if proc.returncode != 0:
        raise CompileError(
            f"the C compiler failed (exit {proc.returncode}) building {name_hint}: "
            f"{shlex.join(cmd)}", _keep(source), proc.stderr or proc.stdout,
        )
    if not lib.is_file():
        raise CompileError(
            f"the C compiler reported success but wrote no library building {name_hint}: "
            f"{shlex.join(cmd)}", _keep(source), proc.stderr or proc.stdout,
        )
    manifest = {"sha256": _sha256(lib), "key": key, "command": cmd, "name": name_hint}
    (where / "manifest.json").write_text(json.dumps(manifest))
    return lib


def _keep(source: str) -> str:
    """Save C that failed to build outside the temporary build dir, for the user to read
    (in the cache, else in a temporary directory that outlives the process)."""
    name = f"{hashlib.sha256(source.encode()).hexdigest()[:16]}.c"
    try:
        dest_dir = cache_root() / "failed"
        dest_dir.mkdir(parents=True, exist_ok=True)
        dest = dest_dir / name
        dest.write_text(source)
    except OSError:
        dest = Path(tempfile.mkdtemp(prefix="polyopt-failed-")) / name
        dest.write_text(source)
    return str(dest)
